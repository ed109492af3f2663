// Volume creation: header writer, every chain x every PRF round trip, layout against VeraCrypt-made volumes,
// pre-flight and bad options through the real binary, interrupt and crash points (FailFile), hidden volumes,
// import/export, keyfile creation.
#include <sys/mount.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/statvfs.h>

#include "core/create/create.h"
#include "core/create/keyfile.h"
#include "core/engine/cpu_engine.h"
#include "core/format/header_writer.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/random.h"
#include "core/volume/volume.h"
#include "tests/support/fail_file.h"
#include "tests/support/create_support.h"
#include "tests/support/test_support.h"

using namespace warpvol;
using namespace wvtest;

namespace {

const std::vector<PrfId> kCreatePrfs = {PrfId::Sha512, PrfId::Sha256, PrfId::Blake2s, PrfId::Whirlpool,
                                        PrfId::Streebog, PrfId::Argon2id};

// Decrypts the 512-byte header at `offset` of `path` with a VeraCrypt-made volume's known password (any PRF in
// the manifest's default/pim) — through open_header narrowed to that slot.
OpenedHeader header_at(const std::string& path, const std::string& pw, int pim, SlotKind slot, bool backup,
                       std::optional<PrfId> prf = std::nullopt) {
  OpenOptions o = open_opts(pw, pim);
  o.slot = slot;
  o.backup_only = backup;
  o.allow_backup_fallback = false;
  o.prf = prf;
  return open_volume(path, o);
}

void require_same_layout_fields(const HeaderFields& a, const HeaderFields& b) {
  CHECK(a.magic == b.magic);
  CHECK(a.version == b.version);
  CHECK(a.required_version == b.required_version);
  CHECK(a.volume_creation_time == b.volume_creation_time);
  CHECK(a.header_creation_time == b.header_creation_time);
  CHECK(a.hidden_volume_size == b.hidden_volume_size);
  CHECK(a.volume_size == b.volume_size);
  CHECK(a.encrypted_area_start == b.encrypted_area_start);
  CHECK(a.encrypted_area_length == b.encrypted_area_length);
  CHECK(a.flags == b.flags);
  CHECK(a.sector_size == b.sector_size);
}

// This process's threads now (/proc/self/status).
int thread_count() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

// A CPU engine that notes how many threads the process had when a job first told it about its keys (plan_job, or
// the calls that plan otherwise).
struct PlanWatchEngine : CpuEngine {
  PlanWatchEngine() : CpuEngine(1) {}
  std::atomic<int> plans{0};
  mutable std::atomic<int> threads_at_first{-1};
  void note() const {
    int none = -1;
    threads_at_first.compare_exchange_strong(none, thread_count());
  }
  void plan_job(const EngineKey&, const EngineKey*) override {
    ++plans;
    note();
  }
  unsigned concurrency_for(const EngineKey& a, const EngineKey* b) const override {
    note();
    return CpuEngine::concurrency_for(a, b);
  }
  IoBuffer io_buffer_for(size_t bytes, const EngineKey& a, const EngineKey* b) override {
    note();
    return CpuEngine::io_buffer_for(bytes, a, b);
  }
};

}  // namespace

TEST_CASE("header writer: a built header decrypts to its fields, salts differ, fake headers open with nothing",
          "[create]") {
  for (ChainId chain : {ChainId::Aes, ChainId::SerpentTwofishAes, ChainId::KuznyechikAes}) {
    LockedBytes mk = new_master_key(chain);
    const size_t K = chain_info(chain).key_size();
    REQUIRE(mk.size() == 2 * K);
    REQUIRE(std::memcmp(mk.data(), mk.data() + K, K) != 0);
    HeaderFields f = normal_volume_fields(1 << 20, 512, chain, mk);
    KdfChoice kdf = new_header_kdf(PrfId::Sha256, VolumeFormat::VeraCrypt, 1);
    REQUIRE(kdf.iterations == 16000);
    LockedBytes pw = header_kdf_password(creds("pw-writer"), VolumeFormat::VeraCrypt);
    auto hs = build_headers(f, chain, kdf, pw, 2);
    REQUIRE(hs.size() == 2);
    CHECK(std::memcmp(hs[0].data(), hs[1].data(), kSaltSize) != 0);
    for (const auto& h : hs) {
      uint8_t key[192];
      derive_header_key(kdf, pw, h.data(), key, 2 * K);
      std::array<uint8_t, kHeaderSize> plain = h;
      decrypt_header(chain, key, plain.data());
      REQUIRE(check_header(plain.data(), kMagicVera) == HeaderCheck::Ok);
      HeaderFields g = parse_header(plain.data());
      require_same_layout_fields(f, g);
      CHECK(std::memcmp(g.key_area.data(), mk.data(), 2 * K) == 0);
      for (size_t i = 2 * K; i < 256; ++i) REQUIRE(g.key_area[i] == 0);
      for (size_t i = 132; i < 252; ++i) REQUIRE(plain[i] == 0);   // reserved
      for (size_t i = 76; i < 92; ++i) REQUIRE(plain[i] == 0);     // reserved (v3 times)
    }
    EncryptedHeader fake = build_fake_header(chain, 1 << 20, 512);
    uint8_t key[192];
    derive_header_key(kdf, pw, fake.data(), key, 2 * K);
    std::array<uint8_t, kHeaderSize> plain = fake;
    decrypt_header(chain, key, plain.data());
    CHECK(check_header(plain.data(), kMagicVera) == HeaderCheck::BadMagic);
  }
  CHECK_THROWS_AS(new_header_kdf(PrfId::Sha256, VolumeFormat::TrueCrypt, 0), Error);
  CHECK_THROWS_AS(new_header_kdf(PrfId::Sha512, VolumeFormat::TrueCrypt, 5), Error);
  CHECK_THROWS_AS(new_header_kdf(PrfId::Sha1, VolumeFormat::VeraCrypt, 0), Error);
  CHECK(new_header_kdf(PrfId::Sha512, VolumeFormat::VeraCrypt, 0).iterations == 500000);
  CHECK(new_header_kdf(PrfId::Ripemd160, VolumeFormat::TrueCrypt, 0).iterations == 2000);
}

