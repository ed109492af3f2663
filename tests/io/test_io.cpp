// core/io: whole-buffer descriptor I/O under signals and short counts, atomic replacement failing at each step,
// the bounded binary reader/writer, and the two formats written with it (re-encryption journal, mount spec)
// against bytes that the serialisers wrote before they moved onto it.
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "core/io/atomic_file.h"
#include "core/io/binary.h"
#include "tests/support/fail_file.h"
#include "core/io/fd_io.h"
#include "core/mount/mount_spec.h"
#include "core/reencrypt/journal.h"
#include "core/util/error.h"
#include "tests/support/test_support.h"
#include "tests/support/thread_checks.h"

using namespace warpvol;

namespace {

// A journal with every field set to a distinct value: two parts, a sentinel, checksum protection.
reenc::Journal fixture_journal(std::vector<uint8_t>& protection) {
  reenc::Journal j;
  j.unit_hash = reenc::UnitHash::Sha256_128;  // the fixture is a version-1 journal: SHA-256/128 checksum entries
  j.resilience = reenc::Resilience::Checksum;
  j.container_size = 0x1234500000;
  j.hotzone = 1 << 20;
  j.range_offset = 131072;
  j.range_size = 0x1234000000;
  j.range_first_unit = 256;
  for (int i = 0; i < 2; ++i) {
    reenc::PartRecord p;
    p.slot = i ? SlotKind::Hidden : SlotKind::Normal;
    p.old_format = i ? VolumeFormat::TrueCrypt : VolumeFormat::VeraCrypt;
    p.old_chain = i ? ChainId::SerpentAes : ChainId::Aes;
    p.old_prf = i ? PrfId::Whirlpool : PrfId::Sha512;
    p.new_chain = i ? ChainId::Twofish : ChainId::Camellia;
    p.new_prf = i ? PrfId::Argon2id : PrfId::Blake2s;
    p.data_offset = 131072 + uint64_t(i) * 0x100000000;
    p.data_size = 0x200000000 - uint64_t(i) * 0x1000;
    p.first_unit = 256 + uint64_t(i) * 7;
    int h = 0;
    for (EncryptedHeader* e :
         {&p.orig_primary, &p.orig_backup, &p.marked_primary, &p.marked_backup, &p.final_primary, &p.final_backup}) {
      for (size_t k = 0; k < e->size(); ++k) (*e)[k] = uint8_t(k * 7 + size_t(h) * 31 + size_t(i) * 101);
      ++h;
    }
    j.parts.push_back(p);
  }
  reenc::JournalState& s = j.state;
  s.seq = 0x0102030405060708;
  s.phase = reenc::Phase::Data;
  s.progress = 0x40000;
  s.hot_offset = 0x40000;
  s.hot_size = 4096;
  s.has_sentinel = true;
  for (size_t k = 0; k < 32; ++k) s.sentinel[k] = uint8_t(0xa0 + k);
  protection.resize(s.hot_size / kDataUnitSize * reenc::kChecksumEntrySize);
  for (size_t k = 0; k < protection.size(); ++k) protection[k] = uint8_t(k * 13 + 5);
  s.protection = protection.data();
  s.protection_size = protection.size();
  return j;
}

reenc::MacKey fixture_mac_key() {
  std::vector<std::array<uint8_t, 256>> areas(4);
  std::vector<const uint8_t*> ptrs;
  for (size_t a = 0; a < areas.size(); ++a) {
    for (size_t k = 0; k < 256; ++k) areas[a][k] = uint8_t(a * 50 + k);
    ptrs.push_back(areas[a].data());
  }
  return reenc::journal_mac_key(ptrs);
}

mount::MountSpec fixture_spec() {
  mount::MountSpec s;
  s.slot = 7;
  s.container = "/srv/containers/a b.hc";
  s.aux_dir = "/run/warpvol/aux/slot7";
  s.state_file = "/run/warpvol/slot7.state";
  s.read_only = true;
  s.direct_io = false;
  s.engine = EngineChoice::Cpu;
  s.chain = ChainId::AesTwofishSerpent;
  s.legacy = LegacySuite{LegacyEaId(1), LegacyMode(2)};
  s.key_material = LockedBytes(96);
  for (size_t k = 0; k < 96; ++k) s.key_material.data()[k] = uint8_t(k ^ 0x5c);
  s.data_offset = 131072;
  s.data_size = 0x987654000;
  s.first_unit = 256;
  s.sector_size = 4096;
  s.protect = true;
  s.protect_start = 0x100000;
  s.protect_end = 0x200000;
  s.uid = 1000;
  s.gid = 1001;
  s.allow_other = true;
  return s;
}

std::string fixture_path(const std::string& name) { return wvtest::vectors_dir() + "/warpvol_formats/" + name; }

// SIGUSR1 without SA_RESTART, so that a blocked read or write returns EINTR (or a short count) when it arrives.
std::atomic<int> g_signals{0};
void on_usr1(int) { g_signals.fetch_add(1); }
struct InterruptingSignal {
  struct sigaction old {};
  InterruptingSignal() {
    struct sigaction sa {};
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGUSR1, &sa, &old);
  }
  ~InterruptingSignal() { sigaction(SIGUSR1, &old, nullptr); }
};

