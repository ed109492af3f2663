// Crash safety of re-encryption: a failure or power loss at EVERY write/fsync of a run, in both resilience modes,
// followed by a resume, must give back exactly the original plaintext under the new credentials; at no crash point
// may any header open and show wrong data. Tampered, truncated, swapped and stale journals are refused without
// touching the container.
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "core/format/header.h"
#include "core/reencrypt/marker.h"
#include "core/util/error.h"
#include "tests/support/fail_file.h"
#include "tests/support/forwarding_file.h"
#include "tests/support/reencrypt_support.h"

using namespace warpvol;
using namespace warpvol::reenc;
using namespace rtest;

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kData = 256 * kKiB;
constexpr uint64_t kZone = 64 * kKiB;  // 4 hot zones
constexpr size_t kMaxWrite = 32 * 1024;  // 2 container writes per zone

struct Fixture {
  FastDir dir;
  std::string master = dir.file("master.hc"), path = dir.file("vol.hc");
  std::vector<uint8_t> plain = noise(kData);
  Credentials oc = creds("old password"), nc = creds("new password", 2);
  Fixture() { make_container(master, plain, ChainId::Aes, PrfId::Sha512, oc); }

  VolumeRequest req() const {
    VolumeRequest r;
    r.path = path;
    r.open = open_opts(oc, PrfId::Sha512);
    r.no_hidden_volume = true;
    r.next.chain = ChainId::Serpent;
    r.next.password = pw("new password");
    r.next.pim = 2;
    return r;
  }
  unsigned writers = 1;  // threads writing a hot zone (JobOptions::writers)
  unsigned zones_ahead = 1;  // zones prepared beside the one written (JobOptions::zones_ahead)
  UnitHash unit_hash = UnitHash::Xxh3_128;  // of the interrupted run; a resume uses the default, keeping the journal's
  JobOptions opts(Resilience res) const {
    JobOptions o = job_options(res, kZone);
    o.max_write = kMaxWrite;
    o.writers = writers;
    o.zones_ahead = zones_ahead;
    o.unit_hash = unit_hash;
    return o;
  }
  void reset() {
    copy_file(master, path);
    std::filesystem::remove(journal_path_for(path));
    std::filesystem::remove(journal_path_for(path) + ".tmp");
  }
  // A fresh copy, then a job whose n-th container operation fails in `mode` (whole 512-byte units reach the disk
  // on a torn write: sector atomicity; sub-unit tears are tested apart): the job must throw.
  void crash_at(Resilience res, uint64_t n, FailMode mode) {
    reset();
    JobOptions o = opts(res);
    o.wrap_volume = [n, mode](std::unique_ptr<BlockFile> f) -> std::unique_ptr<BlockFile> {
      return std::make_unique<FailFile>(std::move(f), FailPlan{n, mode, true, 0});
    };
    auto job = Job::prepare(req(), o);
    CHECK_THROWS_AS(job->run(), Error);
  }
  // At a crash point: any header that opens must show the original plaintext; the others must refuse.
  void check_no_garbage() const {
    for (const auto& [c, chain] : {std::pair{&oc, ChainId::Aes}, std::pair{&nc, ChainId::Serpent}}) {
      std::vector<uint8_t> got;
      try {
        got = read_plain(path, open_opts(*c, PrfId::Sha512, chain));
      } catch (const Error& e) {
        const bool ok = e.kind() == ErrorKind::Auth ||
                        (e.kind() == ErrorKind::Format && std::string(e.what()).find(kHalfReencryptedPhrase) != std::string::npos);
        if (!ok) FAIL_CHECK("unexpected error opening at a crash point: " << e.what());
        continue;
      }
      CHECK(sha256_hex(got) == sha256_hex(plain));  // a header that opens shows the original plaintext, never a half-new mix
    }
  }
  // The journal's MAC key, from the original header's master keys and the journal's copy of the new header (what a
  // test needs to write a journal of format version 1 or 2 from the state a crash left).
  MacKey mac_key(const Journal& j) const {
    const OpenedHeader old_h = header_of(master, open_opts(oc, PrfId::Sha512));
    KdfChoice kdf;
    kdf.prf = PrfId::Sha512;
    kdf.iterations = pbkdf2_iterations(PrfId::Sha512, VolumeFormat::VeraCrypt, nc.pim, false);
    const EncryptedHeader& fh = j.parts.at(0).final_primary;
    SecureBytes key(kHeaderKeyMaterial);
    derive_header_key(kdf, header_kdf_password(nc, VolumeFormat::VeraCrypt), fh.data(), key.data(),
                      2 * chain_info(ChainId::Serpent).key_size());
    SecureBytes buf(fh.data(), fh.size());
    decrypt_header(ChainId::Serpent, key.data(), buf.data());
    REQUIRE(check_header(buf.data(), kMagicVera) == HeaderCheck::Ok);
    const HeaderFields nf = parse_header(buf.data());
    return journal_mac_key({old_h.fields.key_area.data(), nf.key_area.data()});
  }
  // Rewrites the journal a crash left as the single-record file of format version 1 or 2 (the version names the
  // job's checksum hash) holding its newest authentic state, as an earlier warpvol would have left it.
  void make_legacy_journal() const {
    const std::string jp = journal_path_for(path);
    const auto bytes = read_all(jp);
    const LoadedJournal lj = parse_journal_file(bytes);
    REQUIRE(lj.version == kSlotJournalVersion);
    const MacKey key = mac_key(lj.job);
    const auto slot = newest_authentic_slot(bytes, lj, key);
    REQUIRE(slot);
    Journal j = lj.job;
    j.state = slot->state;
    const JournalBytes jb = serialize_journal(j, key);
    std::vector<uint8_t> out(jb.prefix);
    out.insert(out.end(), jb.protection, jb.protection + jb.protection_size);
    out.insert(out.end(), jb.mac.begin(), jb.mac.end());
    write_all(jp, out);
  }
  void resume_and_verify(Resilience res) {
    JobOptions o = opts(res);
    o.unit_hash = JobOptions{}.unit_hash;
    auto job = Job::prepare(req(), o);
    job->run();
    job.reset();
    CHECK_FALSE(std::filesystem::exists(journal_path_for(path)));
    const OpenedHeader h = header_of(path, open_opts(nc, PrfId::Sha512));
    CHECK(h.chain == ChainId::Serpent);
    CHECK(h.fields.required_version == kVeraRequiredVersion);
    CHECK(sha256_hex(read_plain(path, open_opts(nc, PrfId::Sha512))) == sha256_hex(plain));
  }
};

