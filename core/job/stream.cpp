#include "core/job/stream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/util/env.h"
#include "core/util/error.h"
#include "core/util/futex.h"
#include "core/util/secure.h"

namespace warpvol {

unsigned default_stream_workers(unsigned engine_concurrency) {
  if (const auto n = env_number("WARPVOL_STREAM_WORKERS", 1, 64)) return unsigned(*n);  // tuning runs (bench/jobs.sh)
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const unsigned base = std::clamp(hw / 4, 2u, 8u);
  return engine_concurrency > 1 ? std::min(2 * base, std::max(16u, base)) : base;
}

namespace {

using Clock = std::chrono::steady_clock;

// WARPVOL_STREAM_CHUNK_KB: bytes per read and engine request of every stream, instead of the caller's (tuning runs).
size_t chunk_override() {
  static const size_t kb = size_t(env_number("WARPVOL_STREAM_CHUNK_KB", 1, 1 << 20).value_or(0));
  return kb << 10;
}

// WARPVOL_STREAM_SPARE / WARPVOL_STREAM_IN_FLIGHT: spare workers beside the readers of an engine that takes several
// callers, and chunks of an ordered ring, instead of the defaults (tuning runs). -1 when unset.
long tuning_count(const char* name) { return env_number(name, 0, 1024).value_or(-1); }

// Chunks of an ordered ring. With the CPU engine, twice the workers: room for each worker's chunk and as many
// finished out of order. With an engine of several callers (the GPU's pipeline, whose spare workers hold its
// requests), each worker's chunk and one more per spare worker: a larger ring no longer stays in the last-level
// cache between the read into a buffer and the GPU's DMA from it and back, so every byte crosses host memory once
// more each way, and an export bound by host memory slows down (docs/perf/measurements-2026-11-28-session19.md).
size_t default_in_flight(unsigned workers, unsigned spare) {
  return std::max<size_t>(4, spare ? size_t(workers) + spare : 2 * size_t(workers));
}

// A stage that takes at most N threads at once; Hold takes a place for its scope (none: no limit).
using Slots = FutexSemaphore;
struct Hold {
  Slots* s;
  explicit Hold(Slots* slots) : s(slots) {
    if (s) s->acquire();
  }
  ~Hold() {
    if (s) s->release();
  }
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;
};

// Thread-seconds per stage, summed over the threads.
struct StageTimes {
  std::atomic<int64_t> ring_wait{0}, read_wait{0}, read{0}, engine_wait{0}, engine{0}, sink{0}, sink_wait{0};
  static void add(std::atomic<int64_t>& a, Clock::time_point t0) {
    a += std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
  }
  std::string line(unsigned workers, unsigned readers, unsigned engine_slots, double wall) const {
    char b[480];
    std::snprintf(b, sizeof b,
                  "stream: %u workers (%u reading at once), %u engine callers, %.3f s; thread-seconds: waiting for "
                  "a place in the ring %.3f, waiting to read %.3f, read %.3f, waiting for the engine %.3f, engine "
                  "%.3f, sink %.3f, waiting for the sink (ordered: the sink waiting for chunks) %.3f",
                  workers, readers, engine_slots, wall, ring_wait / 1e6, read_wait / 1e6, read / 1e6,
                  engine_wait / 1e6, engine / 1e6, sink / 1e6, sink_wait / 1e6);
    return b;
  }
};

}  // namespace

void stream_area(uint64_t length, const ChunkSource& source, XtsEngine* engine, std::shared_ptr<const EngineKey> key,
                 Direction d, uint64_t first_unit, const ChunkSink& sink, const StreamOptions& opt) {
  if (!engine) return stream_area(length, source, ChunkTransform{}, sink, opt);
  if (length % kDataUnitSize) throw Error(ErrorKind::Usage, "internal: stream length not a multiple of 512");
  ChunkTransform t;
  t.fn = [engine, key, d, first_unit](uint64_t pos, uint8_t* buf, size_t len) {
    engine->process(*key, d, first_unit + pos / kDataUnitSize, buf, len / kDataUnitSize);
  };
  t.slots = std::max(1u, engine->concurrency_for(*key));
  t.buffer = [engine, key](size_t n) { return engine->io_buffer_for(n, *key); };
  StreamOptions o = opt;
  if (opt.summary)  // the engine's requests beside the stages (the GPU agent's round trips)
    o.summary = [engine, &opt](const std::string& line) {
      const std::string more = engine->request_stats();
      opt.summary(more.empty() ? line : line + "; " + more);
    };
  stream_area(length, source, t, sink, o);
}

void stream_area(uint64_t length, const ChunkSource& source, const ChunkTransform& transform, const ChunkSink& sink,
                 const StreamOptions& opt) {
  const bool engine = static_cast<bool>(transform.fn);
  const size_t fallback = engine && transform.slots > 1 ? kStreamChunkMultiCaller : kStreamChunk;
  const size_t asked = chunk_override() ? chunk_override() : opt.chunk_bytes ? opt.chunk_bytes : fallback;
  const size_t chunk = std::max<size_t>(kDataUnitSize, asked / kDataUnitSize * kDataUnitSize);
  ProgressUpdate pu;
  pu.phase = opt.phase;
  pu.bytes_total = length;
  if (opt.progress) opt.progress(pu);
  if (length == 0) {
    pu.finished = true;
    if (opt.progress) opt.progress(pu);
    return;
  }
  const uint64_t nchunks = (length + chunk - 1) / chunk;
  const unsigned engine_slots = engine ? std::max(1u, transform.slots) : 1;
  const unsigned nreaders = opt.workers ? opt.workers : default_stream_workers(engine ? engine_slots : 1);
  // An engine that takes several callers (the GPU's pipeline) keeps a worker waiting for each request's round trip
  // while the cores sit idle: that worker's read slot goes to a spare worker meanwhile, so `nreaders` reads stay
  // under way. With one caller (the CPU engine spreads each request over every core) reading beside it would only
  // compete for the cores. An ordered ring gets two spare workers per engine caller (and, below, a slot for each):
  // on hosts where the GPU's round trip bounds an export, one per caller kept the workers waiting for a place in the
  // ring and each request longer in the engine, a fifth to a third slower; where the reads bound it, the larger
  // ring costs a few percent (docs/perf/measurements-2026-12-04-session39.md).
  static const long spare_override = tuning_count("WARPVOL_STREAM_SPARE");
  static const long in_flight_override = tuning_count("WARPVOL_STREAM_IN_FLIGHT");
  const unsigned spare_per_caller = opt.ordered && !opt.region ? 2 : 1;
  const unsigned spare = engine_slots <= 1         ? 0
                         : spare_override >= 0     ? unsigned(spare_override)
                                                   : spare_per_caller * engine_slots;
  const unsigned nworkers = unsigned(std::min<uint64_t>(nreaders + spare, nchunks));
  Slots read_slots(nreaders);
  Slots sink_slots(opt.sink_threads);
  // Region: chunk k at region + k * chunk, no ring. Ordered: a ring of in_flight buffers, chunk k in slot k % n.
  // Unordered: one buffer per worker.
  const bool region = opt.region != nullptr;
  const size_t nslots = region       ? size_t(nchunks)
                        : opt.ordered ? size_t(std::min<uint64_t>(
                                            in_flight_override > 0 ? size_t(in_flight_override)
                                            : opt.in_flight        ? opt.in_flight
                                                                   : default_in_flight(nworkers, spare),
                                            nchunks))
                                      : nworkers;
  const size_t bufsize = size_t(std::min<uint64_t>(chunk, length));
  StageTimes times;
  const auto t_start = Clock::now();
  // Each ring buffer is made by the worker that first fills it, so that the buffers' making (the GPU agent: a round
  // trip and a mapping each) runs in parallel and beside the first reads; each is wiped and given back as soon as
  // no later chunk uses it, beside the last chunks still in flight, rather than all of them after the end.
  std::vector<IoBuffer> bufs(region ? 0 : nslots);
  auto slot_of = [&](uint64_t k, unsigned w) { return opt.ordered ? size_t(k % nslots) : size_t(w); };
  auto chunk_buf = [&](uint64_t k, unsigned w) -> uint8_t* {
    if (region) return opt.region + k * chunk;
    IoBuffer& b = bufs[slot_of(k, w)];
    if (!b.data()) b = transform.buffer ? transform.buffer(bufsize) : IoBuffer::aligned(bufsize);
    return b.data();
  };
  auto retire = [&](size_t slot) {
    if (region) return;  // the caller's
    IoBuffer& b = bufs[slot];
    if (!b.data()) return;
    secure_wipe(b.data(), b.size());
    b = IoBuffer();
  };

  // The ordered ring hands each slot over on atomics of its own (futexes, core/util/futex.h): a chunk made ready
  // wakes the sink alone, and a slot the sink freed wakes only the worker waiting for it. One lock and condition
  // variable for all of it woke every waiting worker at each step, and the sink, the stream's one serial stage, then
  // queued for the lock behind them: with tens of workers it spent most of the stream there
  // (docs/perf/design-figures.md, "Jobs").
  // Chunk k is slot k % nslots in round k / nslots. turn[s]: the round whose chunk may fill slot s; filled[s]: 1 +
  // the round of the chunk ready in it (0: none yet). kStopped in either: the stream stops (an error, a cancel).
  constexpr uint32_t kStopped = UINT32_MAX;
  const bool ring = opt.ordered;
  std::vector<std::atomic<uint32_t>> turn(ring ? nslots : 0), filled(ring ? nslots : 0);
  std::atomic<uint64_t> next{0};  // next chunk to claim
  std::atomic<bool> abort{false};
  std::mutex error_mu;
  std::exception_ptr error;
  auto fail = [&](std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lk(error_mu);
      if (!error) error = e;
    }
    abort = true;
    for (size_t i = 0; i < turn.size(); ++i) {
      turn[i] = kStopped;
      futex_wake(turn[i]);
      filled[i] = kStopped;
      futex_wake(filled[i]);
    }
  };
  // Waits until a holds want; false when the stream stopped. (fail() changes every value it could wait on, so a
  // wait that begins after its notify returns at once.)
  auto await = [&](std::atomic<uint32_t>& a, uint32_t want) {
    for (uint32_t v = a.load(std::memory_order_acquire);; v = a.load(std::memory_order_acquire)) {
      if (v == want) return true;
      if (v == kStopped || abort) return false;
      futex_wait(a, v);
    }
  };
  // Moves a from `from` to `to` unless the stream stopped meanwhile (kStopped stays), and wakes its waiters.
  auto advance = [](std::atomic<uint32_t>& a, uint32_t from, uint32_t to) {
    if (a.compare_exchange_strong(from, to, std::memory_order_acq_rel)) futex_wake(a);
  };
  Slots engine_gate(engine_slots);
  // Unordered sinks report from their workers: the count and its delivery under one lock, so that a reader of
  // the progress (--progress-json) never sees bytes_done fall from one update to the next.
  std::mutex progress_mu;
  uint64_t done_bytes = 0;  // under progress_mu
  auto report = [&](size_t len) {
    if (!opt.progress) return;
    std::lock_guard<std::mutex> lk(progress_mu);
    done_bytes += len;
    ProgressUpdate u = pu;
    u.bytes_done = done_bytes;
    opt.progress(u);
  };