std::vector<uint8_t> pattern(size_t n, unsigned seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t((i * 2654435761u + seed) >> 13);
  return v;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void spit(const std::string& path, const std::string& s) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << s;
}

size_t files_in(const std::filesystem::path& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

struct Pipe {
  int r = -1, w = -1;
  Pipe() { REQUIRE(::pipe(&r) == 0); }
  ~Pipe() {
    if (r >= 0) ::close(r);
    if (w >= 0) ::close(w);
  }
};

}  // namespace

TEST_CASE("io: read_full gathers short reads and rides over EINTR", "[io]") {
  InterruptingSignal sig;
  Pipe p;
  const auto data = pattern(size_t(1) << 20, 1);
  std::vector<uint8_t> got(data.size() + 100);
  const pthread_t reader = pthread_self();
  g_signals = 0;
  wvtest::ThreadChecks checks;
  std::thread writer([&] {
    // Small pieces with pauses: the reader's read() returns short counts, and the signals arrive while it waits.
    for (size_t off = 0; off < data.size(); off += 32768) {
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      pthread_kill(reader, SIGUSR1);
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      checks.expect(write_full(p.w, data.data() + off, std::min<size_t>(32768, data.size() - off)) >= 0,
                    "write_full failed");
    }
    ::close(p.w);
    p.w = -1;
  });
  const ssize_t n = read_full(p.r, got.data(), got.size());
  // Whatever read_full did, empty the pipe so that the writer can finish (a plain loop: it must not depend on the
  // code under test).
  for (std::vector<uint8_t> rest(65536);;) {
    const ssize_t r = ::read(p.r, rest.data(), rest.size());
    if (r == 0 || (r < 0 && errno != EINTR)) break;
  }
  writer.join();
  CHECK(checks.failures() == "");
  REQUIRE(n == ssize_t(data.size()));  // fewer than asked only because the writer closed its end
  CHECK(std::equal(data.begin(), data.end(), got.begin()));
  CHECK(g_signals.load() > 0);
}