const char* mode_name(FailMode m) {
  return m == FailMode::Error ? "error" : m == FailMode::TornWrite ? "torn write" : "power loss";
}

}  // namespace

TEST_CASE("reencrypt crash: FailFile on the container at every write and fsync, then resume", "[reencrypt][crash]") {
  Fixture fx;
  // One thread writes a hot zone, or two on disjoint halves (the path machines with many cores take): a crash
  // then leaves any subset of the zone's writes on disk, in either order.
  fx.writers = GENERATE(1u, 2u);
  // One zone prepared beside the one written, or two (the path of engines that take several callers): then two
  // zones' protection waits for two different commits.
  fx.zones_ahead = GENERATE(1u, 2u);
  INFO("hot zone written by " << fx.writers << " thread(s), " << fx.zones_ahead << " zone(s) prepared ahead");
  for (Resilience res : {Resilience::Checksum, Resilience::Journal}) {
    for (FailMode mode : {FailMode::Error, FailMode::TornWrite, FailMode::PowerLoss}) {
      // Count the container's operations in an undisturbed run.
      fx.reset();
      uint64_t total = 0;
      {
        FailFile* ff = nullptr;
        JobOptions o = fx.opts(res);
        o.wrap_volume = [&](std::unique_ptr<BlockFile> f) -> std::unique_ptr<BlockFile> {
          auto p = std::make_unique<FailFile>(std::move(f), FailPlan{0, mode, true, 0});
          ff = p.get();
          return p;
        };
        auto job = Job::prepare(fx.req(), o);
        job->run();
        total = ff->operations();
      }
      REQUIRE(total >= 4 * 3 + 8);
      for (uint64_t n = 1; n <= total; ++n) {
        INFO(resilience_name(res) << ", " << mode_name(mode) << " at container operation " << n << " of " << total);
        fx.crash_at(res, n, mode);
        fx.check_no_garbage();
        fx.resume_and_verify(res);
      }
    }
  }
}

TEST_CASE("reencrypt crash: a job with SHA-256/128 checksums resumes with them", "[reencrypt][crash][journal]") {
  Fixture fx;
  fx.unit_hash = UnitHash::Sha256_128;
  for (FailMode mode : {FailMode::TornWrite, FailMode::PowerLoss}) {
    for (uint64_t n = 3; n <= 12; ++n) {  // inside the data phase: a hot zone written partly
      INFO(mode_name(mode) << " at container operation " << n);
      fx.crash_at(Resilience::Checksum, n, mode);
      const auto bytes = read_all(journal_path_for(fx.path));
      CHECK(parse_journal_file(bytes).job.unit_hash == UnitHash::Sha256_128);
      fx.resume_and_verify(Resilience::Checksum);
    }
  }
}