TEST_CASE("hidden layout follows format-spec 2.3 (VeraCrypt's outer-hidden.hc numbers)", "[create]") {
  HiddenLayout l = hidden_layout(1048576, 262144, 512);
  CHECK(l.data_start == 655360);
  CHECK(l.data_size == 258048);
  CHECK(l.reserve == 4096);
  HiddenLayout big = hidden_layout(64 << 20, 4 << 20, 512);
  CHECK(big.reserve == 131072);
  CHECK(big.data_size == (4u << 20) - 131072);
  CHECK_THROWS_AS(hidden_layout(1048576, 40959, 512), Error);
  CHECK_THROWS_AS(hidden_layout(1048576, 1048576 - 262144 + 512, 512), Error);
  CHECK_THROWS_AS(hidden_layout(348160 - 512, 40960, 512), Error);
  CHECK_THROWS_AS(hidden_layout(1048576, 40960 + 512, 4096), Error);
}

TEST_CASE("create round trip: every chain x every PRF opens with the same keys, layout and both headers",
          "[create][slow]") {
  TempDir dir;
  int n = 0;
  for (const auto& ci : all_chains()) {
    for (PrfId prf : kCreatePrfs) {
      // Argon2id costs 64 MiB x 3 passes per derivation even at PIM 1: run it for a third of the chains.
      if (prf == PrfId::Argon2id && (n++ % 3)) continue;
      DYNAMIC_SECTION(ci.name << " / " << prf_info(prf).name) {
        const std::string path = dir.file(std::string(ci.cli_name) + "-" + std::string(prf_info(prf).cli_name) + ".hc");
        const std::string pw = "pw-" + std::string(ci.cli_name);
        CreateOptions o = normal_options(path, 299008 + 4096, pw, ci.id, prf);
        CreateResult r = create_volume(o);
        CHECK(r.plan.data_size == 299008 + 4096 - 262144);
        CHECK(file_size(path) == 299008 + 4096);
        CHECK(file_mode(path) == 0600);
        OpenOptions oo = open_opts(pw);
        oo.prf = prf;  // auto-detection skips Argon2id unless named
        OpenedHeader h = open_volume(path, oo);
        CHECK(h.chain == ci.id);
        CHECK(h.kdf.prf == prf);
        CHECK(h.slot == SlotKind::Normal);
        CHECK(!h.from_backup);
        CHECK(h.format == VolumeFormat::VeraCrypt);
        CHECK(h.data_offset == 131072);
        CHECK(h.first_unit == 256);
        CHECK(h.data_size == 299008 + 4096 - 262144);
        CHECK(!h.master_key_vulnerable);
        oo.backup_only = true;
        OpenedHeader b = open_volume(path, oo);
        CHECK(b.from_backup);
        CHECK(b.header_offset == 299008 + 4096 - 131072);
        CHECK(std::memcmp(b.fields.key_area.data(), h.fields.key_area.data(), 256) == 0);
        CHECK(b.salt != h.salt);
        require_same_layout_fields(h.fields, b.fields);
        // The hidden slots hold fake headers: nothing opens there.
        OpenOptions hid = open_opts(pw);
        hid.prf = prf;
        hid.slot = SlotKind::Hidden;
        hid.allow_backup_fallback = false;
        CHECK(!opens(path, hid));
        oo.backup_only = false;
        // Full fill: the data area decrypts to pseudo-random bytes, not to zeros.
        auto data = read_data(path, oo);
        {
          size_t zeros = size_t(std::count(data.begin(), data.end(), 0));
          CHECK(zeros < data.size() / 64);
        }
      }
    }
  }
}

