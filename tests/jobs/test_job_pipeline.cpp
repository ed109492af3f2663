// The job data paths against an independent oracle (XtsChain, one unit at a time in order): the streaming read
// path (core/job/stream.h: export) in order and out of order with several workers, the create/import fill
// (core/create/fill.h) on the engine's own buffers, and --engine auto's scheduler (core/engine/auto_engine.h) with
// two engines taking one job's requests. With a CUDA device: the GPU engine's pinned job buffers, through the same
// paths and through auto, give byte-identical output to the CPU engine ([gpu]; a visible skip without a device).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "core/create/fill.h"
#include "core/crypto/chain.h"
#include "core/crypto/unit_xxh3.h"
#include "core/engine/auto_engine.h"
#include "core/engine/cpu_engine.h"
#include "core/engine/engine_factory.h"
#include "core/io/file.h"
#include "core/job/stream.h"
#include "core/util/aligned_buffer.h"
#include "core/util/cores.h"
#include "tests/support/forwarding_file.h"
#include "tests/support/test_support.h"
#include "tests/support/thread_checks.h"
#ifdef WARPVOL_HAVE_GPU
#include "gpu/gpu_engine.h"
#endif

using namespace warpvol;
using namespace std::chrono_literals;

namespace {

std::vector<uint8_t> noise_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t x = rng();
    std::memcpy(&v[i], &x, std::min<size_t>(8, n - i));
  }
  return v;
}

struct Area {
  ChainId chain;
  std::vector<uint8_t> key = noise_bytes(2 * 3 * 32, 7);
  uint64_t first_unit = 300;  // as a normal volume's data area at 128 KiB + 22 units
  std::vector<uint8_t> plain, cipher;
  Area(ChainId c, size_t bytes) : chain(c), plain(noise_bytes(bytes, 11)) {
    cipher = plain;
    XtsChain x(chain, key.data());
    for (size_t u = 0; u < cipher.size() / kDataUnitSize; ++u)  // the oracle: one unit at a time, in order
      x.encrypt(first_unit + u, cipher.data() + u * kDataUnitSize, 1);
  }
};

// Decrypts the area through stream_area from a file into a byte vector (ordered or positioned sink).
std::vector<uint8_t> stream_decrypt(XtsEngine& e, const Area& a, const std::string& path, bool ordered,
                                    unsigned workers, size_t chunk) {
  {
    auto f = open_file(path, OpenMode::CreateTruncate);
    f->write_at(0, a.cipher.data(), a.cipher.size());
  }
  auto f = open_file(path, OpenMode::ReadOnly);
  std::vector<uint8_t> out(a.cipher.size(), 0xEE);
  std::mutex mu;
  uint64_t expect = 0;
  bool in_order = true;
  StreamOptions so;
  so.chunk_bytes = chunk;
  so.workers = workers;
  so.ordered = ordered;
  stream_area(
      a.cipher.size(), [&](uint64_t pos, uint8_t* buf, size_t len) { f->read_at(pos, buf, len); }, &e,
      e.prepare(a.chain, a.key.data()), Direction::Decrypt, a.first_unit,
      [&](uint64_t pos, const uint8_t* buf, size_t len) {
        std::lock_guard<std::mutex> lk(mu);
        in_order &= pos == expect;
        expect = pos + len;
        std::memcpy(out.data() + pos, buf, len);
      },
      so);
  if (ordered) CHECK(in_order);
  return out;
}

// Encrypts the area's plaintext with the create/import fill into a file; returns the file's bytes. `summary`: the
// stream's summary line (the shape it ran).
std::vector<uint8_t> fill_encrypt(XtsEngine& e, const Area& a, const std::string& path,
                                  std::string* summary = nullptr) {
  auto f = open_file(path, OpenMode::CreateTruncate);
  FillOptions fo;
  fo.chunk_bytes = size_t(1) << 20;
  if (summary) fo.summary = [summary](const std::string& m) { *summary = m; };
  encrypt_to_file(*f, 0, a.plain.size(), a.first_unit, e, e.prepare(a.chain, a.key.data()),
                  [&](uint64_t pos, uint8_t* buf, size_t len) { std::memcpy(buf, a.plain.data() + pos, len); }, fo);
  std::vector<uint8_t> got(a.plain.size());
  f->read_at(0, got.data(), got.size());
  return got;
}

// A CPU engine that reports four callers: it stands in for the GPU's pipeline.
struct WideEngine : CpuEngine {
  WideEngine() : CpuEngine(1) {}
  unsigned concurrency() const override { return 4; }
};

// Ring buffers for a ChunkTransform that count what stream_area makes and gives back: how many, how many on the
// thread that built this (the caller of stream_area), and how many came back holding anything but zeros.
struct CountedBuffers {
  std::mutex mu;
  const std::thread::id caller = std::this_thread::get_id();
  int made = 0, made_by_caller = 0, given_back = 0, dirty = 0;
  std::function<IoBuffer(size_t)> factory() {
    return [this](size_t n) {
      {
        std::lock_guard<std::mutex> lk(mu);
        ++made;
        made_by_caller += std::this_thread::get_id() == caller;
      }
      auto* p = new uint8_t[n];
      return IoBuffer(p, n, [this, n](uint8_t* q, size_t) {
        std::lock_guard<std::mutex> lk(mu);
        ++given_back;
        dirty += std::any_of(q, q + n, [](uint8_t b) { return b != 0; });
        delete[] q;
      }, false);
    };
  }
};

}  // namespace

TEST_CASE("job stream: export's read path equals the oracle, in order and positioned, any worker count", "[job]") {
  wvtest::TempDir dir;
  CpuEngine cpu;
  // 5 MiB + 3 units: a short last chunk; 1 MiB chunks so that the ring wraps several times.
  Area a(ChainId::AesTwofishSerpent, (size_t(5) << 20) + 3 * kDataUnitSize);
  for (bool ordered : {true, false})
    for (unsigned workers : {1u, 2u, 5u}) {
      INFO((ordered ? "ordered" : "positioned") << " sink, " << workers << " workers");
      CHECK(stream_decrypt(cpu, a, dir.file("c"), ordered, workers, size_t(1) << 20) == a.plain);
    }
}

TEST_CASE("job stream: ring buffers are made by the workers, wiped, and all given back before it returns", "[job]") {
  // 9 chunks through rings of 4 (ordered) and of one per worker (positioned): a buffer made once per slot, never
  // more; each one given back holding zeros; none left when stream_area returns.
  const size_t chunk = size_t(64) << 10;
  std::vector<uint8_t> src(9 * chunk);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 131 + 7);
  std::vector<uint8_t> want(src);
  for (auto& b : want) b ^= 0x5A;
  for (bool ordered : {true, false}) {
    INFO((ordered ? "ordered" : "positioned") << " sink");
    CountedBuffers bufs;
    ChunkTransform t;
    t.fn = [](uint64_t, uint8_t* buf, size_t len) {
      for (size_t i = 0; i < len; ++i) buf[i] ^= 0x5A;
    };
    t.slots = 2;
    t.buffer = bufs.factory();
    StreamOptions so;
    so.chunk_bytes = chunk;
    so.workers = 3;
    so.ordered = ordered;
    so.in_flight = 4;
    std::vector<uint8_t> out(src.size());
    stream_area(
        src.size(), [&](uint64_t pos, uint8_t* buf, size_t len) { std::memcpy(buf, src.data() + pos, len); }, t,
        [&](uint64_t pos, const uint8_t* buf, size_t len) { std::memcpy(out.data() + pos, buf, len); }, so);
    CHECK(out == want);
    CHECK(bufs.made >= 1);
    CHECK(bufs.made_by_caller == 0);  // made beside the first reads, in parallel
    CHECK(bufs.made <= (ordered ? 4 : 3 + 2));  // ordered: the ring's slots; positioned: one per worker (+ spare)
    CHECK(bufs.given_back == bufs.made);
    CHECK(bufs.dirty == 0);
  }
}