TEST_CASE("reencrypt crash: journals of format versions 1 and 2 (one record) resume, rewritten as version 3",
          "[reencrypt][crash][journal]") {
  Fixture fx;
  for (Resilience res : {Resilience::Checksum, Resilience::Journal}) {
    for (UnitHash uh : {UnitHash::Sha256_128, UnitHash::Xxh3_128}) {
      fx.unit_hash = uh;
      for (FailMode mode : {FailMode::TornWrite, FailMode::PowerLoss}) {
        for (uint64_t n = 3; n <= 12; ++n) {  // inside the data phase: a hot zone written partly
          INFO(resilience_name(res) << ", hash " << int(uh) << ", " << mode_name(mode) << " at container operation "
                                    << n);
          fx.crash_at(res, n, mode);
          fx.make_legacy_journal();
          const std::string jp = journal_path_for(fx.path);
          CHECK(read_all(jp)[8] == uint8_t(uh));  // the single-record format: its version names the hash
          if (n == 7) {  // stopped after the first zone of the resumed run: its journal is version 3 now
            JobOptions c = fx.opts(res);
            c.cancel.requested = [] { return true; };
            CHECK_THROWS(Job::prepare(fx.req(), c)->run());
            const auto now = read_all(jp);
            CHECK(now[8] == kSlotJournalVersion);
            CHECK(parse_journal_file(now).job.unit_hash == uh);
          }
          fx.resume_and_verify(res);
        }
      }
    }
  }
}

TEST_CASE("reencrypt crash: one fault counter over container and journal files, every operation", "[reencrypt][crash]") {
  Fixture fx;
  fx.zones_ahead = GENERATE(1u, 2u);
  INFO(fx.zones_ahead << " zone(s) prepared ahead");
  for (Resilience res : {Resilience::Checksum, Resilience::Journal}) {
    for (FailMode mode : {FailMode::Error, FailMode::TornWrite, FailMode::PowerLoss}) {
      fx.reset();
      FailGroup count({0, FailMode::Error, true, 0});  // counts writes and syncs, fails none
      {
        JobOptions o = fx.opts(res);
        o.wrap_volume = count.wrapper();
        o.wrap_journal = count.wrapper();
        Job::prepare(fx.req(), o)->run();
      }
      const uint64_t total = count.operations();
      REQUIRE(total >= 4 * 7);
      for (uint64_t n = 1; n <= total; ++n) {
        INFO(resilience_name(res) << ", " << mode_name(mode) << " at operation " << n << " of " << total);
        fx.reset();
        // Checksum mode relies on 512-byte-atomic writes: tear on a unit boundary. Journal mode: anywhere.
        FailGroup plan({n, mode, true, res == Resilience::Checksum ? size_t(3 * 512) : size_t(700)});
        {
          JobOptions o = fx.opts(res);
          o.wrap_volume = plan.wrapper();
          o.wrap_journal = plan.wrapper();
          auto job = Job::prepare(fx.req(), o);
          CHECK_THROWS_AS(job->run(), Error);
        }
        REQUIRE(plan.failed());
        fx.check_no_garbage();
        fx.resume_and_verify(res);
      }
    }
  }
}

TEST_CASE("reencrypt crash: a write torn inside a 512-byte unit", "[reencrypt][crash]") {
  Fixture fx;
  // Container operations: M = 4 (backup write+sync, primary write+sync), then zone 0's first data write is op 5.
  auto crash = [&](Resilience res) {
    fx.reset();
    JobOptions o = fx.opts(res);
    o.wrap_volume = [](std::unique_ptr<BlockFile> f) -> std::unique_ptr<BlockFile> {
      return std::make_unique<FailFile>(std::move(f), FailPlan{5, FailMode::TornWrite, true, 700});
    };
    auto job = Job::prepare(fx.req(), o);
    CHECK_THROWS_AS(job->run(), Error);
  };
  SECTION("journal resilience repairs it") {
    crash(Resilience::Journal);
    fx.resume_and_verify(Resilience::Journal);
  }
  SECTION("checksum resilience refuses, names the unit, changes nothing") {
    crash(Resilience::Checksum);
    const std::string c0 = file_sha256(fx.path), j0 = file_sha256(journal_path_for(fx.path));
    CHECK_THROWS_MATCHES(Job::prepare(fx.req(), fx.opts(Resilience::Checksum))->run(), Error,
                         Catch::Predicate<Error>([](const Error& e) {
                           return e.kind() == ErrorKind::Format &&
                                  std::string(e.what()).find("neither the old nor the new") != std::string::npos &&
                                  std::string(e.what()).find("offset 131584") != std::string::npos;
                         }));
    CHECK(file_sha256(fx.path) == c0);
    CHECK(file_sha256(journal_path_for(fx.path)) == j0);
  }
}