TEST_CASE("create: header fields equal VeraCrypt 1.26.27's for the same sizes (normal, 4096 sectors, hidden)",
          "[create][veracrypt]") {
  TempDir dir;
  const std::string vc = vectors_dir() + "/veracrypt/";
  // VeraCrypt-made reference headers (their passwords: warpvol-dev-<case>, default PIM: 500000 iterations).
  OpenedHeader vc_aes = header_at(vc + "enc-aes.hc", "warpvol-dev-enc-aes", 0, SlotKind::Normal, false, PrfId::Sha512);
  OpenedHeader vc_aes_b = header_at(vc + "enc-aes.hc", "warpvol-dev-enc-aes", 0, SlotKind::Normal, true, PrfId::Sha512);
  OpenedHeader vc_4k =
      header_at(vc + "sector4096.hc", "warpvol-dev-sector4096", 0, SlotKind::Normal, false, PrfId::Sha512);
  OpenedHeader vc_hidden =
      header_at(vc + "outer-hidden.hc", "warpvol-dev-hidden", 0, SlotKind::Hidden, false, PrfId::Sha512);
  OpenedHeader vc_hidden_b =
      header_at(vc + "outer-hidden.hc", "warpvol-dev-hidden", 0, SlotKind::Hidden, true, PrfId::Sha512);

  const std::string a = dir.file("a.hc");
  create_volume(normal_options(a, 524288, "pw-a", ChainId::Aes, PrfId::Sha512, true));
  OpenedHeader w = header_at(a, "pw-a", 1, SlotKind::Normal, false, PrfId::Sha512);
  OpenedHeader wb = header_at(a, "pw-a", 1, SlotKind::Normal, true, PrfId::Sha512);
  require_same_layout_fields(w.fields, vc_aes.fields);
  require_same_layout_fields(wb.fields, vc_aes_b.fields);
  CHECK(w.data_offset == vc_aes.data_offset);
  CHECK(w.data_size == vc_aes.data_size);
  CHECK(w.header_offset == vc_aes.header_offset);
  CHECK(wb.header_offset == vc_aes_b.header_offset);

  const std::string s4 = dir.file("s4.hc");
  CreateOptions o4 = normal_options(s4, 524288, "pw-4k", ChainId::Aes, PrfId::Sha512, true);
  o4.sector_size = 4096;
  create_volume(o4);
  require_same_layout_fields(header_at(s4, "pw-4k", 1, SlotKind::Normal, false, PrfId::Sha512).fields, vc_4k.fields);

  // Hidden: 1 MiB outer, --size 256K, exactly like the VeraCrypt command in MANIFEST.json.
  const std::string oh = dir.file("oh.hc");
  create_volume(normal_options(oh, 1048576, "pw-outer", ChainId::Aes, PrfId::Sha512, true));
  CreateOptions ho = normal_options(oh, 262144, "pw-hidden", ChainId::Aes, PrfId::Sha512, true);
  ho.type = CreateType::Hidden;
  create_volume(ho);
  OpenedHeader wh = header_at(oh, "pw-hidden", 1, SlotKind::Hidden, false, PrfId::Sha512);
  OpenedHeader whb = header_at(oh, "pw-hidden", 1, SlotKind::Hidden, true, PrfId::Sha512);
  require_same_layout_fields(wh.fields, vc_hidden.fields);
  require_same_layout_fields(whb.fields, vc_hidden_b.fields);
  CHECK(wh.data_offset == 655360);
  CHECK(wh.data_size == 258048);
  CHECK(wh.header_offset == vc_hidden.header_offset);
  CHECK(whb.header_offset == vc_hidden_b.header_offset);

  // Key area beyond 2K and reserved bytes are zero in both (decrypted comparisons via parse/serialize).
  for (size_t i = 64; i < 256; ++i) {
    CHECK(w.fields.key_area[i] == 0);
    CHECK(vc_aes.fields.key_area[i] == 0);
  }
}

TEST_CASE("create with default PIM writes VeraCrypt's 500000 iterations and opens like a VeraCrypt volume",
          "[create][veracrypt]") {
  TempDir dir;
  const std::string p = dir.file("d.hc");
  CreateOptions o = normal_options(p, 299008, "default-pim-password", ChainId::Aes, PrfId::Sha512, true);
  o.pim = 0;
  o.credentials.pim = 0;
  create_volume(o);
  OpenedHeader h = open_volume(p, open_opts("default-pim-password", 0));
  CHECK(h.kdf.iterations == 500000);
  CHECK(h.kdf.prf == PrfId::Sha512);
  CHECK(h.chain == ChainId::Aes);
}

TEST_CASE("create: keyfiles, and a volume of keyfiles only", "[create]") {
  TempDir dir;
  const std::string kf = dir.file("k.key");
  create_keyfile(kf, 64, false);
  const std::string p = dir.file("k.hc");
  CreateOptions o = normal_options(p, 299008, "with-keyfile", ChainId::Serpent, PrfId::Sha512, true);
  o.credentials.keyfiles = {kf};
  create_volume(o);
  CHECK(!opens(p, open_opts("with-keyfile")));
  CHECK(opens(p, open_opts("with-keyfile", 1, {kf})));
  const std::string p2 = dir.file("k2.hc");
  CreateOptions o2 = normal_options(p2, 299008, "", ChainId::Aes, PrfId::Sha512, true);
  o2.credentials.keyfiles = {kf};
  create_volume(o2);
  CHECK(opens(p2, open_opts("", 1, {kf})));
  // An unreadable keyfile fails in the pre-flight: nothing is created.
  const std::string p3 = dir.file("k3.hc");
  CreateOptions o3 = normal_options(p3, 299008, "x", ChainId::Aes, PrfId::Sha512, true);
  o3.credentials.keyfiles = {dir.file("missing.key")};
  CHECK_THROWS_AS(create_volume(o3), Error);
  CHECK(!std::filesystem::exists(p3));
}

TEST_CASE("create: an interrupt during the fill removes the partial file", "[create]") {
  TempDir dir;
  const std::string p = dir.file("int.hc");
  CreateOptions o = normal_options(p, 8 << 20, "interrupt-me", ChainId::Aes, PrfId::Sha512, false);
  std::atomic<bool> seen_progress{false};  // set by the fill's workers, read by the others' cancel checks
  o.fill.progress = [&](const ProgressUpdate& u) {
    if (u.bytes_done > 0) seen_progress = true;
  };
  o.fill.cancel.requested = [&] { return seen_progress.load(); };
  try {
    create_volume(o);
    FAIL("create_volume returned although cancelled");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Interrupted);
  }
  CHECK(seen_progress);
  CHECK(dir_entries(dir.path().string()).empty());
}