TEST_CASE("job stream: a transform over the caller's region (a re-encryption hot zone) equals the oracle", "[job]") {
  CpuEngine cpu;
  // 3 MiB + 7 units in 256 KiB pieces: every piece read, transformed and handed to the sink in place.
  Area a(ChainId::Serpent, (size_t(3) << 20) + 7 * kDataUnitSize);
  auto key = cpu.prepare(a.chain, a.key.data());
  for (bool ordered : {true, false})
    for (unsigned workers : {1u, 3u}) {
      INFO((ordered ? "ordered" : "positioned") << " sink, " << workers << " workers");
      std::vector<uint8_t> region(a.cipher.size(), 0xEE);
      std::vector<uint8_t> seen(a.cipher.size(), 0);
      wvtest::ThreadChecks checks;  // the source and sink run on the stream's workers
      StreamOptions so;
      so.chunk_bytes = size_t(256) << 10;
      so.workers = workers;
      so.ordered = ordered;
      so.region = region.data();
      ChunkTransform t;
      t.fn = [&](uint64_t pos, uint8_t* buf, size_t len) {
        cpu.process(*key, Direction::Decrypt, a.first_unit + pos / kDataUnitSize, buf, len / kDataUnitSize);
      };
      t.slots = 2;
      stream_area(
          a.cipher.size(), [&](uint64_t pos, uint8_t* buf, size_t len) {
            checks.expect(buf == region.data() + pos, "a read not into its place in the region");
            std::memcpy(buf, a.cipher.data() + pos, len);
          },
          t,
          [&](uint64_t pos, const uint8_t* buf, size_t len) {
            checks.expect(buf == region.data() + pos, "a sink given another buffer than its place in the region");
            std::memcpy(seen.data() + pos, buf, len);
          },
          so);
      CHECK(checks.failures() == "");
      CHECK(region == a.plain);
      CHECK(seen == a.plain);
    }
}

namespace {

// The most calls of a stage that were under way at once.
struct Overlap {
  std::atomic<int> now{0}, most{0};
  void enter() {
    const int n = ++now;
    int m = most.load();
    while (n > m && !most.compare_exchange_weak(m, n)) {
    }
  }
  void leave() { --now; }
};

}  // namespace

TEST_CASE("job stream: an unordered sink limited to one thread is never called twice at once", "[job]") {
  // A regular file's writers serialise on its inode lock and spin while they wait (BlockFile::parallel_writes):
  // fill and re-encryption write such a file from one thread at a time.
  const size_t len = size_t(64) * 4096;
  std::vector<uint8_t> out(len, 0);
  for (unsigned limit : {0u, 1u}) {
    INFO("sink_threads " << limit);
    Overlap sinks;
    StreamOptions so;
    so.chunk_bytes = 4096;
    so.workers = 6;
    so.ordered = false;
    so.sink_threads = limit;
    stream_area(
        len, [](uint64_t pos, uint8_t* buf, size_t n) { std::memset(buf, int(pos / 4096), n); }, ChunkTransform{},
        [&](uint64_t pos, const uint8_t* buf, size_t n) {
          sinks.enter();
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          std::memcpy(out.data() + pos, buf, n);
          sinks.leave();
        },
        so);
    for (size_t k = 0; k < len / 4096; ++k) CHECK(out[k * 4096] == uint8_t(k));
    if (limit == 1) CHECK(sinks.most == 1);
    else CHECK(sinks.most > 1);  // the check above can fail: six workers do overlap without the limit
  }
}

TEST_CASE("job stream: progress from an unordered sink's workers never goes backwards", "[job][progress]") {
  // The workers of an unordered stream (the fill of create and import) each report their chunk: a --progress-json
  // reader must not see bytes_done fall from one line to the next. Small chunks from many workers, so that two
  // reports meet often; the callback is slow for a moment now and then, as a renderer's write to a terminal is.
  const size_t len = size_t(4) << 20;
  for (int run = 0; run < 4; ++run) {
    std::mutex mu;
    std::vector<uint64_t> seen;
    StreamOptions so;
    so.chunk_bytes = 512;
    so.workers = 16;
    so.ordered = false;
    so.progress = [&](const ProgressUpdate& u) {
      {
        std::lock_guard<std::mutex> lk(mu);
        seen.push_back(u.bytes_done);
      }
      if (u.bytes_done % (64 * 512) == 0) std::this_thread::yield();
    };
    stream_area(
        len, [](uint64_t, uint8_t* buf, size_t n) { std::memset(buf, 1, n); }, ChunkTransform{},
        [](uint64_t, const uint8_t*, size_t) {}, so);
    size_t backwards = 0;
    for (size_t i = 1; i < seen.size(); ++i) backwards += seen[i] < seen[i - 1];
    INFO("run " << run << ": " << seen.size() << " updates");
    CHECK(backwards == 0);
    REQUIRE(!seen.empty());
    CHECK(seen.back() == len);
  }
}

TEST_CASE("job stream: --verbose's stage line counts the workers' wait for a place in an ordered ring", "[job]") {
  // Four workers, a ring of two chunks and a sink that takes 3 ms per chunk: at most two chunks are read ahead of
  // the sink, so at least two workers wait for the ring the whole time (20 chunks: 60 ms, at least 0.12 s of
  // thread time). Unordered, nothing waits for a ring.
  const size_t chunk = 4096, len = 20 * chunk;
  for (bool ordered : {true, false}) {
    INFO("ordered " << ordered);
    StreamOptions so;
    so.chunk_bytes = chunk;
    so.workers = 4;
    so.in_flight = 2;
    so.ordered = ordered;
    so.sink_threads = 1;
    std::string line;
    so.summary = [&](const std::string& l) { line = l; };
    stream_area(
        len, [](uint64_t pos, uint8_t* buf, size_t n) { std::memset(buf, int(pos / 4096), n); }, ChunkTransform{},
        [](uint64_t, const uint8_t*, size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(3)); }, so);
    INFO(line);
    const std::string key = "waiting for a place in the ring ";
    const size_t at = line.find(key);
    REQUIRE(at != std::string::npos);
    const double ring_wait = std::atof(line.c_str() + at + key.size());
    if (ordered) CHECK(ring_wait >= 0.1);
    else CHECK(ring_wait < 0.05);
  }
}

TEST_CASE("job stream: with a multi-caller engine, spare workers keep `workers` reads going while requests wait",
          "[job]") {
  // Three readers, an engine of two callers: five workers. A request waits (briefly) until it sees two reads
  // beside a full engine: with the reads tied to the workers in the engine (three workers, two of them in the
  // engine), at most one read could run then.
  const size_t chunk = 4096, len = 24 * chunk;
  const unsigned readers = 3, slots = 2;
  Overlap reads, engine;
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<int> reads_beside_engine{0};
  ChunkTransform t;
  t.slots = slots;
  t.fn = [&](uint64_t, uint8_t* buf, size_t n) {
    {
      std::lock_guard<std::mutex> lk(mu);
      engine.enter();
    }
    cv.notify_all();
    {
      std::unique_lock<std::mutex> lk(mu);
      const auto both = [&] { return reads.now >= 2 && engine.now >= int(slots); };
      if (cv.wait_for(lk, std::chrono::milliseconds(100), both)) ++reads_beside_engine;
    }
    for (size_t i = 0; i < n; ++i) buf[i] ^= 0x5A;
    engine.leave();
  };
  StreamOptions so;
  so.chunk_bytes = chunk;
  so.workers = readers;
  so.ordered = true;
  std::vector<uint8_t> out(len);
  stream_area(
      len,
      [&](uint64_t pos, uint8_t* buf, size_t n) {
        {
          std::lock_guard<std::mutex> lk(mu);
          reads.enter();
        }
        cv.notify_all();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        std::memset(buf, int(pos / chunk), n);
        reads.leave();
      },
      t, [&](uint64_t pos, const uint8_t* buf, size_t n) { std::memcpy(out.data() + pos, buf, n); }, so);
  for (size_t k = 0; k < len / chunk; ++k) CHECK(out[k * chunk] == uint8_t(k ^ 0x5A));
  CHECK(reads.most <= int(readers));  // the read slots bound the reads at once
  CHECK(reads_beside_engine > 0);     // two reads at once while a request was in the engine
  CHECK(engine.most <= int(slots));
}

