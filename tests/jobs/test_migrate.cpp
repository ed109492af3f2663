// In-place migration of V1-layout TrueCrypt volumes (LRW/CBC before 5.0, XTS 5.x) into VeraCrypt volumes
// (core/reencrypt/migrate.h): round trips, a failure or power loss at EVERY write and fsync followed by a resume,
// refusals that leave the file byte-identical, and tampered or stale journals refused. The containers are built here
// with warpvol's own primitives; tests/oracle/tc_migrate.py checks the same path against independent readers.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "core/crypto/legacy_mode.h"
#include "core/format/header.h"
#include "core/reencrypt/marker.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/random.h"
#include "tests/support/fail_file.h"
#include "tests/support/forwarding_file.h"
#include "tests/support/reencrypt_support.h"

using namespace warpvol;
using namespace warpvol::reenc;
using namespace rtest;

namespace {

constexpr uint64_t kKiB = 1024;

// What the old volume is: a legacy suite (LRW/CBC), or XTS with TrueCrypt 5.x's V1 layout (no suite).
struct Kind {
  std::optional<LegacySuite> suite;
  ChainId chain = ChainId::Aes;
  PrfId prf = PrfId::Ripemd160;
  std::string name() const {
    return (suite ? suite->name() : std::string(chain_info(chain).name) + " (XTS, TrueCrypt 5.x)") + " / " +
           std::string(prf_info(prf).name);
  }
};

// A V1 container: header at 0 (version 2 for the legacy modes, 3 for TrueCrypt 5.x), data [512, 512 + plain).
// hidden_plain: a V1 hidden volume with its header 1536 bytes before the end (legacy suites only).
void make_v1(const std::string& path, const Kind& k, const Credentials& c, const std::vector<uint8_t>& plain,
             const Credentials* hidden_creds = nullptr, const std::vector<uint8_t>* hidden_plain = nullptr) {
  auto header = [&](const Credentials& cr, const LockedBytes& master, uint64_t hidden_size) {
    std::vector<uint8_t> h(kHeaderSize);
    random_bytes(h.data(), kSaltSize);
    const KdfChoice kdf{k.prf, pbkdf2_iterations(k.prf, VolumeFormat::TrueCrypt, 0, false)};
    SecureBytes hkey(kHeaderKeyMaterial);
    const size_t klen = k.suite ? k.suite->key_bytes() : 2 * chain_info(k.chain).key_size();
    derive_header_key(kdf, header_kdf_password(cr, VolumeFormat::TrueCrypt), h.data(), hkey.data(), klen);
    if (k.suite) {
      store_be32(h.data() + 64, kMagicTrue);
      store_be16(h.data() + 68, 2);
      store_be16(h.data() + 70, k.suite->mode == LegacyMode::Lrw ? 0x0410 : 0x0300);
      store_be32(h.data() + 72, crc32(master.data(), 256));
      store_be64(h.data() + 92, hidden_size);
      std::memcpy(h.data() + 256, master.data(), 256);
      LegacyCrypt(*k.suite, hkey.data(), 0).header(Direction::Encrypt, h.data() + 64);
    } else {
      HeaderFields f;
      f.magic = kMagicTrue;
      f.version = 3;
      f.required_version = 0x0500;
      f.volume_size = plain.size();
      f.encrypted_area_start = 512;
      f.encrypted_area_length = plain.size();
      std::memcpy(f.key_area.data(), master.data(), 256);
      serialize_header(f, h.data());
      encrypt_header(k.chain, hkey.data(), h.data());
    }
    return h;
  };
  auto encrypt = [&](const LockedBytes& master, uint64_t offset, std::vector<uint8_t>& data) {
    const uint64_t unit = offset / kDataUnitSize;
    if (k.suite) {
      LegacyCrypt(*k.suite, master.data(), unit).units(Direction::Encrypt, unit, data.data(),
                                                       data.size() / kDataUnitSize);
    } else {
      auto e = engine();
      e->process(*e->prepare(k.chain, master.data()), Direction::Encrypt, unit, data.data(),
                 data.size() / kDataUnitSize);
    }
  };
  LockedBytes master = random_locked(256);
  if (!k.suite) {  // an XTS key area: the chain's keys, then zeros
    const size_t used = 2 * chain_info(k.chain).key_size();
    std::memset(master.data() + used, 0, 256 - used);
  }
  std::vector<uint8_t> img = header(c, master, 0);
  std::vector<uint8_t> data = plain;
  encrypt(master, 512, data);
  img.insert(img.end(), data.begin(), data.end());
  if (hidden_creds) {
    const uint64_t H = img.size(), start = H - hidden_plain->size() - 1536;
    LockedBytes hm = random_locked(256);
    std::vector<uint8_t> hd = *hidden_plain;
    encrypt(hm, start, hd);
    std::copy(hd.begin(), hd.end(), img.begin() + std::ptrdiff_t(start));
    const auto hh = header(*hidden_creds, hm, hidden_plain->size());
    std::copy(hh.begin(), hh.end(), img.begin() + std::ptrdiff_t(H - 1536));
  }
  write_all(path, img);
}

const char* mode_name(FailMode m) {
  return m == FailMode::Error ? "error" : m == FailMode::TornWrite ? "torn write" : "power loss";
}

struct Fixture {
  FastDir dir;
  std::string master = dir.file("master.tc"), path = dir.file("vol.tc");
  Kind kind;
  std::vector<uint8_t> plain;
  Credentials oc = creds("old password", 0), nc = creds("new password", 1);
  std::vector<uint8_t> original;