TEST_CASE("io: write_full finishes a write that signals cut short, or stops when asked", "[io]") {
  InterruptingSignal sig;
  const auto data = pattern(size_t(4) << 20, 2);  // far more than a pipe holds: the writer blocks
  SECTION("interrupted, then finished") {
    Pipe p;
    const pthread_t writer = pthread_self();
    g_signals = 0;
    std::vector<uint8_t> got;
    std::thread reader([&] {
      std::vector<uint8_t> buf(65536);
      for (;;) {
        pthread_kill(writer, SIGUSR1);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        const ssize_t r = read_full(p.r, buf.data(), buf.size());
        if (r <= 0) break;
        got.insert(got.end(), buf.begin(), buf.begin() + r);
      }
    });
    const ssize_t n = write_full(p.w, data.data(), data.size());
    ::close(p.w);
    p.w = -1;
    reader.join();
    CHECK(n == ssize_t(data.size()));
    CHECK(got == data);
    CHECK(g_signals.load() > 0);
  }
  SECTION("a stop request ends the wait on a reader that never reads") {
    Pipe p;
    std::atomic<bool> cancel{false};
    const pthread_t writer = pthread_self();
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      cancel = true;
      pthread_kill(writer, SIGUSR1);
    });
    errno = 0;
    const ssize_t r = write_full(p.w, data.data(), data.size(), [&] { return cancel.load(); });
    const int e = errno;
    canceller.join();
    CHECK(r == -1);
    CHECK(e == EINTR);
  }
}

TEST_CASE("io: positioned reads and writes, end of file, errors", "[io]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("f");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  REQUIRE(fd >= 0);
  const auto data = pattern(300000, 3);
  REQUIRE(pwrite_full(fd, data.data(), data.size(), 1000) == ssize_t(data.size()));
  CHECK(::lseek(fd, 0, SEEK_CUR) == 0);  // the descriptor's offset is not used
  std::vector<uint8_t> got(data.size());
  REQUIRE(pread_full(fd, got.data(), got.size(), 1000) == ssize_t(data.size()));
  CHECK(got == data);
  // Past the end: what there is, then 0.
  CHECK(pread_full(fd, got.data(), 5000, 1000 + data.size() - 10) == 10);
  CHECK(pread_full(fd, got.data(), 5000, 1000 + data.size() + 10) == 0);
  // At end of file read_full returns what there was.
  CHECK(read_full(fd, got.data(), 100) == 100);
  ::close(fd);
  const int ro = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  errno = 0;
  CHECK(write_full(ro, data.data(), 10) == -1);
  CHECK(errno == EBADF);
  ::close(ro);
  CHECK(read_full(-1, got.data(), 1) == -1);
}

TEST_CASE("io: atomic_replace replaces the whole file, mode 0600, no temporary left", "[io]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("record.json");
  spit(path, "old contents");
  atomic_replace(path, std::string("new"));
  CHECK(slurp(path) == "new");
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(files_in(dir.path()) == 1);
  atomic_replace(path, std::string());
  CHECK(slurp(path).empty());
  CHECK(files_in(dir.path()) == 1);
}

TEST_CASE("io: AtomicFile's file is opened once when several writers ask for it at once", "[io]") {
  // Export's workers write their chunks with positioned writes as each is done: with a warm GPU the first ones end
  // together, and an unguarded first open let two threads each open the file and one of them write through the
  // object the other had just replaced (a job that failed with an empty error, or worse). The wrapper holds the
  // first open long enough for every writer to arrive.
  wvtest::TempDir dir;
  std::atomic<int> opens{0};
  FileWrapper slow = [&](std::unique_ptr<BlockFile> f) {
    ++opens;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return f;
  };
  const auto data = pattern(8 * 4096, 6);
  {
    AtomicFile f(dir.file("out"), true, slow);
    std::vector<std::thread> writers;
    for (int w = 0; w < 8; ++w)
      writers.emplace_back([&, w] { f.file().write_at(uint64_t(w) * 4096, data.data() + w * 4096, 4096); });
    for (auto& t : writers) t.join();
    f.commit();
  }
  CHECK(opens == 1);
  CHECK(slurp(dir.file("out")) == std::string(data.begin(), data.end()));
}