TEST_CASE("job stream: an ordered ring holds twice the workers' chunks, or with a multi-caller engine each reader's "
          "and two per engine caller",
          "[job]") {
  // The ring's buffers come from the transform's buffer call (the engine's io_buffer), one per chunk of the ring.
  // With a GPU-like engine the smaller ring stays in the last-level cache between the read and the DMA.
  const size_t chunk = 4096, len = 64 * chunk;
  for (unsigned slots : {1u, 2u, 4u}) {
    INFO(slots << " engine callers");
    std::atomic<unsigned> buffers{0};
    ChunkTransform t;
    t.slots = slots;
    t.fn = [](uint64_t, uint8_t* buf, size_t n) {
      for (size_t i = 0; i < n; ++i) buf[i] ^= 0x5A;
    };
    t.buffer = [&](size_t n) {
      ++buffers;
      return IoBuffer::aligned(n);
    };
    StreamOptions so;
    so.chunk_bytes = chunk;
    so.workers = 3;  // readers
    std::vector<uint8_t> out(len);
    stream_area(
        len, [&](uint64_t pos, uint8_t* buf, size_t n) { std::memset(buf, int(pos / chunk), n); }, t,
        [&](uint64_t pos, const uint8_t* buf, size_t n) { std::memcpy(out.data() + pos, buf, n); }, so);
    for (size_t k = 0; k < len / chunk; ++k) CHECK(out[k * chunk + 7] == uint8_t(k ^ 0x5A));
    CHECK(buffers == (slots > 1 ? 3 + 2 * slots : 2 * 3));
  }
}

TEST_CASE("job stream: an ordered ring with engine callers reads, by default, with the cores the callers and the "
          "sink leave, within the multi-caller default and 16",
          "[job]") {
  const unsigned hw = usable_cores();
  for (unsigned callers : {2u, 4u, 8u}) {
    INFO(callers << " engine callers, " << hw << " cores");
    const unsigned r = default_ring_readers(callers);
    CHECK(r >= default_stream_workers(callers));
    CHECK(r <= 16);
    if (hw >= callers + 2 + default_stream_workers(callers) && hw - callers - 2 <= 16) CHECK(r == hw - callers - 2);
  }
  // The stream uses it (its stage line says how many readers ran); the workers' shape of an unordered stream keeps
  // the multi-caller default.
  const size_t chunk = 4096, len = 64 * chunk;
  for (bool ordered : {true, false}) {
    INFO("ordered " << ordered);
    ChunkTransform t;
    t.slots = 4;
    t.fn = [](uint64_t, uint8_t*, size_t) {};
    StreamOptions so;
    so.chunk_bytes = chunk;
    so.ordered = ordered;
    std::string line;
    so.summary = [&](const std::string& l) { line = l; };
    stream_area(
        len, [](uint64_t, uint8_t* buf, size_t n) { std::memset(buf, 1, n); }, t,
        [](uint64_t, const uint8_t*, size_t) {}, so);
    INFO(line);
    char said[64];
    if (ordered) std::snprintf(said, sizeof said, "%u readers,", default_ring_readers(4));
    else std::snprintf(said, sizeof said, "(%u reading at once)", default_stream_workers(4));
    CHECK(line.find(said) != std::string::npos);
  }
}

TEST_CASE("files: a regular file takes one writer at a time, the fill writes it so", "[job]") {
  wvtest::TempDir dir;
  auto f = open_file(dir.file("w"), OpenMode::CreateNew);
  CHECK_FALSE(f->parallel_writes());
  // The fill through a wrapper that records overlapping writes: four workers, one write at a time.
  struct Watch final : wvtest::ForwardingFile {
    Overlap& o;
    Watch(std::unique_ptr<BlockFile> f, Overlap& ov) : ForwardingFile(std::move(f)), o(ov) {}
    void write_at(uint64_t off, const uint8_t* b, size_t n) override {
      o.enter();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      inner().write_at(off, b, n);
      o.leave();
    }
  };
  Overlap writes;
  Watch w(std::move(f), writes);
  CpuEngine cpu(2);
  Area a(ChainId::Serpent, size_t(1) << 20);
  FillOptions fo;
  fo.chunk_bytes = 64 << 10;
  fo.writers = 4;
  fo.sync_every = 0;
  encrypt_to_file(w, 0, a.plain.size(), a.first_unit, cpu, cpu.prepare(a.chain, a.key.data()),
                  [&](uint64_t pos, uint8_t* buf, size_t len) { std::memcpy(buf, a.plain.data() + pos, len); }, fo);
  std::vector<uint8_t> got(a.plain.size());
  w.read_at(0, got.data(), got.size());
  CHECK(got == a.cipher);
  CHECK(writes.most == 1);
}

TEST_CASE("auto engine: keys that never go to the GPU get the CPU engine's buffers and one caller", "[job][auto]") {
  // Two CPU engines stand in for the CPU and the GPU; the "GPU" reports four callers. AES never goes to it (the
  // built-in crossover), Serpent from 256 KiB.
  auto cpu = std::make_shared<CpuEngine>(1);
  auto wide = std::make_shared<WideEngine>();
  AutoEngine eng(cpu, wide, crossover_from_json(""));
  auto key_material = noise_bytes(2 * 3 * 32, 3);
  auto aes = eng.prepare(ChainId::Aes, key_material.data());
  auto serpent = eng.prepare(ChainId::Serpent, key_material.data());
  CHECK(eng.concurrency_for(*aes) == 1);
  CHECK(eng.concurrency_for(*serpent) == 4);  // the GPU's callers; a request the CPU takes holds one of them
  CHECK(eng.concurrency_for(*aes, serpent.get()) == 4);  // a re-encryption AES -> Serpent uses the GPU
  CHECK(eng.concurrency_for(*aes, aes.get()) == 1);
  CHECK(default_stream_workers(eng.concurrency_for(*aes)) == default_stream_workers());
}

TEST_CASE("auto engine: a job bound by one writer runs on the CPU engine alone where it keeps up, else as before",
          "[job][auto]") {
  // Two CPU engines stand in for the CPU and the GPU, which reports four callers; every chain may go to the "GPU"
  // from 64 KiB. The rate the CPU engine must reach is set per section (its measured rate depends on the machine).
  struct Wide : WideEngine {
    IoBuffer io_buffer(size_t bytes) override {  // marked page-locked, as the GPU engine's
      auto* b = new AlignedBuffer(bytes);
      return IoBuffer(b->data(), b->size(), [b](uint8_t*, size_t) { delete b; }, true);
    }
  };
  wvtest::TempDir dir;
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  std::vector<std::string> lines;
  auto eng = std::make_shared<AutoEngine>(std::make_shared<CpuEngine>(1), std::make_shared<Wide>(), crossover,
                                          [&](const std::string& m) { lines.push_back(m); });
  Area a(ChainId::Serpent, size_t(8) << 20);
  const auto to_material = noise_bytes(2 * 32, 9);
  auto serpent = eng->prepare(a.chain, a.key.data());
  auto twofish = eng->prepare(ChainId::Twofish, to_material.data());
  auto said = [&](const char* what) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.find("writes one file from one thread") != std::string::npos && l.find(what) != std::string::npos;
    });
  };
  SECTION("a CPU engine above the rate takes every request, with its buffers and one caller") {
    eng->set_one_writer(true, 1.0);
    CHECK(eng->concurrency_for(*serpent) == 1);
    CHECK(eng->concurrency_for(*serpent, twofish.get()) == 1);
    CHECK(!eng->io_buffer_for(size_t(1) << 20, *serpent).pinned());
    CHECK(stream_decrypt(*eng, a, dir.file("c"), true, 3, size_t(1) << 20) == a.plain);
    CHECK(fill_encrypt(*eng, a, dir.file("f")) == a.cipher);
    auto expect = a.plain;
    XtsChain(ChainId::Twofish, to_material.data()).encrypt(a.first_unit, expect.data(), expect.size() / kDataUnitSize);
    auto buf = a.cipher;
    eng->reencrypt(*serpent, *twofish, a.first_unit, buf.data(), buf.size() / kDataUnitSize);
    CHECK(buf == expect);
    CHECK(eng->gpu_bytes() == 0);
    CHECK(eng->cpu_bytes() == 0);  // the CPU engine's own path, not auto's scheduler
    CHECK(said("it takes the whole job"));
    // The re-encryption's rate is that of both passes: below either pass's alone.
    const ChainId tf = ChainId::Twofish;
    const double pair = eng->cpu_job_rate(a.chain, &tf), one = eng->cpu_job_rate(a.chain, nullptr);
    CHECK(pair > 0);
    CHECK(pair < one);
  }
  SECTION("a CPU engine below the rate leaves the requests to auto's rule, and the GPU takes them") {
    eng->set_one_writer(true, 1e18);
    CHECK(eng->concurrency_for(*serpent) == 4);
    CHECK(eng->concurrency_for(*serpent, twofish.get()) == 4);
    CHECK(eng->io_buffer_for(size_t(1) << 20, *serpent).pinned());
    auto buf = a.cipher;
    eng->process(*serpent, Direction::Decrypt, a.first_unit, buf.data(), buf.size() / kDataUnitSize);
    CHECK(buf == a.plain);
    CHECK(eng->gpu_bytes() > 0);
    CHECK(said("the GPU takes part"));
  }
  SECTION("not a one-writer job, or WARPVOL_AUTO_ONE_WRITER=off: as before, and the CPU engine is not measured") {
    {
      wvtest::ScopedEnv off("WARPVOL_AUTO_ONE_WRITER", "off");
      eng->set_one_writer(true, 1.0);
    }
    CHECK(eng->concurrency_for(*serpent) == 4);
    eng->set_one_writer(false, 1.0);
    CHECK(eng->concurrency_for(*serpent, twofish.get()) == 4);
    CHECK(lines.empty());
  }
}