TEST_CASE("create: crash points (FailFile) at every write and sync leave no volume behind", "[create][crash]") {
  TempDir dir;
  const std::string p = dir.file("crash.hc");
  // Count the operations (writes and syncs) of a successful run.
  uint64_t total = 0;
  {
    CreateOptions o = normal_options(p, 299008 + 65536 * 2, "crash", ChainId::Aes, PrfId::Sha512, false);
    o.wrap_file = [&total](std::unique_ptr<BlockFile> f) { return counting_file(std::move(f), &total); };
    create_volume(o);
    std::filesystem::remove(p);
  }
  REQUIRE(total >= 5);  // 4 header slots + data chunks + sync
  for (FailMode mode : {FailMode::Error, FailMode::TornWrite, FailMode::PowerLoss}) {
    for (uint64_t n = 1; n <= total; ++n) {
      CAPTURE(int(mode), n);
      CreateOptions o = normal_options(p, 299008 + 65536 * 2, "crash", ChainId::Aes, PrfId::Sha512, false);
      o.wrap_file = [mode, n](std::unique_ptr<BlockFile> f) {
        return std::unique_ptr<BlockFile>(std::make_unique<FailFile>(std::move(f), FailPlan{n, mode, true, 0}));
      };
      CHECK_THROWS_AS(create_volume(o), Error);
      CHECK(dir_entries(dir.path().string()).empty());
    }
  }
}

TEST_CASE("create: hidden volume inside an outer volume, outer data untouched, both open", "[create][hidden]") {
  TempDir dir;
  const std::string p = dir.file("outer.hc");
  create_volume(normal_options(p, 2 << 20, "outer-pw", ChainId::Aes, PrfId::Sha512, false));
  auto outer_before = read_data(p, open_opts("outer-pw"));
  CreateOptions ho = normal_options(p, 512 * 1024, "hidden-pw", ChainId::SerpentAes, PrfId::Whirlpool, false);
  ho.type = CreateType::Hidden;
  CreateResult r = create_volume(ho);
  CHECK(r.plan.hidden.data_start == (2u << 20) - 131072 - 512 * 1024);
  CHECK(r.plan.hidden.data_size == 512 * 1024 - 4096);
  OpenedHeader hh = open_volume(p, open_opts("hidden-pw"));
  CHECK(hh.slot == SlotKind::Hidden);
  CHECK(hh.chain == ChainId::SerpentAes);
  CHECK(hh.data_offset == r.plan.hidden.data_start);
  CHECK(hh.first_unit == r.plan.hidden.data_start / 512);
  CHECK(hh.fields.hidden_volume_size == hh.fields.volume_size);
  OpenedHeader ob = open_volume(p, open_opts("outer-pw"));
  CHECK(ob.slot == SlotKind::Normal);
  CHECK(read_data(p, open_opts("outer-pw")) == outer_before);
  // Data written to the hidden volume reads back; the outer volume's data changes only inside the hidden area.
  {
    auto v = Volume::open(p, open_opts("hidden-pw"), std::make_shared<CpuEngine>(0), true);
    auto pat = pattern(v->size(), 7);
    v->write(0, pat.data(), pat.size());
    v->flush();
  }
  CHECK(read_data(p, open_opts("hidden-pw")) == pattern(hh.data_size, 7));
  auto outer_after = read_data(p, open_opts("outer-pw"));
  const size_t hs = size_t(hh.data_offset - 131072);
  CHECK(std::equal(outer_after.begin(), outer_after.begin() + long(hs), outer_before.begin()));
  // Backup of the hidden header sits at H - 65536.
  OpenOptions hb = open_opts("hidden-pw");
  hb.backup_only = true;
  hb.slot = SlotKind::Hidden;
  CHECK(open_volume(p, hb).header_offset == (2u << 20) - 65536);
  // Sizes that do not fit are refused before anything is written.
  auto before = file_bytes(p);
  CreateOptions bad = ho;
  bad.size = (2 << 20) - 262144 + 4096;
  CHECK_THROWS_AS(create_volume(bad), Error);
  bad.size = 1000;
  CHECK_THROWS_AS(create_volume(bad), Error);
  CHECK(file_bytes(p) == before);
}