TEST_CASE("io: AtomicFile reserves on tmpfs by checking the free space, without allocating the pages", "[io]") {
  // fallocate on tmpfs allocates and zeroes every page, a pass over memory before the writes go over it again:
  // there reserve() checks the free space and sizes the file, sparse, and a size beyond the free space fails at
  // once, leaving no file behind.
  struct statfs fs {};
  if (::statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC) {
    WARN("/dev/shm is not tmpfs here: the tmpfs reservation is not tested");
    return;
  }
  char tmpl[] = "/dev/shm/wv-reserve-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const std::filesystem::path dir = tmpl;
  struct Remove {
    std::filesystem::path p;
    ~Remove() { std::filesystem::remove_all(p); }
  } remove{dir};
  const uint64_t size = uint64_t(64) << 20;
  {
    AtomicFile f((dir / "v.hc").string());
    f.reserve(size);
    struct stat st;
    REQUIRE(::stat(f.temp_path().c_str(), &st) == 0);
    CHECK(uint64_t(st.st_size) == size);
    CHECK(uint64_t(st.st_blocks) * 512 < size / 8);  // not allocated
    const auto data = pattern(4096, 3);
    f.file().write_at(size - 4096, data.data(), data.size());
    f.commit();
  }
  CHECK(std::filesystem::file_size(dir / "v.hc") == size);
  REQUIRE(::statfs(dir.c_str(), &fs) == 0);
  const uint64_t beyond = uint64_t(fs.f_bavail) * fs.f_bsize + (uint64_t(1) << 30);
  {
    AtomicFile f((dir / "w.hc").string());
    CHECK_THROWS_WITH(f.reserve(beyond), Catch::Contains("not enough free space"));
  }
  CHECK(files_in(dir) == 1);  // v.hc; the temporary file of w.hc is gone
}

TEST_CASE("io: AtomicFile leaves the old file as it was when a step before the rename fails", "[io]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("target");
  const std::string old = "the previous contents, which must survive";
  spit(path, old);
  const auto data = pattern(100000, 4);
  auto write_all = [&](AtomicFile& f) {
    for (size_t off = 0; off < data.size(); off += 25000) f.file().write_at(off, data.data() + off, 25000);
  };
  // Operations of a full run: 4 writes and the sync (fail_at counts them from 1).
  for (uint64_t at = 1; at <= 5; ++at) {
    for (FailMode mode : {FailMode::Error, FailMode::TornWrite, FailMode::PowerLoss}) {
      INFO("operation " << at << ", mode " << int(mode));
      FileWrapper wrap = [&](std::unique_ptr<BlockFile> f) {
        return std::unique_ptr<BlockFile>(std::make_unique<FailFile>(std::move(f), FailPlan{at, mode, true, 0}));
      };
      {
        AtomicFile f(path, true, wrap);
        CHECK_THROWS_AS((write_all(f), f.commit()), Error);
      }
      CHECK(slurp(path) == old);
      CHECK(files_in(dir.path()) == 1);  // the temporary file is gone too
    }
  }
  SECTION("the rename fails") {
    {
      AtomicFile f(path);
      write_all(f);
      std::filesystem::remove(f.temp_path());
      CHECK_THROWS_AS(f.commit(), Error);
    }
    CHECK(slurp(path) == old);
  }
  SECTION("refusing to replace") {
    {
      AtomicFile f(path, false);
      write_all(f);
      try {
        f.commit();
        FAIL("replaced an existing file");
      } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::Busy);
      }
    }
    CHECK(slurp(path) == old);
    CHECK(files_in(dir.path()) == 1);
  }
  SECTION("not committed") {
    {
      AtomicFile f(path);
      write_all(f);
    }
    CHECK(slurp(path) == old);
    CHECK(files_in(dir.path()) == 1);
  }
  SECTION("committed") {
    {
      AtomicFile f(path, false);
      std::filesystem::remove(path);
      write_all(f);
      f.commit();
    }
    CHECK(slurp(path) == std::string(data.begin(), data.end()));
    CHECK(files_in(dir.path()) == 1);
  }
  SECTION("a fixed temporary path left over by a crash is truncated and reused") {
    const std::string tmp = path + ".tmp";
    spit(tmp, std::string(200000, 'x'));
    {
      AtomicFile f(path, true, {}, tmp);
      f.file().write_at(0, data.data(), 10);
      f.commit();
    }
    CHECK(slurp(path) == std::string(data.begin(), data.begin() + 10));
    CHECK_FALSE(std::filesystem::exists(tmp));
  }
  SECTION("a missing folder") {
    CHECK_THROWS_AS(AtomicFile(dir.file("no/such/folder/x")), Error);
  }
}