TEST_CASE("auto engine: a probe of the CPU engine slowed by other work does not decide a one-writer job",
          "[job][auto]") {
  // The CPU engine's first probe of decryption (the rate the rule reads) runs slowed (a sleep in each of its passes:
  // the job's first reads and writes, or a neighbour, on its cores); the best of the probes is its rate, and the
  // job stays on it.
  struct Slowed : CpuEngine {
    Slowed() : CpuEngine(1) {}
    std::atomic<int> slow{2};  // the warm-up and the first timed window (one pass outlasts the window's time)
    void process(const EngineKey& k, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) override {
      if (d == Direction::Decrypt && slow.fetch_sub(1) > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      CpuEngine::process(k, d, unit0, data, nunits);
    }
  };
  CpuEngine plain(1);
  const double clean =
      measure_engine(plain, ChainId::Serpent, AutoEngine::kRateProbeBytes, AutoEngine::kRateProbeSeconds)
          .decrypt_MBps * 1e6;
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  auto slowed = std::make_shared<Slowed>();
  AutoEngine eng(slowed, std::make_shared<WideEngine>(), crossover);
  // A fifth of the clean rate: far above the slowed probe's (4 MiB per 50 ms), far below a clean probe's.
  eng.set_one_writer(true, clean / 5);
  const auto material = noise_bytes(2 * 32, 11);
  auto serpent = eng.prepare(ChainId::Serpent, material.data());
  CHECK(eng.concurrency_for(*serpent) == 1);  // the CPU engine takes the job
  CHECK(slowed->slow.load() < 0);             // every probe ran, the slowed one first
  CHECK(eng.cpu_job_rate(ChainId::Serpent, nullptr) > clean / 5);
}

// An engine that counts its passes each way and notes whether a decryption was handed all-zero data.
struct CountingEngine : CpuEngine {
  CountingEngine() : CpuEngine(1) {}
  std::atomic<int> encrypts{0}, decrypts{0};
  std::atomic<bool> zeros_decrypted{false};
  void process(const EngineKey& k, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) override {
    if (d == Direction::Encrypt) {
      ++encrypts;
    } else {
      ++decrypts;
      if (std::all_of(data, data + nunits * kDataUnitSize, [](uint8_t b) { return b == 0; })) zeros_decrypted = true;
    }
    CpuEngine::process(k, d, unit0, data, nunits);
  }
};

TEST_CASE("engine rate: only the directions asked for are timed, never on zeros", "[job][auto]") {
  CountingEngine e;
  const EngineRate dec = measure_engine(e, ChainId::Twofish, 64 * 1024, 1e-4, {}, 3, RatePasses::Decrypt);
  CHECK(dec.decrypt_MBps > 0);
  CHECK(dec.encrypt_MBps == 0);
  CHECK(e.encrypts == 1);     // the pass that makes the data
  CHECK(e.decrypts >= 1 + 3);  // the warm-up and three windows
  CHECK_FALSE(e.zeros_decrypted);
  CountingEngine both;
  const EngineRate r = measure_engine(both, ChainId::Aes, 64 * 1024, 1e-4);
  CHECK(r.encrypt_MBps > 0);
  CHECK(r.decrypt_MBps > 0);
  CHECK(both.encrypts >= 1 + 2);  // the data, the warm-up, a window
  CHECK_FALSE(both.zeros_decrypted);  // after the timed encryptions as well
}

TEST_CASE("auto engine: a one-writer job's probe times each pass of the CPU engine the job runs, once", "[job][auto]") {
  auto cpu = std::make_shared<CountingEngine>();
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  AutoEngine eng(cpu, std::make_shared<CpuEngine>(1), crossover);
  eng.set_one_writer(true, 1.0);
  const auto m1 = noise_bytes(2 * 32, 12), m2 = noise_bytes(2 * 32, 13);
  auto serpent = eng.prepare(ChainId::Serpent, m1.data());
  auto twofish = eng.prepare(ChainId::Twofish, m2.data());
  CHECK(eng.concurrency_for(*serpent) == 1);  // an export's decryption: no encryption timed
  CHECK(cpu->encrypts == 1);
  const int decrypts = cpu->decrypts;
  CHECK(decrypts >= 1 + int(AutoEngine::kRateProbes));
  CHECK(eng.concurrency_for(*serpent, twofish.get()) == 1);  // Serpent's decryption is known: Twofish's encryption
  CHECK(cpu->decrypts == decrypts);
  CHECK(cpu->encrypts >= 1 + 1 + 1 + int(AutoEngine::kRateProbes));
}

TEST_CASE("fill: as an ordered ring (WARPVOL_FILL_ORDERED=1) it writes the same file", "[job]") {
  // The tuning setting that gives the fill the export's shape with an engine of several callers: readers and
  // callers as threads of their own (the stream's summary says which shape ran), and the same bytes.
  wvtest::TempDir dir;
  Area a(ChainId::Twofish, size_t(12) << 20);
  WideEngine wide;
  std::string workers, ring;
  CHECK(fill_encrypt(wide, a, dir.file("workers"), &workers) == a.cipher);
  CHECK(workers.find(" workers (") != std::string::npos);
  wvtest::ScopedEnv ordered("WARPVOL_FILL_ORDERED", "1");
  CHECK(fill_encrypt(wide, a, dir.file("ring"), &ring) == a.cipher);
  CHECK(ring.find(" readers, 4 engine callers") != std::string::npos);
  CpuEngine one(1);  // one caller: the workers' shape, in order
  CHECK(fill_encrypt(one, a, dir.file("one")) == a.cipher);
}

// A CPU engine that runs at a set rate: each request takes the time the rate gives it and leaves the data as it is
// (what is under test is auto's choice, not the data). Other work on the machine can only make it slower.
struct PacedEngine : CpuEngine {
  explicit PacedEngine(double bytes_per_second) : CpuEngine(1), rate(bytes_per_second) {}
  const double rate;
  std::atomic<int> encrypts{0}, decrypts{0};
  void process(const EngineKey&, Direction d, uint64_t, uint8_t*, size_t nunits) override {
    ++(d == Direction::Encrypt ? encrypts : decrypts);
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(double(nunits) * kDataUnitSize / rate));
    while (std::chrono::steady_clock::now() < until) {
    }
  }
};

