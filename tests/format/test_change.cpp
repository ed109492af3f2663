// change (credentials), convert (TrueCrypt -> VeraCrypt): old credentials fail, new ones open, master keys and
// data unchanged; crash points at every write/sync leave a header that opens with the old or the new credentials.
#include <catch2/catch.hpp>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/create/change.h"
#include "core/create/create.h"
#include "core/create/keyfile.h"
#include "core/format/header_writer.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "tests/support/fail_file.h"
#include "tests/support/create_support.h"
#include "tests/support/test_support.h"

using namespace warpvol;
using namespace wvtest;

namespace {

std::string make_volume(const TempDir& dir, const std::string& name, const std::string& pw,
                        ChainId chain = ChainId::Aes, PrfId prf = PrfId::Sha512) {
  const std::string p = dir.file(name);
  create_volume(normal_options(p, 299008 + 8192, pw, chain, prf, false));
  return p;
}

ChangeOptions change_opts(const std::string& old_pw, const std::string& new_pw, int new_pim = 1) {
  ChangeOptions o;
  o.open = open_opts(old_pw);
  o.new_credentials = creds(new_pw, new_pim);
  return o;
}

bool same_keys(const OpenedHeader& a, const OpenedHeader& b) {
  return std::memcmp(a.fields.key_area.data(), b.fields.key_area.data(), 256) == 0;
}

// A TrueCrypt 7.1a volume rebuilt from tc-play's test_long.tc headers (volumes_tcplay.json): RIPEMD-160, 64-byte
// password, 1 MiB; the data area is zeros except the first sector's real ciphertext.
std::string tcplay_long(const TempDir& dir, std::string& password, std::vector<uint8_t>& first_ct) {
  auto j = nlohmann::json::parse(read_text(vectors_dir() + "/volumes_tcplay.json"));
  for (const auto& v : j["volumes"]) {
    if (v["file"].get<std::string>().find("test_long.tc") == std::string::npos) continue;
    const std::string p = dir.file("long.tc");
    const uint64_t size = v["file_size"].is_string() ? std::stoull(v["file_size"].get<std::string>())
                                                     : v["file_size"].get<uint64_t>();
    write_bytes(p, std::vector<uint8_t>(size_t(size), 0));
    overwrite(p, v["primary_header"]["file_offset"].get<uint64_t>(),
              from_hex(v["primary_header"]["header_512_hex"].get<std::string>()));
    overwrite(p, v["backup_header"]["file_offset"].get<uint64_t>(),
              from_hex(v["backup_header"]["header_512_hex"].get<std::string>()));
    first_ct = from_hex(v["first_data_sector"]["ciphertext_hex"].get<std::string>());
    overwrite(p, v["first_data_sector"]["file_offset"].get<uint64_t>(), first_ct);
    password = v["password_ascii"].get<std::string>();
    return p;
  }
  FAIL("test_long.tc not in volumes_tcplay.json");
  return {};
}

}  // namespace

TEST_CASE("change: old credentials fail, new ones open, master keys and data unchanged (every PRF)",
          "[create][change]") {
  TempDir dir;
  for (PrfId new_prf : {PrfId::Sha512, PrfId::Sha256, PrfId::Blake2s, PrfId::Whirlpool, PrfId::Streebog}) {
    CAPTURE(prf_info(new_prf).name);
    const std::string p = make_volume(dir, std::string(prf_info(new_prf).cli_name) + ".hc", "old-password",
                                      ChainId::TwofishSerpent);
    OpenOptions first = open_opts("old-password");
    first.prf = PrfId::Sha512;
    const OpenedHeader before = open_volume(p, first);
    const auto data_before = read_data(p, first);
    ChangeOptions o = change_opts("old-password", "new-password", 2);
    o.new_prf = new_prf;
    ChangeResult r = change_credentials(p, o);
    CHECK(r.new_kdf.prf == new_prf);
    CHECK(r.new_kdf.iterations == 17000);
    // Failing searches are narrowed to the PRFs in question (a search over all of them only costs time; the
    // CLI test below runs the unnarrowed one).
    auto narrowed = [](const std::string& pw, int pim, PrfId prf) {
      OpenOptions x = open_opts(pw, pim);
      x.prf = prf;
      return x;
    };
    CHECK(!opens(p, narrowed("old-password", 1, PrfId::Sha512)));
    CHECK(!opens(p, narrowed("old-password", 1, new_prf)));
    CHECK(!opens(p, narrowed("new-password", 1, new_prf)));  // PIM is part of the credentials
    const OpenedHeader after = open_volume(p, narrowed("new-password", 2, new_prf));
    CHECK(after.kdf.prf == new_prf);
    CHECK(same_keys(before, after));
    CHECK(after.salt != before.salt);
    CHECK(read_data(p, narrowed("new-password", 2, new_prf)) == data_before);
    OpenOptions b = narrowed("new-password", 2, new_prf);
    b.backup_only = true;
    const OpenedHeader backup = open_volume(p, b);
    CHECK(same_keys(before, backup));
    CHECK(backup.salt != after.salt);
    OpenOptions ob = narrowed("old-password", 1, PrfId::Sha512);
    ob.backup_only = true;
    CHECK(!opens(p, ob));
  }
}