TEST_CASE("io: ByteWriter and ByteReader, both byte orders, bounded", "[io]") {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.u8(0x01);
  w.u16le(0x0302);
  w.u32le(0x07060504);
  w.u64le(0x0f0e0d0c0b0a0908);
  w.u16be(0x1011);
  w.u32be(0x12131415);
  w.u64be(0x161718191a1b1c1d);
  w.bytes("\x1e\x1f", 2);
  REQUIRE(out.size() == 31);
  for (size_t i = 0; i < out.size(); ++i) CHECK(out[i] == i + 1);
  CHECK(w.size() == 31);

  ByteReader r(out.data(), out.size(), "thing");
  CHECK(r.u8() == 0x01);
  CHECK(r.u16le() == 0x0302);
  CHECK(r.u32le() == 0x07060504);
  CHECK(r.u64le() == 0x0f0e0d0c0b0a0908);
  CHECK(r.u16be() == 0x1011);
  CHECK(r.u32be() == 0x12131415);
  CHECK(r.u64be() == 0x161718191a1b1c1d);
  CHECK(r.left() == 2);
  // Short input: a clean Format error, nothing consumed.
  try {
    r.u32le();
    FAIL("read past the end");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Format);
    CHECK(std::string(e.what()) == "thing: truncated");
  }
  CHECK_THROWS_AS(r.take(SIZE_MAX), Error);  // a length from the input cannot wrap the bound
  CHECK(r.left() == 2);
  uint8_t two[2];
  r.bytes(two, 2);
  CHECK(two[1] == 0x1f);
  CHECK(r.done());
  CHECK_THROWS_AS(r.u8(), Error);

  uint8_t fixed[6];
  ByteWriter f(fixed, sizeof fixed, "spec");
  f.u32be(0xdeadbeef);
  try {
    f.u32le(1);
    FAIL("wrote past the buffer");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "spec: too long");
  }
  f.u16le(0x4241);
  CHECK(f.size() == 6);
  CHECK(fixed[0] == 0xde);
  CHECK(fixed[5] == 0x42);
}

TEST_CASE("io: a re-encryption journal written before the shared serialiser still parses, byte for byte", "[io][reencrypt]") {
  const std::vector<uint8_t> old = wvtest::read_binary(fixture_path("reencrypt_journal_v1.bin"));
  std::vector<uint8_t> prot;
  const reenc::Journal want = fixture_journal(prot);
  const reenc::MacKey key = fixture_mac_key();

  const reenc::Journal got = reenc::parse_journal(old);
  CHECK(reenc::verify_journal_mac(old, got, key));
  CHECK(got.unit_hash == reenc::UnitHash::Sha256_128);
  CHECK(got.resilience == want.resilience);
  CHECK(got.container_size == want.container_size);
  CHECK(got.hotzone == want.hotzone);
  CHECK(got.range_offset == want.range_offset);
  CHECK(got.range_size == want.range_size);
  CHECK(got.range_first_unit == want.range_first_unit);
  REQUIRE(got.parts.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const reenc::PartRecord &a = got.parts[i], &b = want.parts[i];
    CHECK(a.slot == b.slot);
    CHECK(a.old_format == b.old_format);
    CHECK(a.old_chain == b.old_chain);
    CHECK(a.old_prf == b.old_prf);
    CHECK(a.new_chain == b.new_chain);
    CHECK(a.new_prf == b.new_prf);
    CHECK(a.data_offset == b.data_offset);
    CHECK(a.data_size == b.data_size);
    CHECK(a.first_unit == b.first_unit);
    CHECK(a.orig_primary == b.orig_primary);
    CHECK(a.orig_backup == b.orig_backup);
    CHECK(a.marked_primary == b.marked_primary);
    CHECK(a.marked_backup == b.marked_backup);
    CHECK(a.final_primary == b.final_primary);
    CHECK(a.final_backup == b.final_backup);
  }
  CHECK(got.state.seq == want.state.seq);
  CHECK(got.state.phase == want.state.phase);
  CHECK(got.state.progress == want.state.progress);
  CHECK(got.state.hot_offset == want.state.hot_offset);
  CHECK(got.state.hot_size == want.state.hot_size);
  CHECK(got.state.has_sentinel == want.state.has_sentinel);
  CHECK(got.state.sentinel == want.state.sentinel);
  REQUIRE(got.state.protection_size == prot.size());
  CHECK(std::memcmp(got.state.protection, prot.data(), prot.size()) == 0);

  // And today's serialiser writes the same bytes.
  const reenc::JournalBytes jb = reenc::serialize_journal(want, key);
  std::vector<uint8_t> now(jb.prefix);
  now.insert(now.end(), jb.protection, jb.protection + jb.protection_size);
  now.insert(now.end(), jb.mac.begin(), jb.mac.end());
  CHECK(now == old);

  // Cut anywhere: a Format error, never a read past the buffer.
  for (size_t n : {size_t(0), size_t(8), size_t(100), old.size() / 2, old.size() - 65, old.size() - 1}) {
    std::vector<uint8_t> cut(old.begin(), old.begin() + long(n));
    CHECK_THROWS_AS(reenc::parse_journal(cut), Error);
  }
}