TEST_CASE("auto engine: a one-writer job's rate and the pass it times follow the kind of job", "[job][auto]") {
  // The CPU engine runs at three times a fill's rate, below an export's, and a re-encryption's two passes together
  // at half of that, below a re-encryption's rate: a create or an import stays on it, the others let the GPU (a
  // second CPU engine with four callers) take part.
  const double paced = 3 * AutoEngine::kFillCpuRate;
  REQUIRE(paced < AutoEngine::kExportCpuRate);
  REQUIRE(paced / 2 < AutoEngine::kReencryptCpuRate);
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  const auto m1 = noise_bytes(2 * 32, 14), m2 = noise_bytes(2 * 32, 15);
  auto cpu = std::make_shared<PacedEngine>(paced);
  std::vector<std::string> lines;
  AutoEngine eng(cpu, std::make_shared<WideEngine>(), crossover, [&](const std::string& m) { lines.push_back(m); });
  auto said = [&](const std::string& what) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(what) != std::string::npos; });
  };
  auto serpent = eng.prepare(ChainId::Serpent, m1.data());
  auto twofish = eng.prepare(ChainId::Twofish, m2.data());
  const int probe = 1 + int(AutoEngine::kRateProbes);  // the warm-up pass and a window each, at least
  SECTION("a create or an import: the CPU engine's encryption is timed, and it takes the job") {
    eng.set_one_writer(OneWriterJob::Fill);
    CHECK(eng.concurrency_for(*serpent) == 1);
    CHECK(cpu->decrypts == 0);
    CHECK(cpu->encrypts >= 1 + probe);  // and the pass that made the data
    CHECK(said("passes encrypting Serpent"));
    CHECK(said("(the rate for a create or an import): it takes the whole job"));
  }
  SECTION("an export to a file: the CPU engine's decryption is timed, and the GPU takes part") {
    eng.set_one_writer(OneWriterJob::ExportToFile);
    CHECK(eng.concurrency_for(*serpent) == 4);
    CHECK(cpu->encrypts == 1);
    CHECK(cpu->decrypts >= probe);
    CHECK(said("passes on Serpent"));
    CHECK(said("(the rate for an export to a file): the GPU takes part"));
  }
  SECTION("a re-encryption in place: both passes are timed, and the GPU takes part") {
    eng.set_one_writer(OneWriterJob::Reencrypt);
    CHECK(eng.concurrency_for(*serpent, twofish.get()) == 4);
    CHECK(cpu->decrypts >= probe);
    CHECK(cpu->encrypts >= 2 + probe);
    CHECK(said("re-encrypting Serpent to Twofish"));
    CHECK(said("(the rate for a re-encryption in place): the GPU takes part"));
  }
  SECTION("planned before the job's threads start (plan_job): timed then, and the job's calls keep the choice") {
    eng.set_one_writer(OneWriterJob::Fill);
    eng.plan_job(*serpent);
    const int timed = cpu->encrypts;
    CHECK(timed >= 1 + probe);
    CHECK(said("(the rate for a create or an import): it takes the whole job"));
    CHECK(eng.concurrency_for(*serpent) == 1);
    CHECK(eng.io_buffer_for(size_t(1) << 20, *serpent).size() >= size_t(1) << 20);
    CHECK(cpu->encrypts == timed);
  }
  SECTION("a calibration of this CPU engine stands in for the probe: nothing is timed, and its rate decides") {
    StoredCalibration c;
    c.cpu_rates[ChainId::Serpent] = {0, 2 * AutoEngine::kExportCpuRate / 1e6, cpu->detail()};
    eng.use_calibration(c);
    eng.set_one_writer(OneWriterJob::ExportToFile);
    CHECK(eng.concurrency_for(*serpent) == 1);
    CHECK(cpu->decrypts == 0);
    CHECK(eng.cpu_job_rate(ChainId::Serpent, nullptr) == Approx(2 * AutoEngine::kExportCpuRate));
    CHECK(said("passes on Serpent at 24.00 GB/s here (from `warpvol benchmark --calibrate`)"));
    CHECK(said("(the rate for an export to a file): it takes the whole job"));
  }
  SECTION("a calibration of another CPU engine (threads, SIMD path), or of the other direction, is not used") {
    StoredCalibration c;
    c.cpu_rates[ChainId::Serpent] = {2 * AutoEngine::kExportCpuRate / 1e6, 0, cpu->detail()};
    c.cpu_rates[ChainId::Twofish] = {0, 2 * AutoEngine::kExportCpuRate / 1e6, "64 threads, avx512 path"};
    eng.use_calibration(c);
    eng.set_one_writer(OneWriterJob::ExportToFile);
    CHECK(eng.concurrency_for(*serpent) == 4);  // Serpent's decryption was not calibrated: probed
    CHECK(eng.concurrency_for(*twofish) == 4);  // Twofish's was, by another engine: probed
    CHECK(cpu->decrypts >= 2 * probe);
    CHECK(said("(measured now; `warpvol benchmark --calibrate` stores a steadier figure)"));
    CHECK_FALSE(said("(from `warpvol benchmark --calibrate`)"));
  }
  SECTION("not such a job: nothing is timed, and the GPU's callers serve it") {
    eng.set_one_writer(OneWriterJob::None);
    eng.plan_job(*serpent);
    CHECK(eng.concurrency_for(*serpent) == 4);
    CHECK(cpu->encrypts + cpu->decrypts == 0);
    CHECK(lines.empty());
  }
}

TEST_CASE("auto engine: the CPU takes every request while the GPU starts, and the GPU joins once ready", "[job][auto]") {
  auto cpu = std::make_shared<CpuEngine>(1);
  auto other = std::make_shared<CpuEngine>(1);  // stands in for the GPU
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  std::promise<std::shared_ptr<XtsEngine>> starting;
  std::vector<std::string> lines;
  {
    AutoEngine eng(cpu, starting.get_future().share(), crossover, [&](const std::string& m) { lines.push_back(m); });
    CHECK(eng.detail().find("starting") != std::string::npos);
    Area a(ChainId::Serpent, size_t(24) << 20);
    auto key = eng.prepare(a.chain, a.key.data());  // before the GPU is there: its key comes later
    auto buf = a.cipher;
    eng.process(*key, Direction::Decrypt, a.first_unit, buf.data(), buf.size() / kDataUnitSize);
    CHECK(buf == a.plain);
    CHECK(eng.gpu_bytes() == 0);
    starting.set_value(other);
    buf = a.cipher;
    eng.process(*key, Direction::Decrypt, a.first_unit, buf.data(), buf.size() / kDataUnitSize);
    CHECK(buf == a.plain);
    CHECK(eng.gpu_bytes() > 0);  // the key was prepared for the GPU when it took its first request
  }
  bool said = false;
  for (const auto& l : lines) said |= l.find("was ready") != std::string::npos;
  CHECK(said);
}

// Stands in for the GPU engine: a CPU engine that records which buffers it was asked to page-lock.
struct PinRecordingEngine : CpuEngine {
  PinRecordingEngine() : CpuEngine(1) {}
  std::mutex mu;
  std::set<uint8_t*> pinned;
  std::vector<uint8_t*> unpinned;
  bool pin_host(uint8_t* p, size_t) override {
    std::lock_guard<std::mutex> lk(mu);
    return pinned.insert(p).second;
  }
  void unpin_host(uint8_t* p) override {
    std::lock_guard<std::mutex> lk(mu);
    CHECK(pinned.erase(p) == 1);
    unpinned.push_back(p);
  }
};

