// Crash safety of re-encryption: a failure or power loss at EVERY write/fsync of a run, in both resilience modes,
// followed by a resume, must give back exactly the original plaintext under the new credentials; at no crash point
// may any header open and show wrong data. Tampered, truncated, swapped and stale journals are refused without
// touching the container.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "core/reencrypt/marker.h"
#include "core/util/error.h"
#include "tests/support/fail_file.h"
#include "tests/support/reencrypt_support.h"

using namespace warpvol;
using namespace warpvol::reenc;
using namespace rtest;

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kData = 256 * kKiB;
constexpr uint64_t kZone = 64 * kKiB;  // 4 hot zones
constexpr size_t kMaxWrite = 32 * 1024;  // 2 container writes per zone

std::vector<uint8_t> read_all(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void write_all(const std::string& p, const std::vector<uint8_t>& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

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
  UnitHash unit_hash = UnitHash::Xxh3_128;  // of the interrupted run; a resume uses the default, keeping the journal's
  JobOptions opts(Resilience res) const {
    JobOptions o = job_options(res, kZone);
    o.max_write = kMaxWrite;
    o.writers = writers;
    o.unit_hash = unit_hash;
    return o;
  }
  void reset() {
    copy_file(master, path);
    std::filesystem::remove(journal_path_for(path));
    std::filesystem::remove(journal_path_for(path) + ".tmp");
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
  INFO("hot zone written by " << fx.writers << " thread(s)");
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
        fx.reset();
        JobOptions o = fx.opts(res);
        o.wrap_volume = [&](std::unique_ptr<BlockFile> f) -> std::unique_ptr<BlockFile> {
          // Torn writes: whole 512-byte units reach the disk (sector atomicity; sub-unit tears are tested below).
          return std::make_unique<FailFile>(std::move(f), FailPlan{n, mode, true, 0});
        };
        {
          auto job = Job::prepare(fx.req(), o);
          CHECK_THROWS_AS(job->run(), Error);
        }
        fx.check_no_garbage();
        fx.resume_and_verify(res);
      }
    }
  }
}

TEST_CASE("reencrypt crash: a journal with SHA-256/128 checksums (format version 1) resumes with them",
          "[reencrypt][crash][journal]") {
  Fixture fx;
  fx.unit_hash = UnitHash::Sha256_128;
  for (FailMode mode : {FailMode::TornWrite, FailMode::PowerLoss}) {
    for (uint64_t n = 3; n <= 12; ++n) {  // inside the data phase: a hot zone written partly
      INFO(mode_name(mode) << " at container operation " << n);
      fx.reset();
      JobOptions o = fx.opts(Resilience::Checksum);
      o.wrap_volume = [&](std::unique_ptr<BlockFile> f) -> std::unique_ptr<BlockFile> {
        return std::make_unique<FailFile>(std::move(f), FailPlan{n, mode, true, 0});
      };
      {
        auto job = Job::prepare(fx.req(), o);
        CHECK_THROWS_AS(job->run(), Error);
      }
      const auto bytes = read_all(journal_path_for(fx.path));
      REQUIRE(bytes.size() > 12);
      CHECK(bytes[8] == 1);  // the format version that names SHA-256/128
      fx.resume_and_verify(Resilience::Checksum);
    }
  }
}

TEST_CASE("reencrypt crash: one fault counter over container and journal files, every operation", "[reencrypt][crash]") {
  Fixture fx;
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
  for (Resilience res : {Resilience::Checksum, Resilience::Journal}) {
    INFO(resilience_name(res));
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
    const auto container = read_all(fx.path);
    const auto journal = read_all(jp);
    REQUIRE(journal.size() > 3000);
    const std::string csum = sha256_hex(container);
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
    for (size_t pos : positions) {
      auto bad = journal;
      bad[pos] ^= 0x01;
      refused(bad, "bit flipped at byte " + std::to_string(pos) + " of " + std::to_string(journal.size()));
    }
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