TEST_CASE("create: hidden volume with outer credentials respects the outer FAT filesystem", "[create][hidden]") {
  TempDir dir;
  const std::string p = dir.file("fat.hc");
  std::filesystem::copy_file(vectors_dir() + "/veracrypt/fat.hc", p);
  std::filesystem::permissions(p, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  auto before = file_bytes(p);
  OpenOptions outer = open_opts("warpvol-dev-fat", 0);
  outer.prf = PrfId::Sha512;
  CreateOptions ho = normal_options(p, 786432 - 4096, "hidden-in-fat", ChainId::Aes, PrfId::Sha512, true);
  ho.type = CreateType::Hidden;
  ho.outer = outer;
  // Almost the whole outer data area: overlaps the FAT12's used clusters (boot sector, FATs, root dir, HELLO.TXT).
  try {
    create_volume(ho);
    FAIL("hidden volume overlapping the outer FAT was not refused");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    CHECK(std::string(e.what()).find("FAT12") != std::string::npos);
  }
  CHECK(file_bytes(p) == before);
  ho.size = 262144;
  create_volume(ho);
  CHECK(opens(p, open_opts("hidden-in-fat")));
  OpenOptions o0 = open_opts("warpvol-dev-fat", 0);
  o0.prf = PrfId::Sha512;
  CHECK(open_volume(p, o0).slot == SlotKind::Normal);
}

TEST_CASE("create and import: the engine plans the job before the header KDF's threads start", "[create][import]") {
  // Auto times the CPU engine there to choose the engine of a job bound by one writer; the two header KDFs running
  // beside the fill would slow that probe.
  TempDir dir;
  const std::string raw = dir.file("raw");
  write_bytes(raw, pattern(100000, 7));
  for (const bool import : {false, true}) {
    CAPTURE(import);
    CreateOptions o = normal_options(dir.file(import ? "imp.hc" : "fill.hc"), 1 << 20, "plan-pw", ChainId::Serpent);
    if (import) {
      o.import_path = raw;
      o.size = 0;  // the raw image's
    }
    auto engine = std::make_shared<PlanWatchEngine>();
    o.engine = engine;
    const int before = thread_count();
    REQUIRE(before > 0);
    create_volume(o);
    CHECK(engine->plans == 1);
    CHECK(engine->threads_at_first <= before);
  }
  auto engine = std::make_shared<PlanWatchEngine>();
  CreateOptions quick = normal_options(dir.file("quick.hc"), 1 << 20, "plan-pw", ChainId::Serpent, PrfId::Sha512, true);
  quick.engine = engine;
  create_volume(quick);
  CHECK(engine->plans == 0);  // nothing to encrypt
}

TEST_CASE("import then export returns the raw image plus the reported zero padding", "[create][import]") {
  TempDir dir;
  for (size_t raw_size : {size_t(1000), size_t(100000), size_t(36864), size_t(200003)}) {
    CAPTURE(raw_size);
    const std::string raw = dir.file("raw" + std::to_string(raw_size)), out = dir.file("imp" + std::to_string(raw_size) + ".hc");
    auto data = pattern(raw_size, uint32_t(raw_size));
    write_bytes(raw, data);
    auto r = run_warpvol({"import", raw, out, "--encryption", "twofish-serpent", "--hash", "sha256", "--pim", "1",
                          "--password-stdin", "--non-interactive"},
                         "import-pw\n");
    REQUIRE(r.code == 0);
    const uint64_t data_size = std::max<uint64_t>((raw_size + 511) / 512 * 512, 36864);
    CHECK(r.out.find("Padding:        " + std::to_string(data_size - raw_size) + " zero bytes") != std::string::npos);
    CHECK(file_size(out) == data_size + 262144);
    CHECK(file_mode(out) == 0600);
    const std::string exported = dir.file("exp" + std::to_string(raw_size));
    auto e = run_warpvol({"export", out, exported, "--pim", "1", "--password-stdin"}, "import-pw\n");
    REQUIRE(e.code == 0);
    auto back = file_bytes(exported);
    REQUIRE(back.size() == data_size);
    CHECK(std::equal(data.begin(), data.end(), back.begin()));
    CHECK(std::all_of(back.begin() + long(raw_size), back.end(), [](uint8_t b) { return b == 0; }));
  }
}

TEST_CASE("create -> info --json -> export through the binary", "[create][cli]") {
  TempDir dir;
  const std::string v = dir.file("cli.hc");
  auto r = run_warpvol({"create", "--filesystem", "none", v, "--size", "1M", "--encryption", "serpent-twofish-aes", "--hash", "blake2s",
                        "--pim", "1", "--password-stdin", "--non-interactive"},
                       "cli-password-123\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("encrypted under a random throw-away key") != std::string::npos);
  CHECK(file_mode(v) == 0600);
  auto info = run_warpvol({"info", v, "--json", "--pim", "1", "--password-stdin"}, "cli-password-123\n");
  REQUIRE(info.code == 0);
  auto j = nlohmann::json::parse(info.out);
  CHECK(j["format"] == "VeraCrypt");
  CHECK(j["encryption"] == "Serpent-Twofish-AES");
  CHECK(j["prf"] == "blake2s");
  CHECK(j["kdf"]["iterations"] == 16000);
  CHECK(j["data_offset"] == 131072);
  CHECK(j["data_size"] == (1 << 20) - 262144);
  CHECK(j["sector_size"] == 512);
  CHECK(j["volume_type"] == "normal");
  const std::string img = dir.file("img");
  auto e = run_warpvol({"export", v, img, "--pim", "1", "--password-stdin"}, "cli-password-123\n");
  REQUIRE(e.code == 0);
  auto plain = file_bytes(img);
  REQUIRE(plain.size() == (1 << 20) - 262144);
  // Random fill under a throw-away key: decrypts to noise under the real key (not zeros, not the ciphertext).
  auto cipher = file_bytes(v);
  CHECK(size_t(std::count(plain.begin(), plain.end(), 0)) < plain.size() / 64);
  CHECK(!std::equal(plain.begin(), plain.end(), cipher.begin() + 131072));
  // --quick: nothing written to the data area (reads as zeros on disk).
  const std::string q = dir.file("q.hc");
  auto rq = run_warpvol({"create", "--filesystem", "none", q, "--size", "512K", "--quick", "--pim", "1", "--password-stdin"}, "quick-pw\n");
  REQUIRE(rq.code == 0);
  auto qb = file_bytes(q);
  CHECK(std::all_of(qb.begin() + 131072, qb.end() - 131072, [](uint8_t b) { return b == 0; }));
}

TEST_CASE("create: bad option values are usage errors (exit 1) and write nothing", "[create][cli]") {
  TempDir dir;
  const std::string v = dir.file("bad.hc");
  const std::string kf = dir.file("exists.key");
  write_bytes(kf, pattern(64, 1));
  const std::vector<std::vector<std::string>> bad = {
      {"--size", "1000"},
      {"--size", "0"},
      {"--size", "abc"},
      {"--size", "1X"},
      {"--size", "299009"},
      {"--encryption", "rot13"},
      {"--encryption", ""},
      {"--hash", "md5"},
      {"--hash", "ripemd160"},
      {"--hash", "sha1"},
      {"--pim", "-1"},
      {"--pim", "abc"},
      {"--pim", "99999999999"},
      {"--sector-size", "1024"},
      {"--sector-size", "x"},
      {"--type", "secret"},
      {"--filesystem", "bogusfs"},
      {"--filesystem", ""},
      {"--chunk-size", "1000"},
      {"--engine", "tpu"},
      {"--unknown-option"},
      {"--outer-password", "x"},
      {"--password", std::string(129, 'a')},
  };
  for (const auto& extra : bad) {
    std::vector<std::string> args = {"create", v, "--password-stdin", "--non-interactive"};
    if (extra.empty() || extra[0] != "--filesystem") args.insert(args.end(), {"--filesystem", "none"});
    bool has_size = false;
    for (const auto& a : extra) has_size |= a == "--size";
    if (!has_size) args.insert(args.end(), {"--size", "1M"});
    if (!extra.empty() && extra[0] == "--password") args.erase(args.begin() + 2);
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_warpvol(args, "some-password-1234\n");
    CAPTURE(extra, r.err);
    CHECK(r.code == 1);
    CHECK(dir_entries(dir.path().string()) == std::vector<std::string>{"exists.key"});
  }
  // Missing --size, missing password, empty password: usage errors too.
  CHECK(run_warpvol({"create", "--filesystem", "none", v, "--password-stdin"}, "pw\n").code == 1);
  CHECK(run_warpvol({"create", "--filesystem", "none", v, "--size", "1M", "--non-interactive"}).code == 1);
  CHECK(run_warpvol({"create", "--filesystem", "none", v, "--size", "1M", "--password-stdin"}, "\n").code == 1);
  CHECK(dir_entries(dir.path().string()) == std::vector<std::string>{"exists.key"});
  // An existing file is refused (exit 5) and left alone without --force.
  auto r = run_warpvol({"create", "--filesystem", "none", kf, "--size", "1M", "--pim", "1", "--password-stdin"}, "pw-12345\n");
  CHECK(r.code == 5);
  CHECK(file_bytes(kf) == pattern(64, 1));
  // A folder that does not exist, and a size above the free space: I/O errors before any write.
  CHECK(run_warpvol({"create", "--filesystem", "none", dir.file("no/such/dir.hc"), "--size", "1M", "--password-stdin"}, "pw\n").code == 3);
  struct statvfs vfs;
  REQUIRE(statvfs(dir.path().c_str(), &vfs) == 0);
  const uint64_t too_big = (uint64_t(vfs.f_bavail) * vfs.f_frsize / 4096 + 262144) * 4096;
  auto big = run_warpvol({"create", "--filesystem", "none", v, "--size", std::to_string(too_big), "--pim", "1", "--password-stdin"}, "pw\n");
  CHECK(big.code == 3);
  CHECK(big.err.find("free space") != std::string::npos);
  CHECK(dir_entries(dir.path().string()) == std::vector<std::string>{"exists.key"});
  // --force replaces.
  auto f = run_warpvol({"create", "--filesystem", "none", kf, "--size", "512K", "--quick", "--force", "--pim", "1", "--password-stdin"},
                       "pw-12345\n");
  CHECK(f.code == 0);
  CHECK(file_size(kf) == 524288);
}

TEST_CASE("create: a file system that reports no size takes a volume and its re-encryption, --size max asks",
          "[create]") {
  // A tmpfs mounted with size=0 has no limit and reports 0 blocks: the free-space checks must not read that as
  // full (they refused every volume there).
  TempDir dir;
  const std::string mnt = dir.file("unlimited");
  REQUIRE(::mkdir(mnt.c_str(), 0700) == 0);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=0") != 0) {
    WARN("cannot mount a tmpfs here (" << std::strerror(errno) << "): a file system without a size is not tested");
    return;
  }
  struct Unmount {
    std::string p;
    ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
  } unmount{mnt};
  struct statvfs vfs;
  REQUIRE(::statvfs(mnt.c_str(), &vfs) == 0);
  REQUIRE(vfs.f_blocks == 0);
  const std::string v = mnt + "/v.hc";
  auto r = run_warpvol({"create", "--filesystem", "none", v, "--size", "8M", "--pim", "1", "--hash", "sha512",
                        "--password-stdin"}, "pw-12345\n");
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(file_size(v) == 8u << 20);
  auto re = run_warpvol({"reencrypt", v, "--pim", "1", "--hash", "sha512", "--password-stdin", "--no-hidden-volume",
                         "--resilience", "journal", "-q"}, "pw-12345\n");
  CAPTURE(re.err);
  CHECK(re.code == 0);
  auto mx = run_warpvol({"create", "--filesystem", "none", mnt + "/w.hc", "--size", "max", "--pim", "1",
                         "--password-stdin"}, "pw-12345\n");
  CHECK(mx.code == 1);
  CHECK(mx.err.find("reports no size") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(mnt + "/w.hc"));
}

TEST_CASE("keyfile create: sizes 64..1M, mode 0600, random, refuses existing files", "[create][keyfile]") {
  TempDir dir;
  auto r = run_warpvol({"keyfile", "create", dir.file("a.key")});
  REQUIRE(r.code == 0);
  CHECK(file_size(dir.file("a.key")) == 64);
  CHECK(file_mode(dir.file("a.key")) == 0600);
  REQUIRE(run_warpvol({"keyfile", "create", dir.file("b.key"), "--size", "1M"}).code == 0);
  CHECK(file_size(dir.file("b.key")) == 1048576);
  REQUIRE(run_warpvol({"keyfile", "create", dir.file("c.key"), "--size", "64"}).code == 0);
  CHECK(file_bytes(dir.file("a.key")) != file_bytes(dir.file("c.key")));
  for (const char* s : {"63", "0", "1048577", "2M", "x"}) {
    CAPTURE(s);
    CHECK(run_warpvol({"keyfile", "create", dir.file("bad.key"), "--size", s}).code == 1);
    CHECK(!std::filesystem::exists(dir.file("bad.key")));
  }
  CHECK(run_warpvol({"keyfile", "frobnicate", dir.file("bad.key")}).code == 1);
  auto again = file_bytes(dir.file("a.key"));
  CHECK(run_warpvol({"keyfile", "create", dir.file("a.key")}).code == 5);
  CHECK(file_bytes(dir.file("a.key")) == again);
  // A random-source file that is empty is refused.
  write_bytes(dir.file("empty"), {});
  CHECK(run_warpvol({"keyfile", "create", dir.file("d.key"), "--random-source", dir.file("empty")}).code == 1);
  CHECK(!std::filesystem::exists(dir.file("d.key")));
}

TEST_CASE("random: getrandom output, random-source mixing changes the bytes", "[create][random]") {
  std::vector<uint8_t> a(64), b(64);
  random_bytes(a.data(), a.size());
  random_bytes(b.data(), b.size());
  CHECK(a != b);
  TempDir dir;
  write_bytes(dir.file("src"), pattern(5000, 3));
  CHECK(set_random_source(dir.file("src")) == 5000);
  CHECK(random_source_set());
  random_bytes(a.data(), a.size());
  CHECK(std::count(a.begin(), a.end(), 0) < 8);
  clear_random_source();
  CHECK(!random_source_set());
  CHECK_THROWS_AS(set_random_source(dir.file("missing")), Error);
}

TEST_CASE("create on a block device: needs --force, uses the whole device and its sector size", "[create][device]") {
  TempDir dir;
  const std::string img = dir.file("dev.img");
  write_bytes(img, std::vector<uint8_t>(2 << 20, 0));
  std::string dev;
  {
    FILE* p = ::popen(("losetup -f --show --sector-size 4096 " + img + " 2>/dev/null").c_str(), "r");
    char buf[256] = {0};
    if (p && std::fgets(buf, sizeof buf, p)) dev = buf;
    if (p) ::pclose(p);
    while (!dev.empty() && (dev.back() == '\n' || dev.back() == ' ')) dev.pop_back();
  }
  if (dev.empty()) {
    WARN("skipped: no loop device (needs root and losetup)");
    return;
  }
  struct Detach {
    std::string d;
    ~Detach() { (void)std::system(("losetup -d " + d).c_str()); }
  } detach{dev};
  // A block device takes several writers at once (no inode lock on its writes); the image file behind it does not.
  CHECK(open_file(dev, OpenMode::ReadOnly)->parallel_writes());
  CHECK_FALSE(open_file(img, OpenMode::ReadOnly)->parallel_writes());
  auto r = run_warpvol({"create", "--filesystem", "none", dev, "--pim", "1", "--password-stdin"}, "device-password\n");
  CHECK(r.code == 5);
  r = run_warpvol({"create", "--filesystem", "none", dev, "--pim", "1", "--password-stdin", "--force", "--encryption", "twofish"},
                  "device-password\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  OpenedHeader h = open_volume(dev, open_opts("device-password"));
  CHECK(h.fields.sector_size == 4096);
  CHECK(h.data_size == (2u << 20) - 262144);
  CHECK(h.chain == ChainId::Twofish);
  CHECK(run_warpvol({"create", "--filesystem", "none", dev, "--pim", "1", "--password-stdin", "--force", "--sector-size", "512"},
                    "device-password\n").code == 1);
}

TEST_CASE("create through the binary: SIGINT during the fill exits 6 and leaves no file", "[create][cli]") {
  TempDir dir;
  const std::string v = dir.file("sigint.hc");
  // --progress-json prints a line per chunk on stderr: interrupt once the fill has started.
  auto r = run_warpvol_signal({"create", v, "--size", "2G", "--pim", "1", "--password-stdin", "--progress-json",
                               "--chunk-size", "1M"},
                              "sigint-password\n", SIGINT, "\"bytes_done\"", 20000);
  INFO(r.err);
  CHECK(r.code == 6);
  CHECK(dir_entries(dir.path().string()).empty());
}

TEST_CASE("import: bad values are usage errors and write nothing", "[create][import][cli]") {
  TempDir dir;
  const std::string raw = dir.file("raw"), out = dir.file("out.hc");
  write_bytes(raw, pattern(5000, 2));
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {"--encryption", "des"}, {"--hash", "md4"}, {"--pim", "-2"}, {"--sector-size", "2048"},
           {"--size", "1M"}, {"--chunk-size", "12345"}}) {
    std::vector<std::string> args = {"import", raw, out, "--password-stdin"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_warpvol(args, "import-password\n");
    CAPTURE(extra, r.err);
    CHECK(r.code == 1);
    CHECK(dir_entries(dir.path().string()) == std::vector<std::string>{"raw"});
  }
  CHECK(run_warpvol({"import", dir.file("missing"), out, "--password-stdin"}, "pw\n").code == 3);
  CHECK(run_warpvol({"import", raw, raw, "--force", "--password-stdin"}, "pw\n").code == 1);
  CHECK(file_bytes(raw) == pattern(5000, 2));
}

TEST_CASE("PosixFile direct writes: aligned data lands as written next to buffered writes, unaligned ones decline",
          "[create][io]") {
  TempDir dir;
  const std::string path = dir.file("direct.bin");
  auto f = open_file(path, OpenMode::CreateNew);
  void* p = nullptr;
  REQUIRE(posix_memalign(&p, kDirectAlign, 3 * kDirectAlign) == 0);
  std::unique_ptr<uint8_t, decltype(&std::free)> buf(static_cast<uint8_t*>(p), &std::free);
  for (size_t i = 0; i < 3 * kDirectAlign; ++i) buf.get()[i] = uint8_t(i * 7 + 1);
  const std::vector<uint8_t> head(512, 0xAB);
  f->write_at(0, head.data(), head.size());  // buffered, in the page before the direct range
  // Some file systems take no O_DIRECT (tmpfs before Linux 6.6): then the call declines and nothing is written.
  const bool direct = f->write_at_direct(kDirectAlign, buf.get(), 3 * kDirectAlign);
  if (!direct) {
    WARN("this file system refuses O_DIRECT: write_at_direct declined, create falls back to buffered writes");
    CHECK(f->size() == head.size());
    return;
  }
  CHECK(f->size() == 4 * kDirectAlign);
  CHECK_FALSE(f->write_at_direct(kDirectAlign + 512, buf.get(), kDirectAlign));  // offset not 4 KiB aligned
  CHECK_FALSE(f->write_at_direct(kDirectAlign, buf.get(), 512));                  // length not 4 KiB aligned
  CHECK_FALSE(f->write_at_direct(kDirectAlign, buf.get() + 512, kDirectAlign));   // buffer not 4 KiB aligned
  f->sync();
  f.reset();
  const auto bytes = file_bytes(path);
  REQUIRE(bytes.size() == 4 * kDirectAlign);
  CHECK(std::equal(head.begin(), head.end(), bytes.begin()));
  CHECK(std::all_of(bytes.begin() + 512, bytes.begin() + kDirectAlign, [](uint8_t b) { return b == 0; }));
  CHECK(std::equal(bytes.begin() + kDirectAlign, bytes.end(), buf.get()));
}

TEST_CASE("A fill with no plaintext source encrypts zeros first, then each buffer's own ciphertext", "[create]") {
  // create's throw-away fill passes no source (fill.h): nobody decrypts it, so the workers' buffers are encrypted
  // again as they are instead of being cleared for every chunk. Decrypting under the throw-away key shows it: a
  // buffer's first chunk is zeros, every later chunk is the ciphertext of an earlier chunk.
  TempDir dir;
  const std::string path = dir.file("fill.bin");
  auto file = open_file(path, OpenMode::CreateNew);
  CpuEngine engine(2);
  const ChainId chain = *parse_chain("serpent");
  const LockedBytes key_material = new_master_key(chain);
  auto key = engine.prepare(chain, key_material.data());
  FillOptions fo;
  fo.chunk_bytes = 4096;
  fo.writers = 3;
  fo.sync_every = 0;
  const size_t nchunks = 40;
  const uint64_t first_unit = 256;
  encrypt_to_file(*file, 0, nchunks * fo.chunk_bytes, first_unit, engine, key, PlaintextSource{}, fo);
  file.reset();
  const auto cipher = file_bytes(path);
  REQUIRE(cipher.size() == nchunks * fo.chunk_bytes);
  std::vector<uint8_t> plain = cipher;
  engine.process(*key, Direction::Decrypt, first_unit, plain.data(), plain.size() / kDataUnitSize);
  auto chunk = [&](const std::vector<uint8_t>& v, size_t i) { return v.begin() + long(i * fo.chunk_bytes); };
  size_t zero_chunks = 0;
  for (size_t i = 0; i < nchunks; ++i) {
    INFO("chunk " << i);
    const bool zeros = std::all_of(chunk(plain, i), chunk(plain, i + 1), [](uint8_t b) { return b == 0; });
    if (i == 0) CHECK(zeros);
    if (zeros) {
      ++zero_chunks;
      continue;
    }
    bool earlier = false;
    for (size_t j = 0; j < i && !earlier; ++j)
      earlier = std::equal(chunk(plain, i), chunk(plain, i + 1), chunk(cipher, j));
    CHECK(earlier);
  }
  CHECK(zero_chunks <= fo.writers);  // each worker's buffer was cleared once, not once per chunk
}

TEST_CASE("create and import --verbose say where the fill's threads and the command's time went (nothing without it)",
          "[create][cli]") {
  TempDir dir;
  const std::string raw = dir.file("raw");
  write_bytes(raw, pattern(300000, 7));
  const std::vector<std::vector<std::string>> commands = {
      {"create", "--filesystem", "none", dir.file("c.hc"), "--size", "1M"},
      {"import", raw, dir.file("i.hc")}};
  for (const auto& base : commands) {
    for (bool verbose : {true, false}) {
      CAPTURE(base[0], verbose);
      std::vector<std::string> args = base;
      for (const char* a : {"--pim", "1", "--password-stdin", "--non-interactive", "--engine", "cpu", "--force"})
        args.push_back(a);
      if (verbose) args.push_back("--verbose");
      auto r = run_warpvol(args, "verbose-pw-12345\n");
      INFO(r.err);
      REQUIRE(r.code == 0);
      const bool has_line = r.err.find("stream: ") != std::string::npos &&
                            r.err.find("thread-seconds: waiting for a place in the ring") != std::string::npos;
      CHECK(has_line == verbose);
      const bool has_time = r.err.find("time: engine ready in ") != std::string::npos &&
                            r.err.find("reserving the file ") != std::string::npos &&
                            r.err.find(", the fill ") != std::string::npos;
      CHECK(has_time == verbose);
    }
  }
}