TEST_CASE("reencrypt: tampered, truncated, swapped and stale journals are refused", "[reencrypt][journal]") {
  for (Resilience res : {Resilience::Checksum, Resilience::Journal})
  for (bool legacy : {false, true}) {
    INFO(resilience_name(res) << (legacy ? ", single-record journal (format version 1/2)" : ", two-slot journal"));
    Fixture fx;
    fx.reset();
    // Interrupt inside zone 2 (a hot zone with protection data is committed): container operations 4 + 3 + 3 + 1.
    {
      JobOptions o = fx.opts(res);
      o.wrap_volume = [](std::unique_ptr<BlockFile> f) -> std::unique_ptr<BlockFile> {
        return std::make_unique<FailFile>(std::move(f), FailPlan{11, FailMode::Error, true, 0});
      };
      CHECK_THROWS(Job::prepare(fx.req(), o)->run());
    }
    const std::string jp = journal_path_for(fx.path);
    if (legacy) fx.make_legacy_journal();
    const auto container = read_all(fx.path);
    const auto journal = read_all(jp);
    REQUIRE(journal.size() > 3000);
    const std::string csum = sha256_hex(container);
    // Two-slot journal: the bytes the newest state stands on (the fixed part, its slot's record and protection).
    // A flip there is refused; elsewhere (the other slot, padding, the rest of the protection region) it may be
    // ignored, and then the resume must give the original plaintext. A single-record journal: every byte counts.
    std::vector<std::pair<size_t, size_t>> covered = {{0, journal.size()}};
    if (!legacy) {
      const LoadedJournal lj = parse_journal_file(journal);
      const auto slot = newest_authentic_slot(journal, lj, fx.mac_key(lj.job));
      REQUIRE(slot);
      const JournalLayout& L = lj.layout;
      covered = {{0, L.fixed_size},
                 {L.slot_offset(slot->index), L.slot_offset(slot->index) + kSlotRecordBytes},
                 {L.protection_offset(slot->index), L.protection_offset(slot->index) + slot->state.protection_size}};
    }
    auto is_covered = [&](size_t pos) {
      for (const auto& [a, b] : covered)
        if (pos >= a && pos < b) return true;
      return false;
    };
    auto refused_or_harmless = [&](const std::vector<uint8_t>& bad, const std::string& what) {
      INFO(what);
      write_all(fx.path, container);
      write_all(jp, bad);
      try {
        Job::prepare(fx.req(), fx.opts(res))->run();
      } catch (const Error& e) {
        CHECK((e.kind() == ErrorKind::Format || e.kind() == ErrorKind::Auth));
        CHECK(file_sha256(fx.path) == csum);
        CHECK(read_all(jp) == bad);
        return;
      }
      CHECK(sha256_hex(read_plain(fx.path, open_opts(fx.nc, PrfId::Sha512))) == sha256_hex(fx.plain));
    };
    auto refused = [&](const std::vector<uint8_t>& bad, const std::string& what) {
      INFO(what);
      write_all(fx.path, container);
      write_all(jp, bad);
      try {
        Job::prepare(fx.req(), fx.opts(res))->run();
        FAIL_CHECK("resumed with a bad journal");
      } catch (const Error& e) {
        CHECK((e.kind() == ErrorKind::Format || e.kind() == ErrorKind::Auth));
      }
      CHECK(file_sha256(fx.path) == csum);
      CHECK(read_all(jp) == bad);
    };
    // Flipped bytes: the fixed fields, each stored header, the state, the protection data, the MAC, and a spread.
    std::vector<size_t> positions = {0, 9, 12, 17, 30, 50, 60, 70, 100, 300, 700, 1200, 1700, 2200, 2700, 3200};
    for (size_t k = 1; k < 40; ++k) positions.push_back(journal.size() * k / 40);
    for (size_t k = 1; k <= 64; ++k) positions.push_back(journal.size() - k);
    if (!legacy)  // the newest slot's record, MAC and protection edges
      for (const auto& [a, b] : covered)
        for (size_t pos : {a, a + 4, a + 12, (a + b) / 2, b - 64, b - 1}) positions.push_back(pos);
    size_t n_covered = 0;
    for (size_t pos : positions) {
      auto bad = journal;
      bad[pos] ^= 0x01;
      const std::string what = "bit flipped at byte " + std::to_string(pos) + " of " + std::to_string(journal.size());
      if (is_covered(pos)) {
        ++n_covered;
        refused(bad, what);
      } else {
        refused_or_harmless(bad, what);
      }
    }
    CHECK(n_covered >= 30);
    for (size_t cut : {size_t(0), size_t(8), size_t(100), journal.size() / 2, journal.size() - 64, journal.size() - 1}) {
      auto bad = journal;
      bad.resize(cut);
      refused(bad, "truncated to " + std::to_string(cut));
    }
    {
      auto bad = journal;
      bad.push_back(0);
      refused(bad, "one byte appended");
    }
    // A journal of another container with the same credentials and settings.
    {
      Fixture other;
      other.oc = fx.oc;
      other.reset();
      make_container(other.path, other.plain, ChainId::Aes, PrfId::Sha512, fx.oc);
      JobOptions o = other.opts(res);
      o.cancel.requested = [n = 0]() mutable { return ++n >= 2; };
      CHECK_THROWS(Job::prepare(other.req(), o)->run());
      refused(read_all(journal_path_for(other.path)), "journal of another container");
    }
    // The genuine journal still resumes.
    write_all(fx.path, container);
    write_all(jp, journal);
    fx.resume_and_verify(res);
  }
}