TEST_CASE("io: a two-slot re-encryption journal (format version 3): each slot on its own, the newest authentic wins",
          "[io][reencrypt]") {
  std::vector<uint8_t> prot;
  const reenc::Journal j = fixture_journal(prot);
  const reenc::MacKey key = fixture_mac_key();
  const reenc::JournalFixed fixed = reenc::serialize_fixed(j);
  const reenc::JournalLayout& L = fixed.layout;
  REQUIRE(L.fixed_size % 4096 == 0);
  REQUIRE(L.capacity >= prot.size());
  std::vector<uint8_t> file(size_t(L.file_size()), 0);
  std::copy(fixed.bytes.begin(), fixed.bytes.end(), file.begin());
  // Slot 0: the fixture's state (a hot zone with checksum entries), sequence 5. Slot 1: a safe point after it.
  reenc::JournalState s0 = j.state, s1;
  s0.seq = 5;
  s1.seq = 6;
  s1.phase = reenc::Phase::Data;
  s1.progress = s1.hot_offset = s0.hot_offset + s0.hot_size;
  s1.has_sentinel = true;
  std::copy(prot.begin(), prot.end(), file.begin() + long(L.protection_offset(0)));
  auto put = [&](std::vector<uint8_t>& f, unsigned slot, const reenc::JournalState& st, const reenc::Digest& d) {
    const auto rec = reenc::serialize_slot(fixed, slot, st, d, key);
    REQUIRE(rec.size() == reenc::kSlotRecordBytes);
    std::copy(rec.begin(), rec.end(), f.begin() + long(L.slot_offset(slot)));
  };
  put(file, 0, s0, reenc::protection_digest(prot.data(), prot.size()));
  put(file, 1, s1, reenc::protection_digest(nullptr, 0));

  const reenc::LoadedJournal lj = reenc::parse_journal_file(file);
  CHECK(lj.version == reenc::kSlotJournalVersion);
  CHECK(lj.job.unit_hash == j.unit_hash);
  CHECK(lj.job.range_size == j.range_size);
  REQUIRE(lj.job.parts.size() == 2);
  CHECK(lj.job.parts[1].final_backup == j.parts[1].final_backup);
  REQUIRE(lj.slots.size() == 2);
  auto newest = reenc::newest_authentic_slot(file, lj, key);
  REQUIRE(newest);
  CHECK(newest->index == 1);
  CHECK(newest->state.seq == 6);
  CHECK(newest->state.progress == s1.progress);

  // Another key authenticates nothing.
  reenc::MacKey other = key;
  other[0] ^= 1;
  CHECK_FALSE(reenc::newest_authentic_slot(file, lj, other));

  // Slot 1's record torn: slot 0 holds the state, with its protection.
  auto torn = file;
  torn[size_t(L.slot_offset(1)) + 20] ^= 0x40;
  auto lt = reenc::parse_journal_file(torn);
  newest = reenc::newest_authentic_slot(torn, lt, key);
  REQUIRE(newest);
  CHECK(newest->index == 0);
  CHECK(newest->state.seq == 5);
  REQUIRE(newest->state.protection_size == prot.size());
  CHECK(std::memcmp(newest->state.protection, prot.data(), prot.size()) == 0);
  // ... and slot 0's protection half overwritten too: nothing authentic.
  torn[size_t(L.protection_offset(0)) + prot.size() / 2] ^= 1;
  lt = reenc::parse_journal_file(torn);
  CHECK_FALSE(reenc::newest_authentic_slot(torn, lt, key));
  // The fixed part is under every slot's MAC.
  auto fixed_flip = file;
  fixed_flip[200] ^= 1;
  try {
    lt = reenc::parse_journal_file(fixed_flip);
    CHECK_FALSE(reenc::newest_authentic_slot(fixed_flip, lt, key));
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Format);
  }
  // A record that does not parse is no candidate; with neither, the file is refused.
  auto garbage = file;
  std::fill_n(garbage.begin() + long(L.slot_offset(1)), 16, uint8_t(0xff));
  CHECK(reenc::parse_journal_file(garbage).slots.size() == 1);
  std::fill_n(garbage.begin() + long(L.slot_offset(0)), 16, uint8_t(0xff));
  CHECK_THROWS_AS(reenc::parse_journal_file(garbage), Error);
  // Exact size only; cut anywhere: a Format error, never a read past the buffer.
  auto longer = file;
  longer.push_back(0);
  CHECK_THROWS_AS(reenc::parse_journal_file(longer), Error);
  for (size_t n : {size_t(0), size_t(8), size_t(12), size_t(100), size_t(L.fixed_size), size_t(L.slot_offset(1)) + 10,
                   file.size() - 1}) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + long(n));
    CHECK_THROWS_AS(reenc::parse_journal_file(cut), Error);
  }
}