TEST_CASE("auto engine: buffers handed out while the GPU starts are page-locked when it joins, unlocked when freed",
          "[job][auto]") {
  auto cpu = std::make_shared<CpuEngine>(1);
  auto gpu = std::make_shared<PinRecordingEngine>();
  std::promise<std::shared_ptr<XtsEngine>> starting;
  auto eng = std::make_unique<AutoEngine>(cpu, starting.get_future().share(), crossover_from_json(""));
  IoBuffer early = eng->io_buffer(size_t(3) << 20);
  uint8_t* const early_p = early.data();
  IoBuffer freed_early = eng->io_buffer(size_t(1) << 20);
  freed_early = IoBuffer();  // released before the GPU came: never pinned
  starting.set_value(gpu);
  for (int i = 0; i < 500 && !eng->gpu_ready(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  REQUIRE(eng->gpu_ready());  // joined by the engine's own thread, without a request
  {
    std::lock_guard<std::mutex> lk(gpu->mu);
    CHECK(gpu->pinned == std::set<uint8_t*>{early_p});
  }
  IoBuffer late = eng->io_buffer(size_t(1) << 20);  // after the join: the GPU engine's own buffer
  CHECK(gpu->pinned.count(late.data()) == 0);
  eng.reset();
  CHECK(gpu->unpinned.empty());  // the buffer outlives the engine and stays pinned while in use
  early = IoBuffer();
  CHECK(gpu->unpinned == std::vector<uint8_t*>{early_p});
  CHECK(gpu->pinned.empty());
}

TEST_CASE("auto engine: a job whose chains never go to the GPU does not start the GPU engine", "[job][auto]") {
  // A stand-in GPU engine factory that counts the engines it creates; the built-in crossover (no measured file).
  wvtest::TempDir cache;
  const char* old_cache = std::getenv("XDG_CACHE_HOME");
  const std::string saved_cache = old_cache ? old_cache : "";
  ::setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
  std::atomic<int> created{0};
  GpuEngineFactory saved = register_gpu_engine_factory([&](std::string&) -> std::unique_ptr<XtsEngine> {
    ++created;
    return std::make_unique<CpuEngine>(1);
  });
  struct Restore {
    GpuEngineFactory& f;
    const char* old;
    const std::string& value;
    ~Restore() {
      register_gpu_engine_factory(std::move(f));
      if (old) ::setenv("XDG_CACHE_HOME", value.c_str(), 1);
      else ::unsetenv("XDG_CACHE_HOME");
    }
  } restore{saved, old_cache, saved_cache};

  CHECK(gpu_never_used({ChainId::Aes}));
  CHECK_FALSE(gpu_never_used({ChainId::Aes, ChainId::Serpent}));
  CHECK_FALSE(gpu_never_used({}));
  EngineOptions o;
  o.chains = {ChainId::Aes};
  prestart_gpu_engine(EngineChoice::Auto, o.chains);
  CHECK(make_engine(o)->name() == "cpu");
  CHECK(created == 0);
  o.chains = {ChainId::Aes, ChainId::Serpent};  // a re-encryption from AES to Serpent
  prestart_gpu_engine(EngineChoice::Auto, o.chains);
  CHECK(make_engine(o)->name() == "auto");
  CHECK(created == 1);  // the prestarted one, taken by make_engine
  o.chains = {};        // not known: auto with both engines
  CHECK(make_engine(o)->name() == "auto");
  CHECK(created == 2);
  o.choice = EngineChoice::Gpu;  // asked for: the GPU engine, whatever the chains
  o.chains = {ChainId::Aes};
  CHECK(make_engine(o)->name() == "cpu");  // (the stand-in is a CPU engine)
  CHECK(created == 3);

  // A command that cannot name its chains before the header opens (an export without --encryption) starts the
  // engine; an AES job leaves it unused and --verbose says so, and the next job that may use the GPU takes it.
  std::vector<std::string> said;
  o.verbose = [&](const std::string& m) { said.push_back(m); };
  o.choice = EngineChoice::Auto;
  prestart_gpu_engine(EngineChoice::Auto, {});
  CHECK(make_engine(o)->name() == "cpu");
  REQUIRE(said.size() == 1);
  CHECK_THAT(said[0], Catch::Contains("the CPU engine runs the job; the GPU engine, started while the header was "
                                      "opened (its chain was not known then), stays unused"));
  o.chains = {ChainId::Serpent};
  CHECK(make_engine(o)->name() == "auto");
  for (auto t0 = std::chrono::steady_clock::now(); created < 4 && std::chrono::steady_clock::now() - t0 < 10s;)
    std::this_thread::sleep_for(1ms);
  CHECK(created == 4);  // the prestarted one, not a second

  // One that could not start is named with its reason.
  register_gpu_engine_factory([&](std::string& why) -> std::unique_ptr<XtsEngine> {
    why = "no CUDA device";
    return nullptr;
  });
  o.chains = {ChainId::Aes};
  prestart_gpu_engine(EngineChoice::Auto, {});
  std::string line;  // until the start on its thread has failed
  for (auto t0 = std::chrono::steady_clock::now();
       line.find("could not start") == std::string::npos && std::chrono::steady_clock::now() - t0 < 10s;) {
    said.clear();
    make_engine(o);
    line = said.empty() ? "" : said.back();
  }
  CHECK_THAT(line, Catch::EndsWith("the CPU engine runs the job (the GPU engine, tried while the header was "
                                   "opened, could not start: no CUDA device)"));
  o.chains = {};  // take it, so that no later test finds it
  make_engine(o);

  // WARPVOL_PRESTART=off (for measurements): the command starts no engine before its job.
  ::setenv("WARPVOL_PRESTART", "off", 1);
  prestart_gpu_engine(EngineChoice::Auto, {});
  ::unsetenv("WARPVOL_PRESTART");
  said.clear();
  o.chains = {ChainId::Aes};
  make_engine(o);
  REQUIRE(said.size() == 1);
  CHECK_THAT(said[0], Catch::EndsWith("the CPU engine runs the job and the GPU engine is not started"));
}

TEST_CASE("auto engine: a GPU that could not start leaves all to the CPU", "[job][auto]") {
  auto cpu = std::make_shared<CpuEngine>(1);
  std::promise<std::shared_ptr<XtsEngine>> failed;
  failed.set_value(nullptr);
  AutoEngine eng(cpu, failed.get_future().share(), crossover_from_json(""));
  Area a(ChainId::Twofish, size_t(4) << 20);
  auto buf = a.cipher;
  eng.process(*eng.prepare(a.chain, a.key.data()), Direction::Decrypt, a.first_unit, buf.data(),
              buf.size() / kDataUnitSize);
  CHECK(buf == a.plain);
  CHECK(eng.gpu_bytes() == 0);
  CHECK(eng.concurrency() == cpu->concurrency());
}

TEST_CASE("job stream: a source error stops the job and is rethrown, and no engine work outlives it", "[job]") {
  CpuEngine cpu;
  Area a(ChainId::Serpent, size_t(4) << 20);
  StreamOptions so;
  so.chunk_bytes = size_t(256) << 10;
  so.workers = 3;
  auto key = cpu.prepare(a.chain, a.key.data());
  CHECK_THROWS_WITH(stream_area(
                        a.cipher.size(),
                        [&](uint64_t pos, uint8_t* buf, size_t len) {
                          if (pos == (size_t(2) << 20)) throw std::runtime_error("read failed");
                          std::memcpy(buf, a.cipher.data() + pos, len);
                        },
                        &cpu, key, Direction::Decrypt, a.first_unit, [](uint64_t, const uint8_t*, size_t) {}, so),
                    "read failed");
}

TEST_CASE("job stream: with a multi-caller engine, an error in a read, a request or the sink stops the ordered ring, is "
          "rethrown, and every buffer comes back wiped with no request still under way",
          "[job]") {
  // The ordered ring through an engine of several callers runs readers and engine callers of their own; each stage
  // fails once at chunk 5 of 20, and the stream must neither hang nor leave a request or a buffer behind.
  const size_t chunk = 4096, len = 20 * chunk;
  for (const char* where : {"read", "request", "sink"}) {
    INFO(where);
    const std::string w = where;
    CountedBuffers bufs;
    std::atomic<int> in_engine{0}, engine_calls{0};
    ChunkTransform t;
    t.slots = 3;
    t.fn = [&](uint64_t pos, uint8_t* buf, size_t n) {
      ++in_engine;
      ++engine_calls;
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      --in_engine;
      if (w == "request" && pos == 5 * chunk) throw std::runtime_error("request failed");
      for (size_t i = 0; i < n; ++i) buf[i] ^= 0x5A;
    };
    t.buffer = bufs.factory();
    StreamOptions so;
    so.chunk_bytes = chunk;
    so.workers = 4;
    CHECK_THROWS_WITH(stream_area(
                          len,
                          [&](uint64_t pos, uint8_t* buf, size_t n) {
                            if (w == "read" && pos == 5 * chunk) throw std::runtime_error("read failed");
                            std::memset(buf, 0x33, n);
                          },
                          t,
                          [&](uint64_t pos, const uint8_t*, size_t) {
                            if (w == "sink" && pos == 5 * chunk) throw std::runtime_error("sink failed");
                          },
                          so),
                      w + " failed");
    CHECK(in_engine == 0);
    CHECK(engine_calls <= 20);
    CHECK(bufs.made >= 1);
    CHECK(bufs.given_back == bufs.made);
    CHECK(bufs.dirty == 0);
  }
}

TEST_CASE("auto engine: both engines take one job's requests, and every path equals the oracle", "[job][auto]") {
  wvtest::ScopedEnv trials("WARPVOL_AUTO_TRIALS", "off");  // the per-request rule alone (its trials: test_cpu_share)
  wvtest::TempDir dir;
  // Two CPU engines stand in for the CPU and the GPU: the scheduler must give work to each and the output must not
  // depend on which engine did which piece. The export's 40 requests are more than kProbeEvery: the CPU gets one at
  // least, however the requests overlap.
  auto cpu = std::make_shared<CpuEngine>(1);
  auto other = std::make_shared<CpuEngine>(1);
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  std::vector<std::string> lines;
  {
    auto eng = std::make_shared<AutoEngine>(cpu, other, crossover, [&](const std::string& m) { lines.push_back(m); });
    Area a(ChainId::Serpent, size_t(40) << 20);
    CHECK(stream_decrypt(*eng, a, dir.file("c"), true, 3, size_t(1) << 20) == a.plain);
    CHECK(fill_encrypt(*eng, a, dir.file("f")) == a.cipher);
    // A synchronous call larger than a piece is split over both engines.
    auto buf = a.cipher;
    eng->process(*eng->prepare(a.chain, a.key.data()), Direction::Decrypt, a.first_unit, buf.data(),
                 buf.size() / kDataUnitSize);
    CHECK(buf == a.plain);
    // Re-encryption (Serpent -> Twofish) equals decrypt + encrypt by the oracle.
    auto to_key = noise_bytes(2 * 32, 9);
    auto expect = a.plain;
    XtsChain(ChainId::Twofish, to_key.data()).encrypt(a.first_unit, expect.data(), expect.size() / kDataUnitSize);
    buf = a.cipher;
    eng->reencrypt(*eng->prepare(a.chain, a.key.data()), *eng->prepare(ChainId::Twofish, to_key.data()), a.first_unit,
                   buf.data(), buf.size() / kDataUnitSize);
    CHECK(buf == expect);
    CHECK(eng->cpu_bytes() > 0);
    CHECK(eng->gpu_bytes() > 0);
    // Small requests stay on the CPU.
    const uint64_t before = eng->gpu_bytes();
    buf = a.cipher;
    eng->process(*eng->prepare(a.chain, a.key.data()), Direction::Decrypt, a.first_unit, buf.data(), 8);
    CHECK(eng->gpu_bytes() == before);
  }
  REQUIRE(!lines.empty());  // the --verbose summary, one line per operation
  CHECK(lines[0].find("engine auto") != std::string::npos);
}

TEST_CASE("auto engine: a CPU far slower than the GPU gets no request beyond rare probes", "[job][auto]") {
  // The "CPU" is a CPU engine slowed to about 0.1 GB/s, the "GPU" a plain one (several GB/s on AES): once measured,
  // the CPU is not worth a request (under a quarter of the GPU's rate), and is measured again only rarely.
  struct Slow : CpuEngine {
    Slow() : CpuEngine(1) {}
    void process(const EngineKey& k, Direction d, uint64_t unit0, uint8_t* data, size_t n) override {
      std::this_thread::sleep_for(std::chrono::microseconds(20 * n));  // 10 ms per MiB
      CpuEngine::process(k, d, unit0, data, n);
    }
  };
  auto slow = std::make_shared<Slow>();
  auto fast = std::make_shared<CpuEngine>(1);
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  AutoEngine eng(slow, fast, crossover);
  const auto km = noise_bytes(64, 5);
  auto key = eng.prepare(ChainId::Aes, km.data());
  const size_t n = (size_t(1) << 20) / kDataUnitSize;
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      std::vector<uint8_t> buf = noise_bytes(n * kDataUnitSize, 100 + t);
      for (int i = 0; i < 64; ++i) eng.process(*key, Direction::Encrypt, uint64_t(i) * n, buf.data(), n);
    });
  for (auto& c : callers) c.join();
  INFO("CPU " << eng.cpu_bytes() << " bytes, GPU " << eng.gpu_bytes() << " bytes");
  CHECK(eng.cpu_bytes() <= (size_t(3) << 20));  // its first (set-up) and second request; a probe every 32: 8
  CHECK(eng.cpu_bytes() + eng.gpu_bytes() == (size_t(256) << 20));
}