TEST_CASE("reencrypt: a stale journal (older state of the same job) is refused", "[reencrypt][journal]") {
  Fixture fx;
  fx.reset();
  const std::string jp = journal_path_for(fx.path);
  JobOptions o = fx.opts(Resilience::Checksum);
  o.cancel.requested = [] { return true; };  // stop after each zone
  CHECK_THROWS(Job::prepare(fx.req(), o)->run());
  const auto early = read_all(jp);
  CHECK_THROWS(Job::prepare(fx.req(), o)->run());
  const auto later = read_all(jp);
  REQUIRE(early != later);
  const std::string csum = file_sha256(fx.path);
  write_all(jp, early);
  CHECK_THROWS_MATCHES(Job::prepare(fx.req(), fx.opts(Resilience::Checksum)), Error,
                       Catch::Predicate<Error>([](const Error& e) {
                         return e.kind() == ErrorKind::Format &&
                                std::string(e.what()).find("older than the container") != std::string::npos;
                       }));
  CHECK(file_sha256(fx.path) == csum);
  write_all(jp, later);
  fx.resume_and_verify(Resilience::Checksum);
}

TEST_CASE("reencrypt: a missing journal is reported, nothing is written", "[reencrypt][journal]") {
  Fixture fx;
  fx.reset();
  JobOptions o = fx.opts(Resilience::Checksum);
  o.cancel.requested = [] { return true; };
  CHECK_THROWS(Job::prepare(fx.req(), o)->run());
  const auto journal = read_all(journal_path_for(fx.path));
  std::filesystem::remove(journal_path_for(fx.path));
  const std::string csum = file_sha256(fx.path);
  CHECK_THROWS_MATCHES(Job::prepare(fx.req(), fx.opts(Resilience::Checksum)), Error,
                       Catch::Predicate<Error>([](const Error& e) {
                         return e.kind() == ErrorKind::Format &&
                                std::string(e.what()).find("journal") != std::string::npos &&
                                std::string(e.what()).find("missing") != std::string::npos;
                       }));
  CHECK(file_sha256(fx.path) == csum);
  write_all(journal_path_for(fx.path), journal);
  fx.resume_and_verify(Resilience::Checksum);
}