TEST_CASE("io: a mount spec written before the shared serialiser still parses, byte for byte", "[io][mount]") {
  const std::vector<uint8_t> old = wvtest::read_binary(fixture_path("mount_spec_v1.bin"));
  REQUIRE(old.size() > 8);
  const mount::MountSpec want = fixture_spec();
  const mount::MountSpec got = mount::parse_spec(old.data() + 8, old.size() - 8);
  CHECK(got.slot == want.slot);
  CHECK(got.container == want.container);
  CHECK(got.aux_dir == want.aux_dir);
  CHECK(got.state_file == want.state_file);
  CHECK(got.read_only == want.read_only);
  CHECK(got.direct_io == want.direct_io);
  CHECK(got.engine == want.engine);
  CHECK(got.chain == want.chain);
  REQUIRE(got.legacy.has_value());
  CHECK(got.legacy->ea == want.legacy->ea);
  CHECK(got.legacy->mode == want.legacy->mode);
  REQUIRE(got.key_material.size() == want.key_material.size());
  CHECK(std::memcmp(got.key_material.data(), want.key_material.data(), want.key_material.size()) == 0);
  CHECK(got.data_offset == want.data_offset);
  CHECK(got.data_size == want.data_size);
  CHECK(got.first_unit == want.first_unit);
  CHECK(got.sector_size == want.sector_size);
  CHECK(got.protect == want.protect);
  CHECK(got.protect_start == want.protect_start);
  CHECK(got.protect_end == want.protect_end);
  CHECK(got.uid == want.uid);
  CHECK(got.gid == want.gid);
  CHECK(got.allow_other == want.allow_other);

  // write_spec sends the same bytes, and read_spec reads them back through a pipe.
  Pipe p;
  mount::write_spec(p.w, want);
  ::close(p.w);
  p.w = -1;
  std::vector<uint8_t> now(old.size() + 10);
  REQUIRE(read_full(p.r, now.data(), now.size()) == ssize_t(old.size()));
  now.resize(old.size());
  CHECK(now == old);
  Pipe q;
  REQUIRE(write_full(q.w, old.data(), old.size()) == ssize_t(old.size()));
  CHECK(mount::read_spec(q.r).container == want.container);
  for (size_t n : {size_t(0), size_t(7), size_t(50), old.size() / 2, old.size() - 9})
    CHECK_THROWS_AS(mount::parse_spec(old.data() + 8, n), Error);
}