  auto worker = [&](unsigned w) {
    try {
      for (;;) {
        auto t = Clock::now();
        const uint64_t k = next.fetch_add(1);
        if (abort || k >= nchunks || (ring && !await(turn[k % nslots], uint32_t(k / nslots)))) {
          StageTimes::add(times.ring_wait, t);  // (a worker may have waited the last chunks' whole time)
          if (!ring && !region) retire(w);      // its own buffer: no chunk is left for it
          return;
        }
        StageTimes::add(times.ring_wait, t);
        if (opt.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
        const uint64_t pos = k * chunk;
        const size_t len = size_t(std::min<uint64_t>(chunk, length - pos));
        uint8_t* buf = chunk_buf(k, w);
        t = Clock::now();
        {
          const Hold reading(nworkers > nreaders ? &read_slots : nullptr);
          StageTimes::add(times.read_wait, t);
          t = Clock::now();
          source(pos, buf, len);
        }
        StageTimes::add(times.read, t);
        if (engine) {
          t = Clock::now();
          const Hold calling(&engine_gate);
          StageTimes::add(times.engine_wait, t);
          t = Clock::now();
          transform.fn(pos, buf, len);
          StageTimes::add(times.engine, t);
        }
        if (ring) {
          const uint32_t round = uint32_t(k / nslots);
          advance(filled[k % nslots], round, round + 1);
        } else {
          t = Clock::now();
          {
            const Hold writing(opt.sink_threads ? &sink_slots : nullptr);
            StageTimes::add(times.sink_wait, t);
            t = Clock::now();
            sink(pos, buf, len);
          }
          StageTimes::add(times.sink, t);
          report(len);
        }
      }
    } catch (...) {
      fail(std::current_exception());
    }
  };
  std::vector<std::thread> threads;
  try {
    for (unsigned w = 0; w < nworkers; ++w) threads.emplace_back(worker, w);
  } catch (...) {
    fail(std::current_exception());
  }
  if (ring) {
    try {
      for (uint64_t k = 0; k < nchunks; ++k) {
        const size_t slot = size_t(k % nslots);
        const uint32_t round = uint32_t(k / nslots);
        auto t = Clock::now();
        if (!await(filled[slot], round + 1)) break;
        StageTimes::add(times.sink_wait, t);
        t = Clock::now();
        if (opt.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
        const uint64_t pos = k * chunk;
        const size_t len = size_t(std::min<uint64_t>(chunk, length - pos));
        sink(pos, chunk_buf(k, 0), len);
        StageTimes::add(times.sink, t);
        report(len);
        if (k + nslots >= nchunks) retire(slot);  // no later chunk comes to this slot
        advance(turn[slot], round, round + 1);
      }
    } catch (...) {
      fail(std::current_exception());
    }
  }
  for (auto& t : threads) t.join();  // workers return at the end or on abort: no engine work outlives the buffers
  for (size_t i = 0; i < bufs.size(); ++i) retire(i);  // those an error or the end left
  if (error) std::rethrow_exception(error);
  if (opt.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
  if (opt.summary)
    opt.summary(times.line(nworkers, std::min(nworkers, nreaders), engine ? engine_slots : 0,
                           std::chrono::duration<double>(Clock::now() - t_start).count()));
  pu.bytes_done = length;
  pu.finished = true;
  if (opt.progress) opt.progress(pu);
}

}  // namespace warpvol