TEST_CASE("reencrypt crash: outer + hidden volume in one job, power loss and torn writes at every operation",
          "[reencrypt][crash][hidden]") {
  FastDir dir;
  const std::string master = dir.file("oh-master.hc"), path = dir.file("oh.hc");
  const Credentials oc = creds("outer old"), hc = creds("hidden pw");
  constexpr uint64_t kOuter = 512 * kKiB, kS = 192 * kKiB;
  make_container(master, noise(kOuter), ChainId::Aes, PrfId::Sha512, oc);
  const HiddenLayout l = hidden_layout(kOuter + 2 * kHeaderGroupSize, kS, 512);
  const auto hidden_plain = noise(size_t(l.data_size));
  add_hidden_volume(master, kS, hidden_plain, ChainId::Twofish, hc);
  const auto outer_plain = read_plain(master, open_opts(oc, PrfId::Sha512));
  const uint64_t rel = l.data_start - kDataOffsetV2;  // the hidden range inside the outer data area
  auto outside_hidden = [&](const std::vector<uint8_t>& v) {
    std::vector<uint8_t> o(v.begin(), v.begin() + long(rel));
    o.insert(o.end(), v.begin() + long(rel + l.data_size), v.end());
    return sha256_hex(o);
  };
  const std::string outer_sha = outside_hidden(outer_plain), hidden_sha = sha256_hex(hidden_plain);
  OpenOptions ho = open_opts(hc, PrfId::Sha512);
  ho.slot = SlotKind::Hidden;
  const Credentials noc = creds("outer new");
  auto req = [&] {
    VolumeRequest r;
    r.path = path;
    r.open = open_opts(oc, PrfId::Sha512);
    r.hidden = ho;
    r.next.chain = ChainId::SerpentAes;
    r.next.password = pw("outer new");
    return r;
  };
  auto reset = [&] {
    copy_file(master, path);
    std::filesystem::remove(journal_path_for(path));
    std::filesystem::remove(journal_path_for(path) + ".tmp");
  };
  // A header that opens (outer: old or new credentials; hidden) shows the original data, else it refuses.
  auto check_open = [&](const OpenOptions& o, bool hidden) {
    std::vector<uint8_t> got;
    try {
      got = read_plain(path, o);
    } catch (const Error& e) {
      const bool ok = e.kind() == ErrorKind::Auth ||
                      (e.kind() == ErrorKind::Format && std::string(e.what()).find(kHalfReencryptedPhrase) != std::string::npos);
      if (!ok) FAIL_CHECK("unexpected error opening at a crash point: " << e.what());
      return;
    }
    CHECK((hidden ? sha256_hex(got) : outside_hidden(got)) == (hidden ? hidden_sha : outer_sha));
  };
  for (Resilience res : {Resilience::Checksum, Resilience::Journal}) {
    for (FailMode mode : {FailMode::PowerLoss, FailMode::TornWrite}) {
      reset();
      FailGroup count({0, FailMode::Error, true, 0});  // counts writes and syncs, fails none
      {
        JobOptions o = job_options(res, 128 * kKiB);  // 4 zones; the 3rd and 4th straddle the hidden range's edges
        o.max_write = 32 * 1024;
        o.wrap_volume = count.wrapper();
        o.wrap_journal = count.wrapper();
        Job::prepare(req(), o)->run();
      }
      const uint64_t total = count.operations();
      REQUIRE(total >= 4 * 7);
      for (uint64_t n = 1; n <= total; ++n) {
        INFO(resilience_name(res) << ", " << mode_name(mode) << " at operation " << n << " of " << total);
        reset();
        FailGroup plan({n, mode, true, res == Resilience::Checksum ? size_t(512) : size_t(300)});
        {
          JobOptions o = job_options(res, 128 * kKiB);
          o.max_write = 32 * 1024;
          o.wrap_volume = plan.wrapper();
          o.wrap_journal = plan.wrapper();
          auto job = Job::prepare(req(), o);
          CHECK_THROWS_AS(job->run(), Error);
        }
        REQUIRE(plan.failed());
        check_open(open_opts(oc, PrfId::Sha512), false);
        check_open(open_opts(noc, PrfId::Sha512), false);
        check_open(ho, true);
        Job::prepare(req(), job_options(res, 128 * kKiB))->run();
        CHECK_FALSE(std::filesystem::exists(journal_path_for(path)));
        CHECK(outside_hidden(read_plain(path, open_opts(noc, PrfId::Sha512))) == outer_sha);
        CHECK(sha256_hex(read_plain(path, ho)) == hidden_sha);
        CHECK(header_of(path, ho).chain == ChainId::SerpentAes);
      }
    }
  }
}

namespace {

// The overlap of a hot zone's container writes (W_{z-1}) with the next zone's protection write into the free
// journal slot (P_z), made deterministic for a crash test: zone z's protection write (the z-th journal write of
// `prot_len` bytes) waits until the container took the first of zone z-1's two data writes, and zone z-1's second
// data write waits until that protection write returned or failed. Records the fault group's operation index of
// the protection write, of zone z's data fsync and of the commit after it (Z_{z+1}'s record), so a second run can
// fail exactly there.
struct OverlapGate {
  uint64_t zone = 1;
  size_t prot_len = 0;
  FailGroup* group = nullptr;
  std::mutex mu;
  std::condition_variable cv;
  uint64_t data_writes = 0, prot_writes = 0, records = 0;
  bool first_done = false, prot_done = false, timed_out = false;
  uint64_t prot_op = 0, commit_op = 0, fsync_op = 0;  // operation indexes in the group (1-based)
  // held_zone > 0: Z_{held_zone}'s record write first waits (a short while: in a correct run it cannot happen)
  // for the next zone's protection write to have returned, and records its own operation index.
  uint64_t held_zone = 0, prot_completed = 0, held_op = 0;
  bool held_saw_protection = false;