TEST_CASE("io: a mount spec carries an unfinished system encryption's encrypted part, others keep their bytes",
          "[io][mount][system]") {
  const std::vector<uint8_t> old = wvtest::read_binary(fixture_path("mount_spec_v1.bin"));
  mount::MountSpec s = fixture_spec();
  CHECK(mount::parse_spec(old.data() + 8, old.size() - 8).encrypted_end == UINT64_MAX);
  s.encrypted_begin = 0;
  s.encrypted_end = 51200;
  Pipe p;
  mount::write_spec(p.w, s);
  ::close(p.w);
  p.w = -1;
  const mount::MountSpec got = mount::read_spec(p.r);
  CHECK(got.encrypted_begin == 0);
  CHECK(got.encrypted_end == 51200);
  CHECK(got.allow_other == s.allow_other);
  // The extent is two words after the last field; one word alone, or begin past end, is malformed.
  std::vector<uint8_t> body(old.begin() + 8, old.end());
  for (int k = 0; k < 8; ++k) body.push_back(0);
  CHECK_THROWS_AS(mount::parse_spec(body.data(), body.size()), Error);
  for (int k = 0; k < 8; ++k) body.push_back(0);
  body[old.size() - 8] = 9;  // begin 9 > end 0
  CHECK_THROWS_AS(mount::parse_spec(body.data(), body.size()), Error);
}


TEST_CASE("io: copy_range_from copies a range between two files inside the kernel, or says it cannot", "[io]") {
  wvtest::TempDir dir;
  const auto data = pattern(3 << 20, 11);
  {
    std::ofstream a(dir.file("src"), std::ios::binary);
    a.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
    std::ofstream b(dir.file("dst"), std::ios::binary);
    const std::vector<char> zeros(1 << 20, 0);
    b.write(zeros.data(), std::streamsize(zeros.size()));
  }
  auto src = open_file(dir.file("src"), OpenMode::ReadOnly);
  auto dst = open_file(dir.file("dst"), OpenMode::ReadWrite);
  // 2 MiB + 5 bytes from offset 12345 of src to offset 4096 of dst: past dst's end, which grows.
  const uint64_t from = 12345, to = 4096, len = (2 << 20) + 5;
  REQUIRE(dst->copy_range_from(*src, from, to, len));
  CHECK(dst->size() == to + len);
  std::vector<uint8_t> got(len), before(to);
  dst->read_at(to, got.data(), got.size());
  CHECK(std::equal(got.begin(), got.end(), data.begin() + from));
  dst->read_at(0, before.data(), before.size());
  CHECK(std::all_of(before.begin(), before.end(), [](uint8_t b) { return b == 0; }));
  // A source range past its end is an error, and nothing is copied.
  CHECK_THROWS_AS(dst->copy_range_from(*src, data.size() - 10, 0, 11), Error);
  // Another kind of file (a test wrapper) cannot: false, and the caller reads and writes.
  FailFile wrapped(open_file(dir.file("src"), OpenMode::ReadOnly), FailPlan{});
  CHECK_FALSE(dst->copy_range_from(wrapped, 0, 0, 512));
  CHECK_FALSE(wrapped.copy_range_from(*src, 0, 0, 512));
}