  Fixture(Kind k, uint64_t data_size) : kind(k), plain(noise(data_size)) {
    make_v1(master, kind, oc, plain);
    original = read_all(master);
  }
  // Narrowed to the format each set of credentials is for: no VeraCrypt-count derivations for the old ones.
  OpenOptions old_opts(const Credentials& c) const {
    OpenOptions o = open_opts(c, kind.prf);
    o.format = VolumeFormat::TrueCrypt;
    return o;
  }
  OpenOptions new_opts() const {
    OpenOptions o = open_opts(nc, PrfId::Sha512, ChainId::Aes);
    o.format = VolumeFormat::VeraCrypt;
    return o;
  }
  VolumeRequest req() const {
    VolumeRequest r;
    r.path = path;
    r.open = old_opts(oc);
    r.no_hidden_volume = true;
    r.next.chain = ChainId::Aes;
    r.next.prf = PrfId::Sha512;
    r.next.password = pw("new password");
    r.next.pim = 1;
    return r;
  }
  JobOptions opts(Resilience res) const {
    JobOptions o = job_options(res, 1 << 20);
    o.writers = 1;
    return o;
  }
  void reset() {
    copy_file(master, path);
    std::filesystem::remove(journal_path_for(path));
    std::filesystem::remove(journal_path_for(path) + ".tmp");
  }
  bool journal_exists() const { return std::filesystem::exists(journal_path_for(path)); }
  // No journal after a failed run: either rolled back (the original file) or failed after its last step.
  bool finished_after_failure() const { return !journal_exists() && read_all(path) != original; }

  // At a crash point: whatever opens shows the original plaintext; the rest refuses (wrong credentials, or the
  // marked legacy header's "half re-encrypted").
  void check_no_garbage() const {
    for (const OpenOptions& o : {old_opts(oc), new_opts()}) {
      std::vector<uint8_t> got;
      try {
        got = read_plain(path, o);
      } catch (const Error& e) {
        const bool ok = e.kind() == ErrorKind::Auth ||
                        (e.kind() == ErrorKind::Format &&
                         std::string(e.what()).find(kHalfReencryptedPhrase) != std::string::npos);
        if (!ok) FAIL_CHECK("unexpected error opening at a crash point: " << e.what());
        continue;
      }
      CHECK(sha256_hex(got) == sha256_hex(plain));
    }
  }
  // A finished migration: a VeraCrypt AES volume under the new credentials (primary and backup header), the
  // original plaintext, the V2 layout's size, no journal.
  void verify_migrated() const {
    CHECK_FALSE(journal_exists());
    CHECK(std::filesystem::file_size(path) == plain.size() + 2 * 131072);
    OpenOptions o = new_opts();
    o.allow_backup_fallback = false;
    const OpenedHeader h = header_of(path, o);
    CHECK(h.slot == SlotKind::Normal);
    CHECK_FALSE(h.legacy);
    CHECK(h.data_offset == 131072);
    CHECK(h.data_size == plain.size());
    CHECK(h.fields.required_version == kVeraRequiredVersion);
    CHECK(sha256_hex(read_plain(path, o)) == sha256_hex(plain));
    o.backup_only = true;
    CHECK(header_of(path, o).from_backup);
    CHECK(sha256_hex(read_plain(path, o)) == sha256_hex(plain));
  }
  void resume_and_verify(Resilience res) {
    auto job = Job::prepare(req(), opts(res));
    job->run();
    job.reset();
    verify_migrated();
  }
};

std::vector<Kind> kinds() {
  return {
      {LegacySuite{LegacyEaId::Aes, LegacyMode::Lrw}, ChainId::Aes, PrfId::Ripemd160},
      {LegacySuite{LegacyEaId::Blowfish, LegacyMode::Lrw}, ChainId::Aes, PrfId::Sha1},
      {LegacySuite{LegacyEaId::Serpent, LegacyMode::Cbc}, ChainId::Aes, PrfId::Whirlpool},
      {LegacySuite{LegacyEaId::TwofishSerpent, LegacyMode::OuterCbc}, ChainId::Aes, PrfId::Ripemd160},
      {LegacySuite{LegacyEaId::AesBlowfishSerpent, LegacyMode::InnerCbc}, ChainId::Aes, PrfId::Sha1},
      {std::nullopt, ChainId::Aes, PrfId::Sha512},  // TrueCrypt 5.x: XTS in the V1 layout
  };
}

}  // namespace