  void wait_for(bool& flag) {
    std::unique_lock<std::mutex> lk(mu);
    if (!cv.wait_for(lk, std::chrono::seconds(10), [&] { return flag; })) timed_out = true;
  }
  void set(bool& flag) {
    {
      std::lock_guard<std::mutex> lk(mu);
      flag = true;
    }
    cv.notify_all();
  }
};

class GateFile final : public wvtest::ForwardingFile {
 public:
  GateFile(std::unique_ptr<BlockFile> inner, OverlapGate& g, bool container)
      : ForwardingFile(std::move(inner)), g_(g), container_(container) {}
  void sync() override {
    if (container_) {
      std::lock_guard<std::mutex> lk(g_.mu);
      // The fsync of zone `zone`'s data (W_zone): after its two data writes.
      if (g_.data_writes == 2 * (g_.zone + 1) && !g_.fsync_op) g_.fsync_op = g_.group->operations() + 1;
    }
    inner().sync();
  }
  void write_at(uint64_t o, const uint8_t* b, size_t n) override {
    if (container_ && n == kMaxWrite) {
      uint64_t idx;
      {
        std::lock_guard<std::mutex> lk(g_.mu);
        idx = g_.data_writes++;
      }
      if (idx == 2 * (g_.zone - 1) + 1) g_.wait_for(g_.prot_done);
      struct Done {
        OverlapGate& g;
        bool first;
        ~Done() {
          if (first) g.set(g.first_done);
        }
      } done{g_, idx == 2 * (g_.zone - 1)};
      inner().write_at(o, b, n);
      return;
    }
    if (!container_ && n == g_.prot_len) {
      uint64_t idx;
      {
        std::lock_guard<std::mutex> lk(g_.mu);
        idx = g_.prot_writes++;
      }
      struct Completed {
        OverlapGate& g;
        ~Completed() {
          {
            std::lock_guard<std::mutex> lk(g.mu);
            ++g.prot_completed;
          }
          g.cv.notify_all();
        }
      } completed{g_};
      if (idx == g_.zone) {
        g_.wait_for(g_.first_done);
        {
          std::lock_guard<std::mutex> lk(g_.mu);
          g_.prot_op = g_.group->operations() + 1;
        }
        struct Done {
          OverlapGate& g;
          ~Done() { g.set(g.prot_done); }
        } done{g_};
        inner().write_at(o, b, n);
        return;
      }
    }
    if (!container_ && n == kSlotRecordBytes) {
      std::unique_lock<std::mutex> lk(g_.mu);
      // Record 0 is J0's (in the temporary file), record z + 1 is Z_z's: Z_{zone+1} follows zone's data fsync.
      const uint64_t r = g_.records++;
      if (r == g_.zone + 2) g_.commit_op = g_.group->operations() + 1;
      if (g_.held_zone && r == g_.held_zone + 1) {
        g_.held_saw_protection = g_.cv.wait_for(lk, std::chrono::milliseconds(300),
                                                [&] { return g_.prot_completed >= g_.held_zone + 2; });
        g_.held_op = g_.group->operations() + 1;
      }
    }
    inner().write_at(o, b, n);
  }

 private:
  OverlapGate& g_;
  bool container_;
};

// One run of the fixture's job through a fault group (plan) and the gate of zone `zone`; returns the gate's record.
struct GatedRun {
  uint64_t prot_op = 0, commit_op = 0, fsync_op = 0, held_op = 0;
  bool timed_out = false, threw = false, held_saw_protection = false;
};
GatedRun gated_run(Fixture& fx, Resilience res, uint64_t zone, FailPlan plan, uint64_t held_zone = 0) {
  fx.reset();
  FailGroup group(plan);
  OverlapGate gate;
  gate.zone = zone;
  gate.held_zone = held_zone;
  gate.prot_len = res == Resilience::Journal ? size_t(kZone) : size_t(kZone / 512 * kChecksumEntrySize);
  gate.group = &group;
  JobOptions o = fx.opts(res);
  o.wrap_volume = [&](std::unique_ptr<BlockFile> f) -> std::unique_ptr<BlockFile> {
    return std::make_unique<GateFile>(group.wrapper()(std::move(f)), gate, true);
  };
  o.wrap_journal = [&](std::unique_ptr<BlockFile> f) -> std::unique_ptr<BlockFile> {
    return std::make_unique<GateFile>(group.wrapper()(std::move(f)), gate, false);
  };
  GatedRun r;
  try {
    auto job = Job::prepare(fx.req(), o);
    job->run();
  } catch (const Error&) {
    r.threw = true;
  }
  r.prot_op = gate.prot_op;
  r.commit_op = gate.commit_op;
  r.fsync_op = gate.fsync_op;
  r.held_op = gate.held_op;
  r.held_saw_protection = gate.held_saw_protection;
  r.timed_out = gate.timed_out;
  return r;
}

}  // namespace