TEST_CASE("auto engine: a probe of a slow CPU is a slice of its request beside the GPU's rest, and the output equals "
          "the oracle",
          "[job][auto]") {
  // The "CPU" is a CPU engine slowed to 0.01 GB/s that records the requests it got, the "GPU" a plain one (AES,
  // far faster even on two cores). Its probes (its first requests, then the rare ones) each take a slice of a
  // request, at the head; the GPU does the rest at the same time. Export's read path and re-encryption with unit
  // hashes, each against its oracle.
  wvtest::ScopedEnv trials("WARPVOL_AUTO_TRIALS", "off");  // the per-request rule alone
  struct Slow : CpuEngine {
    Slow() : CpuEngine(1) {}
    void process(const EngineKey& k, Direction d, uint64_t unit0, uint8_t* data, size_t n) override {
      note(n);
      CpuEngine::process(k, d, unit0, data, n);
    }
    void reencrypt_hashed(const EngineKey& a, const EngineKey& b, uint64_t unit0, uint8_t* data, size_t n,
                          uint8_t* hashes) override {
      note(n);
      CpuEngine::reencrypt_hashed(a, b, unit0, data, n, hashes);
    }
    void note(size_t n) {
      {
        std::lock_guard<std::mutex> lk(mu);
        sizes.push_back(n);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50 * n));  // 100 ms per MiB
    }
    std::mutex mu;
    std::vector<size_t> sizes;
  };
  struct Gpu : CpuEngine {  // takes four callers at once, as the GPU engine does: its queue builds up
    Gpu() : CpuEngine(2) {}
    unsigned concurrency() const override { return 4; }
  };
  wvtest::TempDir dir;
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  const size_t chunk = size_t(1) << 20, chunk_units = chunk / kDataUnitSize;
  {
    auto slow = std::make_shared<Slow>();
    AutoEngine eng(slow, std::make_shared<Gpu>(), crossover);
    Area a(ChainId::Aes, size_t(40) << 20);  // over kProbeEvery requests: a probe at least
    CHECK(stream_decrypt(eng, a, dir.file("c"), true, 3, chunk) == a.plain);
    REQUIRE(!slow->sizes.empty());
    CHECK(eng.cpu_bytes() > 0);
    CHECK(eng.gpu_bytes() + eng.cpu_bytes() == a.plain.size());
    for (size_t n : slow->sizes) {
      CHECK(n >= AutoEngine::kMinProbeUnits);
      CHECK(n <= chunk_units / 2);
    }
  }
  {
    auto slow = std::make_shared<Slow>();
    AutoEngine eng(slow, std::make_shared<Gpu>(), crossover);
    Area a(ChainId::Aes, (size_t(40) << 20) + 3 * kDataUnitSize);  // over kProbeEvery requests: a probe at least
    auto to_key = noise_bytes(2 * 32, 9);
    auto expect = a.plain;
    const size_t all = a.cipher.size() / kDataUnitSize;
    XtsChain(ChainId::Aes, to_key.data()).encrypt(a.first_unit, expect.data(), all);
    std::vector<uint8_t> expect_hashes(all * kUnitXxh3Bytes);
    xxh3_128_units(expect.data(), all, expect_hashes.data());
    auto from = eng.prepare(a.chain, a.key.data());
    auto to = eng.prepare(ChainId::Aes, to_key.data());
    auto buf = a.cipher;
    std::vector<uint8_t> hashes(all * kUnitXxh3Bytes, 0xA5);
    // Requests of one chunk (the last one short: it stays on the CPU), from four callers at once, as a batch's
    // zones arrive. The CPU gets one where the GPU's queue grows, or when passed over kProbeEvery times.
    std::atomic<size_t> next{0};
    auto caller = [&] {
      for (size_t u; (u = next.fetch_add(chunk_units)) < all;) {
        const size_t n = std::min(chunk_units, all - u);
        eng.reencrypt_hashed(*from, *to, a.first_unit + u, buf.data() + u * kDataUnitSize, n,
                             hashes.data() + u * kUnitXxh3Bytes);
      }
    };
    std::vector<std::thread> others;
    for (int t = 0; t < 3; ++t) others.emplace_back(caller);
    caller();
    for (auto& t : others) t.join();
    CHECK(buf == expect);
    CHECK(hashes == expect_hashes);
    size_t slices = 0;
    for (size_t n : slow->sizes) {
      CHECK(n <= chunk_units / 2);
      slices += n >= AutoEngine::kMinProbeUnits;
    }
    CHECK(slices >= 1);
  }
}

namespace {
// The engine paths of a re-encryption: the CPU engine, and auto over two CPU engines taking requests from 64 KiB (a
// large request is split into pieces over both); a Serpent area and what re-encrypting it to Twofish gives.
struct ReencryptPaths {
  std::shared_ptr<CpuEngine> cpu = std::make_shared<CpuEngine>(3);
  std::shared_ptr<AutoEngine> autoe;
  Area a{ChainId::Serpent, (size_t(20) << 20) + 7 * kDataUnitSize};
  std::vector<uint8_t> to_key = noise_bytes(2 * 32, 9);
  std::vector<uint8_t> expect = a.plain;
  const size_t all = a.cipher.size() / kDataUnitSize;
  ReencryptPaths() {
    std::map<ChainId, size_t> crossover;
    for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
    autoe = std::make_shared<AutoEngine>(cpu, std::make_shared<CpuEngine>(1), crossover);
    XtsChain(ChainId::Twofish, to_key.data()).encrypt(a.first_unit, expect.data(), all);
  }
};
}  // namespace