TEST_CASE("migrate: V1-layout TrueCrypt volumes become VeraCrypt volumes in place, both resiliences", "[migrate]") {
  for (const Kind& k : kinds()) {
    for (Resilience res : {Resilience::Checksum, Resilience::Journal}) {
      // Not a multiple of either segment size: a short last segment.
      Fixture fx(k, 2 * 1024 * kKiB + 3 * 512);
      INFO(k.name() << ", " << resilience_name(res));
      fx.reset();
      REQUIRE(sha256_hex(read_plain(fx.path, fx.old_opts(fx.oc))) == sha256_hex(fx.plain));
      auto job = Job::prepare(fx.req(), fx.opts(res));
      CHECK_FALSE(job->resuming());
      CHECK(job->total_bytes() == fx.plain.size());
      CHECK(job->describe().find("data moves from byte 512 to 131072") != std::string::npos);
      job->run();
      job.reset();
      fx.verify_migrated();
    }
  }
}

TEST_CASE("migrate: a data area smaller than one segment", "[migrate]") {
  Fixture fx({LegacySuite{LegacyEaId::Cast5, LegacyMode::Cbc}, ChainId::Aes, PrfId::Whirlpool}, 16 * kKiB);
  fx.reset();
  fx.resume_and_verify(Resilience::Checksum);
}

TEST_CASE("migrate crash: a failure or power loss at every write and fsync of container and journal, then resume",
          "[migrate][crash]") {
  // Datashift: 4 segments (3 x 130560 + a short one); journal mode: 3 segments of 1 MiB (one short).
  const Kind k = GENERATE(Kind{LegacySuite{LegacyEaId::Aes, LegacyMode::Lrw}, ChainId::Aes, PrfId::Ripemd160},
                          Kind{std::nullopt, ChainId::Aes, PrfId::Sha512});
  for (Resilience res : {Resilience::Checksum, Resilience::Journal}) {
    Fixture fx(k, res == Resilience::Checksum ? 3 * 130560 + 20 * 512 : 2 * 1024 * kKiB + 40 * 512);
    for (FailMode mode : {FailMode::Error, FailMode::TornWrite, FailMode::PowerLoss}) {
      fx.reset();
      FailGroup count({0, FailMode::Error, true, 0});
      {
        JobOptions o = fx.opts(res);
        o.wrap_volume = count.wrapper();
        o.wrap_journal = count.wrapper();
        Job::prepare(fx.req(), o)->run();
      }
      fx.verify_migrated();
      const uint64_t total = count.operations();
      REQUIRE(total >= 20);
      for (uint64_t n = 1; n <= total; ++n) {
        INFO(k.name() << ", " << resilience_name(res) << ", " << mode_name(mode) << " at operation " << n << " of "
                      << total);
        fx.reset();
        FailGroup plan({n, mode, true, 700});  // torn anywhere, inside a 512-byte unit too
        {
          JobOptions o = fx.opts(res);
          o.wrap_volume = plan.wrapper();
          o.wrap_journal = plan.wrapper();
          auto job = Job::prepare(fx.req(), o);
          CHECK_THROWS_AS(job->run(), Error);
        }
        REQUIRE(plan.failed());
        fx.check_no_garbage();
        // Before the first commit point (no journal): the file as it was, size included.
        if (!fx.journal_exists()) CHECK(read_all(fx.path) == fx.original);
        fx.resume_and_verify(res);
      }
    }
  }
}