TEST_CASE("reencrypt crash: the free slot's protection half written while the previous zone is in flight",
          "[reencrypt][crash][journal][overlap]") {
  Fixture fx;
  for (Resilience res : {Resilience::Journal, Resilience::Checksum}) {
    for (uint64_t zone : {1u, 2u, 3u}) {
      const GatedRun count = gated_run(fx, res, zone, {0, FailMode::Error, true, 0});
      REQUIRE_FALSE(count.threw);
      REQUIRE_FALSE(count.timed_out);
      REQUIRE(count.prot_op > 0);
      for (FailMode mode : {FailMode::TornWrite, FailMode::PowerLoss, FailMode::Error}) {
        // Torn: the first 700 bytes of the protection reach the slot (journal mode: of a 64 KiB copy; checksum
        // mode: of 2 KiB of entries), and zone-1's first data write is on disk, its second not.
        INFO(resilience_name(res) << ", " << mode_name(mode) << " in zone " << zone
                                  << "'s protection write, zone " << zone - 1 << " half written");
        const GatedRun r = gated_run(fx, res, zone, {count.prot_op, mode, true, 700});
        CHECK(r.threw);
        CHECK_FALSE(r.timed_out);
        CHECK(r.prot_op == count.prot_op);  // the failure hit that write
        fx.check_no_garbage();
        fx.resume_and_verify(res);
      }
    }
  }
}

TEST_CASE("reencrypt crash: between a zone's data fsync and the next commit, torn slot records",
          "[reencrypt][crash][journal][overlap]") {
  Fixture fx;
  for (Resilience res : {Resilience::Journal, Resilience::Checksum}) {
    for (uint64_t zone : {1u, 2u}) {  // the commit Z_{zone+1} after zone `zone`'s data fsync; P_{zone+1} done
      const GatedRun count = gated_run(fx, res, zone, {0, FailMode::Error, true, 0});
      REQUIRE_FALSE(count.threw);
      REQUIRE(count.commit_op > 0);
      REQUIRE(count.fsync_op > 0);
      REQUIRE(count.fsync_op < count.commit_op);  // the order this test is about: data durable, then commit
      struct Point {
        uint64_t op;
        FailMode mode;
        size_t torn;
        const char* what;
      };
      std::vector<Point> points = {
          {count.fsync_op, FailMode::PowerLoss, 0, "power loss at zone's data fsync"},
          {count.fsync_op + 1, FailMode::Error, 0, "failure right after zone's data fsync"},
          {count.commit_op, FailMode::Error, 0, "commit record write fails, nothing written"},
          {count.commit_op, FailMode::PowerLoss, 0, "power loss at the commit record write (protection not synced)"},
          {count.commit_op + 1, FailMode::PowerLoss, 0, "power loss at the commit's fsync"},
      };
      for (size_t torn : {size_t(1), size_t(4), size_t(8), size_t(12), size_t(20), size_t(40), size_t(84),
                          size_t(100), kSlotRecordBytes - 1})
        points.push_back({count.commit_op, FailMode::TornWrite, torn, "torn slot record"});
      for (const Point& p : points) {
        INFO(resilience_name(res) << ", zone " << zone << ": " << p.what << " (" << p.torn << " bytes), operation "
                                  << p.op);
        const GatedRun r = gated_run(fx, res, zone, {p.op, p.mode, true, p.torn});
        CHECK(r.threw);
        CHECK_FALSE(r.timed_out);
        fx.check_no_garbage();
        fx.resume_and_verify(res);
      }
    }
  }
}

TEST_CASE("reencrypt crash: a commit held back, the free slot is not written before the commit it waits for",
          "[reencrypt][crash][journal][overlap]") {
  // Z_z's record write is held (300 ms) to give the next zone's protection write every chance to come first; it
  // must not (P_{z+1} may overwrite that slot only once Z_z is durable; with two zones prepared ahead, P_{z+2} the
  // other slot only once Z_{z+1} is), and a crash at that record write (torn, or failing) must leave a resumable
  // journal.
  Fixture fx;
  fx.zones_ahead = GENERATE(1u, 2u);
  INFO(fx.zones_ahead << " zone(s) prepared ahead");
  for (Resilience res : {Resilience::Journal, Resilience::Checksum}) {
    for (uint64_t zone : {1u, 2u}) {
      const GatedRun count = gated_run(fx, res, 100, {0, FailMode::Error, true, 0}, zone);
      REQUIRE_FALSE(count.threw);
      REQUIRE(count.held_op > 0);
      CHECK_FALSE(count.held_saw_protection);
      for (FailMode mode : {FailMode::TornWrite, FailMode::Error}) {
        INFO(resilience_name(res) << ", " << mode_name(mode) << " at Z_" << zone << "'s record write, operation "
                                  << count.held_op);
        const GatedRun r = gated_run(fx, res, 100, {count.held_op, mode, true, 40}, zone);
        CHECK(r.threw);
        fx.check_no_garbage();
        fx.resume_and_verify(res);
      }
    }
  }
}