TEST_CASE("engine: reencrypt_each hands every unit over once, already re-encrypted, on every engine path",
          "[job][auto][reencrypt]") {
  // A re-encryption's checksums are computed from what reencrypt_each hands over: each unit must come exactly once,
  // holding its new ciphertext by then (compared with the oracle at that moment), and the result must equal
  // reencrypt()'s.
  wvtest::ScopedEnv trials("WARPVOL_AUTO_TRIALS", "off");  // the per-request rule alone: the CPU takes part at once
  ReencryptPaths paths;
  auto& [cpu, autoe, a, to_key, expect, all] = paths;
  struct Case {
    XtsEngine* e;
    size_t units;  // a small request stays on auto's CPU engine; a large one is split over both
  };
  for (const Case& c : {Case{cpu.get(), all}, Case{cpu.get(), 100}, Case{autoe.get(), all}, Case{autoe.get(), 100}}) {
    INFO("engine " << c.e->name() << ", " << c.units << " units");
    auto from = c.e->prepare(a.chain, a.key.data());
    auto to = c.e->prepare(ChainId::Twofish, to_key.data());
    auto buf = a.cipher;
    std::vector<std::atomic<int>> seen(c.units);
    std::atomic<size_t> calls{0}, wrong{0};
    c.e->reencrypt_each(*from, *to, a.first_unit, buf.data(), c.units, [&](size_t first, size_t end) {
      ++calls;
      if (first >= end || end > c.units) {
        ++wrong;
        return;
      }
      for (size_t u = first; u < end; ++u) ++seen[u];
      if (std::memcmp(buf.data() + first * kDataUnitSize, expect.data() + first * kDataUnitSize,
                      (end - first) * kDataUnitSize) != 0)
        ++wrong;
    });
    CHECK(wrong == 0);
    size_t not_once = 0;
    for (auto& s : seen) not_once += s != 1;
    CHECK(not_once == 0);
    CHECK(std::memcmp(buf.data(), expect.data(), c.units * kDataUnitSize) == 0);
    CHECK(std::memcmp(buf.data() + c.units * kDataUnitSize, a.cipher.data() + c.units * kDataUnitSize,
                      buf.size() - c.units * kDataUnitSize) == 0);
    if (c.e == cpu.get() && c.units == all) CHECK(calls > 1);  // by piece, not once at the end
  }
}

TEST_CASE("engine: reencrypt_hashed gives the re-encrypted data and each unit's XXH3-128, on every engine path",
          "[job][auto][reencrypt]") {
  // auto splits a large request into pieces over both engines: each piece's hashes must land at its own units.
  wvtest::ScopedEnv trials("WARPVOL_AUTO_TRIALS", "off");  // the per-request rule alone: the CPU takes part at once
  ReencryptPaths paths;
  auto& [cpu, autoe, a, to_key, expect, all] = paths;
  std::vector<uint8_t> expect_hashes(all * kUnitXxh3Bytes);
  xxh3_128_units(expect.data(), all, expect_hashes.data());
  auto check = [&](XtsEngine* e, size_t units) {
    INFO("engine " << e->name() << ", " << units << " units");
    auto buf = a.cipher;
    std::vector<uint8_t> hashes(all * kUnitXxh3Bytes, 0xA5);
    e->reencrypt_hashed(*e->prepare(a.chain, a.key.data()), *e->prepare(ChainId::Twofish, to_key.data()),
                        a.first_unit, buf.data(), units, hashes.data());
    CHECK(std::memcmp(buf.data(), expect.data(), units * kDataUnitSize) == 0);
    CHECK(std::memcmp(hashes.data(), expect_hashes.data(), units * kUnitXxh3Bytes) == 0);
    CHECK(std::all_of(hashes.begin() + units * kUnitXxh3Bytes, hashes.end(), [](uint8_t x) { return x == 0xA5; }));
  };
  for (XtsEngine* e : {static_cast<XtsEngine*>(cpu.get()), static_cast<XtsEngine*>(autoe.get())})
    for (size_t units : {all, size_t(100)}) check(e, units);  // on auto, 100 units stay on its CPU engine
  // auto's CPU takes a piece where the GPU's queue grows, or when passed over kProbeEvery times: the whole request
  // is repeated on auto until it did (3 pieces each time, 33 in all), whatever the machine's load.
  for (int round = 1; round < 11 && autoe->cpu_bytes() == 0; ++round) check(autoe.get(), all);
  CHECK(autoe->cpu_bytes() > 0);
  CHECK(autoe->gpu_bytes() > 0);
}

#ifdef WARPVOL_HAVE_GPU
TEST_CASE("job paths on the GPU engine's pinned buffers give byte-identical output to the CPU engine", "[gpu][job]") {
  std::string why;
  std::shared_ptr<XtsEngine> gpu = gpu::make_engine(gpu::GpuEngineOptions{}, why);
  if (!gpu) {
    WARN("no CUDA device: GPU tests skipped (" << why << ")");
    return;
  }
  IoBuffer b = gpu->io_buffer(size_t(3) << 20);
  CHECK(b.pinned());
  CHECK(reinterpret_cast<uintptr_t>(b.data()) % kDirectAlign == 0);
  wvtest::TempDir dir;
  auto cpu = std::make_shared<CpuEngine>();
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  auto autoe = std::make_shared<AutoEngine>(cpu, gpu, crossover);
  for (ChainId c : {ChainId::Aes, ChainId::Serpent, ChainId::AesTwofishSerpent, ChainId::KuznyechikSerpentCamellia}) {
    Area a(c, (size_t(40) << 20) + 5 * kDataUnitSize);
    INFO(chain_info(c).name);
    const auto ref_plain = stream_decrypt(*cpu, a, dir.file("c"), true, 4, size_t(8) << 20);
    const auto ref_cipher = fill_encrypt(*cpu, a, dir.file("f"));
    REQUIRE(ref_plain == a.plain);
    REQUIRE(ref_cipher == a.cipher);
    for (auto* e : {gpu.get(), static_cast<XtsEngine*>(autoe.get())}) {
      INFO("engine " << e->name());
      CHECK(stream_decrypt(*e, a, dir.file("c"), true, 4, size_t(8) << 20) == ref_plain);
      CHECK(stream_decrypt(*e, a, dir.file("c"), false, 4, size_t(8) << 20) == ref_plain);
      CHECK(fill_encrypt(*e, a, dir.file("f")) == ref_cipher);
      IoBuffer z = e->io_buffer(a.cipher.size());
      CHECK(z.pinned());
      std::memcpy(z.data(), a.cipher.data(), a.cipher.size());
      auto to_key = noise_bytes(2 * 32, 9);
      e->reencrypt(*e->prepare(c, a.key.data()), *e->prepare(ChainId::Twofish, to_key.data()), a.first_unit,
                   z.data(), a.cipher.size() / kDataUnitSize);
      auto expect = a.plain;
      XtsChain(ChainId::Twofish, to_key.data()).encrypt(a.first_unit, expect.data(), expect.size() / kDataUnitSize);
      CHECK(std::memcmp(z.data(), expect.data(), expect.size()) == 0);
      // The same with the checksum entries hashed where the pieces are re-encrypted.
      std::memcpy(z.data(), a.cipher.data(), a.cipher.size());
      const size_t n = a.cipher.size() / kDataUnitSize;
      std::vector<uint8_t> hashes(n * kUnitXxh3Bytes), want_hashes(n * kUnitXxh3Bytes);
      e->reencrypt_hashed(*e->prepare(c, a.key.data()), *e->prepare(ChainId::Twofish, to_key.data()),
                          a.first_unit, z.data(), n, hashes.data());
      xxh3_128_units(expect.data(), n, want_hashes.data());
      CHECK(std::memcmp(z.data(), expect.data(), expect.size()) == 0);
      CHECK(hashes == want_hashes);
    }
  }
  CHECK_FALSE(gpu::engine_status(*gpu).failed);
}
#endif