TEST_CASE("change through the binary: old and new passwords on stdin, keyfiles kept / added / removed",
          "[create][change][cli]") {
  TempDir dir;
  const std::string p = make_volume(dir, "cli.hc", "first-password");
  const std::string k1 = dir.file("k1.key"), k2 = dir.file("k2.key");
  create_keyfile(k1, 64, false);
  create_keyfile(k2, 100, false);
  // Old then new password, both from stdin; add a keyfile.
  auto r = run_warpvol({"change", p, "--pim", "1", "--password-stdin", "--new-password-stdin", "--new-pim", "1",
                        "--new-keyfile", k1},
                       "first-password\nsecond-password\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(!opens(p, open_opts("first-password")));
  CHECK(!opens(p, open_opts("second-password")));
  CHECK(opens(p, open_opts("second-password", 1, {k1})));
  // Keyfiles are kept when neither --new-keyfile nor --no-keyfiles is given.
  r = run_warpvol({"change", p, "--pim", "1", "-k", k1, "--password-stdin", "--new-password-stdin", "--new-pim", "1"},
                  "second-password\nthird-password\n");
  REQUIRE(r.code == 0);
  CHECK(opens(p, open_opts("third-password", 1, {k1})));
  // --no-keyfiles removes them; --new-hash changes the PRF.
  r = run_warpvol({"change", p, "--pim", "1", "-k", k1, "--password-stdin", "--new-password-stdin", "--new-pim", "1",
                   "--no-keyfiles", "--new-hash", "whirlpool"},
                  "third-password\nfourth-password\n");
  REQUIRE(r.code == 0);
  const OpenedHeader h = open_volume(p, open_opts("fourth-password"));
  CHECK(h.kdf.prf == PrfId::Whirlpool);
  // Wrong current password: exit 2, nothing changes.
  auto bytes = file_bytes(p);
  r = run_warpvol({"change", p, "--pim", "1", "--password-stdin", "--new-password-stdin"}, "wrong\nfifth\n");
  CHECK(r.code == 2);
  CHECK(file_bytes(p) == bytes);
  // Bad values: exit 1, nothing changes.
  for (std::vector<std::string> extra : std::vector<std::vector<std::string>>{
           {"--new-pim", "-3"}, {"--new-hash", "md5"}, {"--new-hash", "sha1"}, {"--no-keyfiles", "--new-keyfile", k2},
           {"--new-pim", "x"}}) {
    std::vector<std::string> args = {"change", p, "--pim", "1", "--password-stdin", "--new-password-stdin"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto rb = run_warpvol(args, "fourth-password\nfifth-password\n");
    CAPTURE(extra, rb.err);
    CHECK(rb.code == 1);
    CHECK(file_bytes(p) == bytes);
  }
  // Empty new password without keyfiles is refused.
  r = run_warpvol({"change", p, "--pim", "1", "--password-stdin", "--new-password-stdin", "--no-keyfiles"},
                  "fourth-password\n\n");
  CHECK(r.code == 1);
  CHECK(file_bytes(p) == bytes);
}

TEST_CASE("change: hidden volume header (outer untouched), and a damaged primary is repaired from the backup",
          "[create][change]") {
  TempDir dir;
  const std::string p = dir.file("oh.hc");
  create_outer_and_hidden(p, ChainId::Aes, PrfId::Sha512, ChainId::Serpent, PrfId::Sha256);
  const auto outer0 = open_volume(p, open_opts("outer-pw"));
  ChangeResult r = change_credentials(p, change_opts("hidden-pw", "hidden-new"));
  CHECK(r.old_header.slot == SlotKind::Hidden);
  CHECK(!opens(p, open_opts("hidden-pw")));
  CHECK(open_volume(p, open_opts("hidden-new")).slot == SlotKind::Hidden);
  CHECK(open_volume(p, open_opts("outer-pw")).salt == outer0.salt);  // outer header not rewritten
  // Damage the outer primary header; change opens via the backup and rewrites both.
  overwrite(p, 0, pattern(512, 9));
  ChangeResult r2 = change_credentials(p, change_opts("outer-pw", "outer-new"));
  CHECK(r2.restored_primary);
  OpenOptions strict = open_opts("outer-new");
  strict.allow_backup_fallback = false;
  CHECK(opens(p, strict));
}

TEST_CASE("change: crash points at every write and sync leave old or new credentials working",
          "[create][change][crash]") {
  TempDir dir;
  for (bool hidden : {false, true}) {
    const std::string p = dir.file(hidden ? "ch.hc" : "cn.hc");
    create_volume(normal_options(p, 1 << 20, "outer-pw", ChainId::Aes, PrfId::Sha512, true));
    std::string old_pw = "outer-pw";
    if (hidden) {
      CreateOptions ho = normal_options(p, 262144, "hidden-pw", ChainId::Aes, PrfId::Sha512, true);
      ho.type = CreateType::Hidden;
      create_volume(ho);
      old_pw = "hidden-pw";
    }
    const auto pristine = file_bytes(p);
    const OpenedHeader h0 = open_volume(p, open_opts(old_pw));
    // Count the operations of a full run (then undo it).
    uint64_t total = 0;
    {
      ChangeOptions o = change_opts(old_pw, "new-pw");
      o.wrap_file = [&total](std::unique_ptr<BlockFile> f) { return counting_file(std::move(f), &total); };
      change_credentials(p, o);
    }
    CHECK(total == 4);  // backup write + fsync, primary write + fsync
    for (FailMode mode : {FailMode::Error, FailMode::TornWrite, FailMode::PowerLoss}) {
      for (uint64_t n = 1; n <= total + 1; ++n) {
        CAPTURE(hidden, int(mode), n);
        write_bytes(p, pristine);
        ChangeOptions o = change_opts(old_pw, "new-pw");
        o.wrap_file = [mode, n](std::unique_ptr<BlockFile> f) {
          return std::unique_ptr<BlockFile>(
              std::make_unique<FailFile>(std::move(f), FailPlan{n, mode, true, mode == FailMode::TornWrite ? 200u : 0u}));
        };
        bool completed = false;
        try {
          change_credentials(p, o);
          completed = true;
        } catch (const Error& e) {
          CHECK(e.kind() == ErrorKind::Io);
        }
        CHECK(completed == (n > total));
        // The hidden volume's backup is searched with --hidden (open.cpp's automatic fallback covers the normal
        // volume's backup only), so open narrowed to the slot as the user would after a crash.
        OpenOptions oldo = open_opts(old_pw), newo = open_opts("new-pw");
        oldo.prf = newo.prf = PrfId::Sha512;  // a failing search over every PRF would only cost time
        if (hidden) oldo.slot = newo.slot = SlotKind::Hidden;
        const bool old_ok = opens(p, oldo), new_ok = opens(p, newo);
        CHECK((old_ok || new_ok));
        if (completed) {
          CHECK(!old_ok);
          CHECK(new_ok);
        }
        OpenedHeader h = open_volume(p, old_ok ? oldo : newo);
        CHECK(same_keys(h, h0));
      }
    }
  }
}

TEST_CASE("convert: a real TrueCrypt 7 volume (tc-play test_long.tc) becomes VeraCrypt with the same master keys",
          "[create][convert]") {
  TempDir dir;
  std::string pw;
  std::vector<uint8_t> ct;
  const std::string p = tcplay_long(dir, pw, ct);
  OpenOptions tc = open_opts(pw, 0);
  tc.format = VolumeFormat::TrueCrypt;
  const OpenedHeader before = open_volume(p, tc);
  REQUIRE(before.kdf.prf == PrfId::Ripemd160);
  const auto plain_before = read_data(p, tc);
  // RIPEMD-160 is gone from VeraCrypt 1.26: refused without a new --hash, nothing written.
  auto bytes = file_bytes(p);
  auto r = run_warpvol({"convert", p, "--to", "veracrypt", "--password-stdin"}, pw + "\n");
  CHECK(r.code == 1);
  CHECK(r.err.find("RIPEMD-160") != std::string::npos);
  CHECK(file_bytes(p) == bytes);
  CHECK(run_warpvol({"convert", p, "--to", "truecrypt", "--password-stdin"}, pw + "\n").code == 1);
  CHECK(run_warpvol({"convert", p, "--password-stdin"}, pw + "\n").code == 1);
  CHECK(run_warpvol({"convert", p, "--to", "veracrypt", "--hash", "ripemd160", "--password-stdin"}, pw + "\n").code == 1);
  CHECK(file_bytes(p) == bytes);
  r = run_warpvol({"convert", p, "--to", "veracrypt", "--hash", "sha512", "--pim", "1", "--password-stdin"}, pw + "\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(!opens(p, tc));
  OpenOptions vc = open_opts(pw, 1);
  vc.format = VolumeFormat::VeraCrypt;
  const OpenedHeader after = open_volume(p, vc);
  CHECK(after.fields.magic == kMagicVera);
  CHECK(after.fields.required_version == 0x010b);
  CHECK(after.fields.version == 5);
  CHECK(after.kdf.prf == PrfId::Sha512);
  CHECK(after.kdf.iterations == 16000);
  CHECK(same_keys(before, after));
  CHECK(after.chain == before.chain);
  CHECK(after.data_offset == before.data_offset);
  CHECK(after.data_size == before.data_size);
  CHECK(read_data(p, vc) == plain_before);
  vc.backup_only = true;
  CHECK(same_keys(open_volume(p, vc), before));
  // A VeraCrypt volume is not converted again.
  CHECK(run_warpvol({"convert", p, "--to", "veracrypt", "--pim", "1", "--password-stdin"}, pw + "\n").code == 2);
}

TEST_CASE("convert: a TrueCrypt SHA-512 header keeps its PRF, and crash points leave a TC or VC header working",
          "[create][convert][crash]") {
  TempDir dir;
  const std::string p = dir.file("tc512.tc");
  create_volume(normal_options(p, 299008, "unused", ChainId::AesTwofish, PrfId::Sha512, true));
  // Rewrite its headers as a TrueCrypt 7.1a volume would have them (magic TRUE, 0x0700, 1000 iterations).
  OpenedHeader vc = open_volume(p, open_opts("unused"));
  HeaderFields f = vc.fields;
  f.magic = kMagicTrue;
  f.required_version = kTrueRequiredVersion;
  KdfChoice tck = new_header_kdf(PrfId::Sha512, VolumeFormat::TrueCrypt, 0);
  LockedBytes pw = header_kdf_password(creds("tc-password", 0), VolumeFormat::TrueCrypt);
  auto hs = build_headers(f, vc.chain, tck, pw, 2);
  {
    auto file = open_file(p, OpenMode::ReadWrite);
    rewrite_header_pair(*file, SlotKind::Normal, hs[0], hs[1]);
  }
  const auto pristine = file_bytes(p);
  OpenOptions tco = open_opts("tc-password", 0);
  tco.format = VolumeFormat::TrueCrypt;
  REQUIRE(open_volume(p, tco).kdf.iterations == 1000);
  for (uint64_t n = 1; n <= 5; ++n) {
    for (FailMode mode : {FailMode::Error, FailMode::PowerLoss}) {
      CAPTURE(n, int(mode));
      write_bytes(p, pristine);
      ConvertOptions co;
      co.open = open_opts("tc-password", 0);
      co.new_pim = 1;
      co.wrap_file = [mode, n](std::unique_ptr<BlockFile> fl) {
        return std::unique_ptr<BlockFile>(std::make_unique<FailFile>(std::move(fl), FailPlan{n, mode, true, 0}));
      };
      bool done = false;
      try {
        convert_to_veracrypt(p, co);
        done = true;
      } catch (const Error&) {
      }
      CHECK(done == (n == 5));
      OpenOptions vco = open_opts("tc-password", 1);
      vco.format = VolumeFormat::VeraCrypt;
      vco.prf = PrfId::Sha512;  // a failing search over every PRF would only cost time
      const bool tc_ok = opens(p, tco), vc_ok = opens(p, vco);
      CHECK((tc_ok || vc_ok));
      const OpenedHeader h = open_volume(p, tc_ok ? tco : vco);
      CHECK(same_keys(h, vc));
      if (done) {
        CHECK(!tc_ok);
        CHECK(h.format == VolumeFormat::VeraCrypt);
        CHECK(h.kdf.prf == PrfId::Sha512);
        CHECK(h.kdf.iterations == 16000);
      }
    }
  }
}