TEST_CASE("migrate crash: interrupted again while resuming", "[migrate][crash]") {
  Fixture fx({LegacySuite{LegacyEaId::Blowfish, LegacyMode::Lrw}, ChainId::Aes, PrfId::Sha1}, 4 * 130560);
  for (uint64_t first = 4; first <= 40; first += 6) {
    INFO("first failure at operation " << first);
    fx.reset();
    uint64_t at = first;
    for (int round = 0; round < 3; ++round) {
      FailGroup plan({at, FailMode::PowerLoss, true, 0});
      JobOptions o = fx.opts(Resilience::Checksum);
      o.wrap_volume = plan.wrapper();
      o.wrap_journal = plan.wrapper();
      if (round > 0 && fx.finished_after_failure()) break;
      try {
        Job::prepare(fx.req(), o)->run();
        break;
      } catch (const Error&) {
      }
      fx.check_no_garbage();
      at = 3 + uint64_t(round) * 5;
    }
    // A run may fail after its last step (journal removed): then it is finished, and a new run would not open.
    if (fx.finished_after_failure())
      fx.verify_migrated();
    else
      fx.resume_and_verify(Resilience::Checksum);
  }
}

TEST_CASE("migrate: SIGINT stops at a safe point, the same request resumes", "[migrate]") {
  for (Resilience res : {Resilience::Checksum, Resilience::Journal}) {
    Fixture fx({LegacySuite{LegacyEaId::Aes, LegacyMode::Cbc}, ChainId::Aes, PrfId::Whirlpool}, 3 * 1024 * kKiB);
    fx.reset();
    int calls = 0;
    JobOptions o = fx.opts(res);
    o.cancel.requested = [&] { return ++calls >= 2; };
    auto job = Job::prepare(fx.req(), o);
    try {
      job->run();
      FAIL("not interrupted");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Interrupted);
    }
    job.reset();
    CHECK(fx.journal_exists());
    fx.check_no_garbage();
    JobOptions ro = fx.opts(res);
    ro.policy = StartPolicy::ResumeOnly;
    auto again = Job::prepare(fx.req(), ro);
    CHECK(again->resuming());
    CHECK(again->done_bytes() > 0);
    again->run();
    again.reset();
    fx.verify_migrated();
  }
}

TEST_CASE("migrate: refusals leave the container byte-identical", "[migrate]") {
  FastDir dir;
  const Kind k{LegacySuite{LegacyEaId::Aes, LegacyMode::Lrw}, ChainId::Aes, PrfId::Ripemd160};
  const Credentials oc = creds("outer password", 0), hc = creds("hidden password", 0);
  const std::vector<uint8_t> outer = noise(256 * kKiB), hidden = noise(64 * kKiB);
  const std::string path = dir.file("h.tc");
  make_v1(path, k, oc, outer, &hc, &hidden);
  const auto before = read_all(path);
  auto request = [&](const Credentials& c) {
    VolumeRequest r;
    r.path = path;
    r.open = open_opts(c, k.prf);
    r.open.format = VolumeFormat::TrueCrypt;
    r.no_hidden_volume = true;
    r.next.chain = ChainId::Aes;
    r.next.pim = 1;
    return r;
  };
  auto refused = [&](const VolumeRequest& r, ErrorKind kind, const std::string& phrase,
                     const JobOptions& o = job_options(Resilience::Checksum, 1 << 20)) {
    try {
      Job::prepare(r, o)->run();
      FAIL("not refused");
    } catch (const Error& e) {
      CHECK(e.kind() == kind);
      CHECK_THAT(e.what(), Catch::Contains(phrase));
    }
    CHECK(read_all(path) == before);
    CHECK_FALSE(std::filesystem::exists(journal_path_for(path)));
  };
  SECTION("the credentials open a legacy hidden volume: export + import") {
    refused(request(hc), ErrorKind::Format, "warpvol export");
  }
  SECTION("an outer volume without --no-hidden-volume: the hidden volume would not survive") {
    VolumeRequest r = request(oc);
    r.no_hidden_volume = false;
    refused(r, ErrorKind::Usage, "DESTROYS a hidden volume");
  }
  SECTION("an outer volume with the hidden volume's credentials: refused, not migrated along") {
    VolumeRequest r = request(oc);
    r.no_hidden_volume = false;
    r.hidden = r.open;
    r.hidden->credentials = open_opts(hc, k.prf).credentials;
    refused(r, ErrorKind::Usage, "cannot be migrated along with it");
  }
  SECTION("a target that cannot grow: rolled back, size included") {
    // A file whose size cannot change (a device would be refused before; this fails in the middle of G).
    struct NoGrow final : wvtest::ForwardingFile {
      using ForwardingFile::ForwardingFile;
      void truncate(uint64_t) override { throw Error(ErrorKind::Io, "cannot change the size of this target"); }
    };
    JobOptions o = job_options(Resilience::Checksum, 1 << 20);
    o.wrap_volume = [](std::unique_ptr<BlockFile> f) -> std::unique_ptr<BlockFile> {
      return std::make_unique<NoGrow>(std::move(f));
    };
    refused(request(oc), ErrorKind::Io, "is as it was", o);
  }
  SECTION("a legacy algorithm without an XTS form needs --new-encryption") {
    const std::string p2 = dir.file("bf.tc");
    make_v1(p2, {LegacySuite{LegacyEaId::Blowfish, LegacyMode::Cbc}, ChainId::Aes, PrfId::Sha1}, oc, outer);
    const auto b2 = read_all(p2);
    VolumeRequest r = request(oc);
    r.path = p2;
    r.open = open_opts(oc, PrfId::Sha1);
    r.open.format = VolumeFormat::TrueCrypt;
    r.next.chain.reset();
    CHECK_THROWS_WITH(Job::prepare(r, job_options(Resilience::Checksum, 1 << 20)),
                      Catch::Contains("--new-encryption"));
    CHECK(read_all(p2) == b2);
  }
}

