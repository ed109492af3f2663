// backup-headers / restore-headers: VeraCrypt's 128 KiB external format, fresh salts, refusal of headers that
// do not decrypt, restore after both in-volume headers are destroyed, crash points during restore.
#include <catch2/catch.hpp>
#include <cstring>

#include "core/create/change.h"
#include "core/create/create.h"
#include "core/util/error.h"
#include "tests/support/fail_file.h"
#include "tests/support/create_support.h"
#include "tests/support/test_support.h"

using namespace warpvol;
using namespace wvtest;

namespace {
bool same_keys(const OpenedHeader& a, const OpenedHeader& b) {
  return std::memcmp(a.fields.key_area.data(), b.fields.key_area.data(), 256) == 0;
}
}  // namespace

TEST_CASE("backup -> destroy both in-volume headers -> restore -> opens with the same keys and data",
          "[create][backup]") {
  TempDir dir;
  const std::string v = dir.file("v.hc"), bk = dir.file("v.hdr");
  create_volume(normal_options(v, 1 << 20, "backup-pw", ChainId::CamelliaSerpent, PrfId::Streebog, false));
  const OpenedHeader h0 = open_volume(v, open_opts("backup-pw"));
  const auto data0 = read_data(v, open_opts("backup-pw"));
  auto r = run_warpvol({"backup-headers", v, bk, "--pim", "1", "--password-stdin"}, "backup-pw\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(file_size(bk) == 131072);
  CHECK(file_mode(bk) == 0600);
  // The backup's header has a fresh salt (not a copy of either in-volume header).
  auto bb = file_bytes(bk), vb = file_bytes(v);
  CHECK(!std::equal(bb.begin(), bb.begin() + 64, vb.begin()));
  CHECK(!std::equal(bb.begin(), bb.begin() + 64, vb.end() - 131072));
  // Destroy both normal headers.
  overwrite(v, 0, pattern(512, 1));
  overwrite(v, (1 << 20) - 131072, pattern(512, 2));
  CHECK(!opens(v, open_opts("backup-pw")));
  // Wrong password: refused, nothing written.
  auto before = file_bytes(v);
  auto w = run_warpvol({"restore-headers", v, "--from", bk, "--pim", "1", "--password-stdin"}, "not-the-pw\n");
  CHECK(w.code == 2);
  CHECK(file_bytes(v) == before);
  // The embedded backup is gone too: refused.
  auto e = run_warpvol({"restore-headers", v, "--from-embedded-backup", "--pim", "1", "--password-stdin"},
                       "backup-pw\n");
  CHECK(e.code == 2);
  CHECK(file_bytes(v) == before);
  auto ok = run_warpvol({"restore-headers", v, "--from", bk, "--pim", "1", "--password-stdin"}, "backup-pw\n");
  INFO(ok.err);
  REQUIRE(ok.code == 0);
  OpenOptions strict = open_opts("backup-pw");
  strict.allow_backup_fallback = false;
  const OpenedHeader h1 = open_volume(v, strict);
  CHECK(same_keys(h0, h1));
  CHECK(h1.chain == ChainId::CamelliaSerpent);
  CHECK(h1.kdf.prf == PrfId::Streebog);
  strict.backup_only = true;
  CHECK(same_keys(open_volume(v, strict), h0));
  CHECK(read_data(v, open_opts("backup-pw")) == data0);
  // The hidden slot of the backup holds random data: nothing opens there, and a restore with other
  // credentials is refused.
  CHECK(run_warpvol({"restore-headers", v, "--from", bk, "--pim", "1", "--password-stdin", "--hidden"},
                    "backup-pw\n").code == 2);
}

TEST_CASE("backup and restore: bad options, existing backup file, non-backup files", "[create][backup][cli]") {
  TempDir dir;
  const std::string v = dir.file("v.hc"), bk = dir.file("v.hdr");
  create_volume(normal_options(v, 299008, "pw-opts", ChainId::Aes, PrfId::Sha512, true));
  REQUIRE(run_warpvol({"backup-headers", v, bk, "--pim", "1", "--password-stdin"}, "pw-opts\n").code == 0);
  auto saved = file_bytes(bk);
  CHECK(run_warpvol({"backup-headers", v, bk, "--pim", "1", "--password-stdin"}, "pw-opts\n").code == 5);
  CHECK(file_bytes(bk) == saved);
  REQUIRE(run_warpvol({"backup-headers", v, bk, "--force", "--pim", "1", "--password-stdin"}, "pw-opts\n").code == 0);
  CHECK(file_bytes(bk) != saved);  // fresh salts every time
  CHECK(run_warpvol({"backup-headers", v, "--pim", "1", "--password-stdin"}, "pw-opts\n").code == 1);
  auto vb = file_bytes(v);
  CHECK(run_warpvol({"restore-headers", v, "--pim", "1", "--password-stdin"}, "pw-opts\n").code == 1);
  CHECK(run_warpvol({"restore-headers", v, "--from", bk, "--from-embedded-backup", "--pim", "1",
                     "--password-stdin"}, "pw-opts\n").code == 1);
  CHECK(run_warpvol({"restore-headers", v, "--from", bk, "--pim", "x", "--password-stdin"}, "pw-opts\n").code == 1);
  // A file of the wrong size is not a header backup.
  write_bytes(dir.file("short"), pattern(4096, 5));
  CHECK(run_warpvol({"restore-headers", v, "--from", dir.file("short"), "--pim", "1", "--password-stdin"},
                    "pw-opts\n").code == 4);
  CHECK(file_bytes(v) == vb);
}

TEST_CASE("backup with the hidden volume's credentials holds both headers, restore picks the right slot",
          "[create][backup][hidden]") {
  TempDir dir;
  const std::string v = dir.file("oh.hc"), bk = dir.file("oh.hdr");
  create_outer_and_hidden(v, ChainId::Aes, PrfId::Sha512, ChainId::Twofish, PrfId::Blake2s);
  const OpenedHeader outer0 = open_volume(v, open_opts("outer-pw"));
  const OpenedHeader hidden0 = open_volume(v, open_opts("hidden-pw"));
  auto r = run_warpvol({"backup-headers", v, bk, "--pim", "1", "--password-stdin", "--hidden-password-stdin",
                        "--hidden-pim", "1"},
                       "outer-pw\nhidden-pw\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("the hidden volume's header") != std::string::npos);
  // Destroy the hidden volume's two headers, restore from the file's hidden slot.
  overwrite(v, 65536, pattern(512, 3));
  overwrite(v, (1 << 20) - 65536, pattern(512, 4));
  OpenOptions hid = open_opts("hidden-pw");
  hid.slot = SlotKind::Hidden;
  CHECK(!opens(v, hid));
  auto rr = run_warpvol({"restore-headers", v, "--from", bk, "--pim", "1", "--password-stdin"}, "hidden-pw\n");
  INFO(rr.err);
  REQUIRE(rr.code == 0);
  CHECK(rr.out.find("hidden") != std::string::npos);
  const OpenedHeader hidden1 = open_volume(v, open_opts("hidden-pw"));
  CHECK(hidden1.slot == SlotKind::Hidden);
  CHECK(same_keys(hidden1, hidden0));
  CHECK(hidden1.data_offset == hidden0.data_offset);
  CHECK(same_keys(open_volume(v, open_opts("outer-pw")), outer0));
  hid.backup_only = true;
  CHECK(same_keys(open_volume(v, hid), hidden0));
}

TEST_CASE("restore from the embedded backup repairs a damaged primary", "[create][backup]") {
  TempDir dir;
  const std::string v = dir.file("e.hc");
  create_volume(normal_options(v, 299008, "embedded-pw", ChainId::SerpentTwofishAes, PrfId::Sha512, true));
  const OpenedHeader h0 = open_volume(v, open_opts("embedded-pw"));
  overwrite(v, 0, pattern(512, 8));
  OpenOptions strict = open_opts("embedded-pw");
  strict.allow_backup_fallback = false;
  CHECK(!opens(v, strict));
  RestoreOptions ro;
  ro.open = open_opts("embedded-pw");
  RestoreResult r = restore_headers(v, ro);
  CHECK(r.header.from_backup);
  CHECK(same_keys(open_volume(v, strict), h0));
}

TEST_CASE("restore-headers: crash points at every write and sync leave old or restored credentials working",
          "[create][backup][crash]") {
  TempDir dir;
  const std::string v = dir.file("c.hc"), bk = dir.file("c.hdr");
  create_volume(normal_options(v, 299008, "pw-a", ChainId::Aes, PrfId::Sha512, true));
  const OpenedHeader h0 = open_volume(v, open_opts("pw-a"));
  BackupOptions bo;
  bo.open = open_opts("pw-a");
  backup_headers(v, bk, bo);
  change_credentials(v, [] {
    ChangeOptions c;
    c.open = open_opts("pw-a");
    c.new_credentials = creds("pw-b");
    return c;
  }());
  const auto pristine = file_bytes(v);  // opens with pw-b; the backup file with pw-a
  for (bool embedded : {false, true}) {
    uint64_t total = 0;
    {
      write_bytes(v, pristine);
      RestoreOptions ro;
      ro.open = open_opts(embedded ? "pw-b" : "pw-a");
      if (!embedded) ro.from_file = bk;
      ro.wrap_file = [&total](std::unique_ptr<BlockFile> f) { return counting_file(std::move(f), &total); };
      restore_headers(v, ro);
    }
    REQUIRE(total == 4);
    for (FailMode mode : {FailMode::Error, FailMode::TornWrite, FailMode::PowerLoss}) {
      for (uint64_t n = 1; n <= total; ++n) {
        CAPTURE(embedded, int(mode), n);
        write_bytes(v, pristine);
        if (embedded) overwrite(v, 0, pattern(512, 11));  // the case it exists for: a damaged primary
        RestoreOptions ro;
        ro.open = open_opts(embedded ? "pw-b" : "pw-a");
        if (!embedded) ro.from_file = bk;
        ro.wrap_file = [mode, n](std::unique_ptr<BlockFile> f) {
          return std::unique_ptr<BlockFile>(
              std::make_unique<FailFile>(std::move(f), FailPlan{n, mode, true, mode == FailMode::TornWrite ? 256u : 0u}));
        };
        CHECK_THROWS_AS(restore_headers(v, ro), Error);
        OpenOptions oa = open_opts("pw-a"), ob = open_opts("pw-b");
        oa.prf = ob.prf = PrfId::Sha512;  // a failing search over every PRF would only cost time
        const bool a = opens(v, oa), b = opens(v, ob);
        CHECK((a || b));
        CHECK(same_keys(open_volume(v, a ? oa : ob), h0));
      }
    }
  }
}

TEST_CASE("a search of one thread (a batch's share of the cores) opens the normal, the hidden and the backup header",
          "[create][backup][hidden]") {
  TempDir dir;
  const std::string v = dir.file("one.hc");
  create_outer_and_hidden(v, ChainId::AesTwofishSerpent, PrfId::Sha512, ChainId::SerpentTwofishAes, PrfId::Sha256);
  const OpenedHeader outer0 = open_volume(v, open_opts("outer-pw"));
  const OpenedHeader hidden0 = open_volume(v, open_opts("hidden-pw"));
  auto one = [](const std::string& pw) {
    OpenOptions o = open_opts(pw);
    o.kdf_threads = 1;
    return o;
  };
  CHECK(same_keys(open_volume(v, one("outer-pw")), outer0));
  const OpenedHeader hidden1 = open_volume(v, one("hidden-pw"));
  CHECK(hidden1.slot == SlotKind::Hidden);
  CHECK(same_keys(hidden1, hidden0));
  CHECK(!opens(v, one("wrong-pw")));
  overwrite(v, 0, pattern(512, 9));  // the normal volume's primary header
  const OpenedHeader outer1 = open_volume(v, one("outer-pw"));
  CHECK(outer1.from_backup);
  CHECK(same_keys(outer1, outer0));
}

TEST_CASE("open's --verbose line names the header that opened, its chain and KDF, and what the search tried",
          "[create][backup][hidden]") {
  TempDir dir;
  const std::string v = dir.file("said.hc");
  create_outer_and_hidden(v, ChainId::AesTwofishSerpent, PrfId::Sha512, ChainId::SerpentTwofishAes, PrfId::Sha256);
  const uint64_t size = file_size(v);
  std::vector<std::string> lines;
  auto said = [&](const std::string& pw) {
    lines.clear();
    OpenOptions o = open_opts(pw);
    o.kdf_threads = 1;
    o.verbose = [&](const std::string& m) { lines.push_back(m); };
    return o;
  };
  auto line = [&] {
    REQUIRE(lines.size() == 1);
    return lines.front();
  };
  open_volume(v, said("outer-pw"));
  CHECK_THAT(line(),
             Catch::Contains("header: VeraCrypt normal header at offset 0 (AES-Twofish-Serpent, HMAC-SHA-512, "));
  CHECK_THAT(line(), Catch::Contains(" candidate headers (locations x formats x PRFs), key derivation on 1 thread"));
  open_volume(v, said("hidden-pw"));
  CHECK_THAT(line(),
             Catch::Contains("header: VeraCrypt hidden header at offset 65536 (Serpent-Twofish-AES, HMAC-SHA-256, "));
  CHECK_FALSE(opens(v, said("wrong-pw")));
  CHECK(lines.empty());  // no header opened: nothing to name
  overwrite(v, 0, pattern(512, 9));
  open_volume(v, said("outer-pw"));
  const std::string backup_at = std::to_string(size - 131072);
  CHECK_THAT(line(), Catch::Contains("header: VeraCrypt normal backup header at offset " + backup_at + " ("));
}