TEST_CASE("migrate: tampered, foreign and stale journals are refused without touching the container",
          "[migrate][journal]") {
  Fixture fx({LegacySuite{LegacyEaId::Aes, LegacyMode::Lrw}, ChainId::Aes, PrfId::Ripemd160}, 6 * 130560);
  const std::string jp = journal_path_for(fx.path);
  // Stop after the second segment (datashift), keep that journal and the container.
  auto interrupted_after = [&](int segments) {
    fx.reset();
    int calls = 0;
    JobOptions o = fx.opts(Resilience::Checksum);
    o.cancel.requested = [&] { return ++calls >= segments; };
    CHECK_THROWS_AS(Job::prepare(fx.req(), o)->run(), Error);
  };
  auto refused = [&](const std::string& phrase) {
    const auto vol = read_all(fx.path), jr = read_all(jp);
    try {
      Job::prepare(fx.req(), fx.opts(Resilience::Checksum))->run();
      FAIL("not refused");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains(phrase));
    }
    CHECK(read_all(fx.path) == vol);
    CHECK(read_all(jp) == jr);
  };
  SECTION("a flipped bit") {
    interrupted_after(2);
    auto j = read_all(jp);
    j[j.size() / 2] ^= 1;
    write_all(jp, j);
    refused("refusing to resume");
  }
  SECTION("journal mode: a flipped bit in the copy of the hot segment") {
    // Fail operations one by one until the journal holds the hot segment's copy (here the whole data area).
    for (uint64_t n = 1; n < 100; ++n) {
      fx.reset();
      FailGroup plan({n, FailMode::Error, true, 0});
      JobOptions o = fx.opts(Resilience::Journal);
      o.wrap_volume = plan.wrapper();
      try {
        Job::prepare(fx.req(), o)->run();
      } catch (const Error&) {
      }
      if (fx.journal_exists() && std::filesystem::file_size(jp) > fx.plain.size()) break;
    }
    auto j = read_all(jp);
    REQUIRE(j.size() > fx.plain.size());
    j[j.size() - 64 - 1000] ^= 0x20;  // inside the copy (the MAC is the last 64 bytes)
    write_all(jp, j);
    refused("inconsistent");
  }
  SECTION("truncated") {
    interrupted_after(2);
    auto j = read_all(jp);
    j.resize(j.size() - 1);
    write_all(jp, j);
    refused("refusing to resume");
  }
  SECTION("wrong old password") {
    interrupted_after(2);
    const auto vol = read_all(fx.path);
    VolumeRequest r = fx.req();
    r.open = fx.old_opts(creds("not the password", 0));
    CHECK_THROWS_WITH(Job::prepare(r, fx.opts(Resilience::Checksum)), Catch::Contains("do not open the journal"));
    CHECK(read_all(fx.path) == vol);
  }
  SECTION("a stale journal (restored from an earlier point) whose next source was overwritten") {
    interrupted_after(2);
    const auto old_journal = read_all(jp);
    fx.check_no_garbage();
    {
      int calls = 0;
      JobOptions o = fx.opts(Resilience::Checksum);
      o.cancel.requested = [&] { return ++calls >= 2; };
      CHECK_THROWS_AS(Job::prepare(fx.req(), o)->run(), Error);
    }
    write_all(jp, old_journal);
    refused("older than the container");
  }
  SECTION("the journal of another container") {
    interrupted_after(2);
    const auto j = read_all(jp);
    fx.reset();  // the original container again, with its own (equal) header: the MAC still binds the keys
    make_v1(fx.path, fx.kind, fx.oc, fx.plain);
    write_all(jp, j);
    refused("refusing to resume");
  }
}
