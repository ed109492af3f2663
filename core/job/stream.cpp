#include "core/job/stream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "core/util/cores.h"
#include "core/util/env.h"
#include "core/util/error.h"
#include "core/util/futex.h"
#include "core/util/secure.h"

namespace warpvol {

unsigned default_stream_workers(unsigned engine_concurrency) {
  if (const auto n = env_number("WARPVOL_STREAM_WORKERS", 1, 64)) return unsigned(*n);  // tuning runs (bench/jobs.sh)
  const unsigned hw = usable_cores();
  const unsigned base = std::clamp(hw / 4, 2u, 8u);
  return engine_concurrency > 1 ? std::min(2 * base, std::max(16u, base)) : base;
}

unsigned default_ring_readers(unsigned engine_callers) {
  if (const auto n = env_number("WARPVOL_STREAM_WORKERS", 1, 64)) return unsigned(*n);  // tuning runs (bench/jobs.sh)
  const unsigned hw = usable_cores();
  const unsigned left = hw > engine_callers + 2 ? hw - engine_callers - 2 : 0;
  return std::clamp(left, default_stream_workers(engine_callers), 16u);
}

namespace {

using Clock = std::chrono::steady_clock;

// WARPVOL_STREAM_CHUNK_KB: bytes per read and engine request of every stream, instead of the caller's (tuning runs).
size_t chunk_override() {
  static const size_t kb = size_t(env_number("WARPVOL_STREAM_CHUNK_KB", 1, 1 << 20).value_or(0));
  return kb << 10;
}

// WARPVOL_STREAM_SPARE / WARPVOL_STREAM_IN_FLIGHT: spare workers beside the readers of an engine that takes several
// callers (the workers' shape), and chunks of an ordered ring, instead of the defaults (tuning runs). -1 when unset.
long tuning_count(const char* name) { return env_number(name, 0, 1024).value_or(-1); }

// Chunks of an ordered ring. With the CPU engine, twice the workers: room for each worker's chunk and as many
// finished out of order. With an engine of several callers (the GPU's pipeline) whose callers are threads of their
// own, each reader's chunk and two per engine caller (the one in the engine, and one read and waiting for it or for
// the sink): a chunk read goes to the next free caller at once. A larger ring no longer stays in the last-level
// cache between the read into a buffer and the GPU's DMA from it and back, so every byte crosses host memory once
// more each way, and the export, bound by host memory, slows down (docs/perf/measurements-2026-12-04-session41.md).
// In the workers' shape (WARPVOL_STREAM_CALLER_THREADS=0) a worker holds its chunk from the read through its
// request, and four per caller kept the requests coming (docs/perf/measurements-2026-12-04-session39.md).
size_t default_in_flight(unsigned readers, unsigned engine_callers, bool caller_threads) {
  const size_t per_caller = caller_threads ? 2 : 4;
  return std::max<size_t>(4, engine_callers > 1 ? readers + per_caller * engine_callers : 2 * size_t(readers));
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
  // Workers: each reads a chunk and calls the engine on it. Callers: readers and engine callers of their own.
  std::string line(bool callers, unsigned workers, unsigned readers, unsigned engine_slots, double wall) const {
    char b[480];
    if (callers)
      std::snprintf(b, sizeof b,
                    "stream: %u readers, %u engine callers, %.3f s; thread-seconds: waiting for a place in the ring "
                    "%.3f, read %.3f, engine callers waiting for a chunk %.3f, engine %.3f, sink %.3f, the sink "
                    "waiting for chunks %.3f",
                    readers, engine_slots, wall, ring_wait / 1e6, read / 1e6, engine_wait / 1e6, engine / 1e6,
                    sink / 1e6, sink_wait / 1e6);
    else
      std::snprintf(b, sizeof b,
                    "stream: %u workers (%u reading at once), %u engine callers, %.3f s; thread-seconds: waiting "
                    "for a place in the ring %.3f, waiting to read %.3f, read %.3f, waiting for the engine %.3f, "
                    "engine %.3f, sink %.3f, waiting for the sink (ordered: the sink waiting for chunks) %.3f",
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
  const bool ring = opt.ordered;
  const bool region = opt.region != nullptr;
  // Two shapes. An ordered ring through an engine that takes several callers (the GPU's pipeline: an export) has
  // readers and engine callers of their own: a reader goes on to the next chunk as soon as one is read, and a caller
  // takes the next chunk read as soon as its request returns, so neither the reads nor the engine's requests wait
  // for a sleeping thread to be woken between two chunks (a wake-up under KVM costs tens of microseconds; a chunk's
  // read or round trip, a few hundred). Otherwise each worker reads a chunk and then calls the engine on it: with
  // one caller (the CPU engine spreads each request over every core) reading beside it would only compete for the
  // cores; for unordered sinks (create's fill, re-encryption), an engine of several callers keeps a worker
  // waiting for each request's round trip, and that worker's read slot goes to a spare worker meanwhile, so
  // `nreaders` reads stay under way.
  static const bool callers_on = env_number("WARPVOL_STREAM_CALLER_THREADS", 0, 1).value_or(1) == 1;  // tuning runs
  const bool callers = ring && engine && engine_slots > 1 && callers_on;
  const unsigned default_readers =
      callers ? default_ring_readers(engine_slots) : default_stream_workers(engine ? engine_slots : 1);
  const unsigned nreaders = unsigned(std::min<uint64_t>(opt.workers ? opt.workers : default_readers, nchunks));
  const unsigned ncallers = callers ? unsigned(std::min<uint64_t>(engine_slots, nchunks)) : 0;
  static const long spare_override = tuning_count("WARPVOL_STREAM_SPARE");
  static const long in_flight_override = tuning_count("WARPVOL_STREAM_IN_FLIGHT");
  // (An ordered ring in the workers' shape, WARPVOL_STREAM_CALLER_THREADS=0, gets two spare workers per caller.)
  const unsigned spare = engine_slots <= 1 || callers ? 0
                         : spare_override >= 0        ? unsigned(spare_override)
                                                      : (ring && !region ? 2 : 1) * engine_slots;
  const unsigned nworkers = callers ? 0 : unsigned(std::min<uint64_t>(nreaders + spare, nchunks));
  Slots read_slots(nreaders);
  Slots sink_slots(opt.sink_threads);
  // Region: chunk k at region + k * chunk, no ring. Ordered: a ring of in_flight buffers, chunk k in slot k % n.
  // Unordered: one buffer per worker.
  const size_t nslots = region ? size_t(nchunks)
                        : ring ? size_t(std::min<uint64_t>(in_flight_override > 0 ? size_t(in_flight_override)
                                                           : opt.in_flight        ? opt.in_flight
                                                           : default_in_flight(nreaders, engine_slots, callers),
                                                           nchunks))
                               : nworkers;
  const size_t bufsize = size_t(std::min<uint64_t>(chunk, length));
  StageTimes times;
  const auto t_start = Clock::now();
  // Each ring buffer is made by the thread that first fills it, so that the buffers' making (the GPU agent: a round
  // trip and a mapping each) runs in parallel and beside the first reads; each is wiped and given back as soon as
  // no later chunk uses it, beside the last chunks still in flight, rather than all of them after the end.
  std::vector<IoBuffer> bufs(region ? 0 : nslots);
  auto slot_of = [&](uint64_t k, unsigned w) { return ring ? size_t(k % nslots) : size_t(w); };
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
  std::vector<std::atomic<uint32_t>> turn(ring ? nslots : 0), filled(ring ? nslots : 0);
  std::atomic<uint64_t> next{0};  // next chunk to claim
  std::atomic<bool> abort{false};
  // Chunks read and waiting for an engine caller (callers only), oldest first: the sink takes them in order.
  std::mutex ready_mu;
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> ready;  // under ready_mu
  Slots ready_count(0);
  std::atomic<uint64_t> taken{0};  // chunks the engine callers claimed (a claim waits until its chunk was read)
  // The ring's last round: once the sink took a slot's last chunk, the slot's buffer is wiped and given back by a
  // thread that has no chunk left to read, several at once, rather than by the sink, which would take them one
  // after the other while the last chunks wait for it.
  const size_t nretire = ring && !region ? nslots : 0;
  std::mutex retire_mu;
  std::vector<size_t> to_retire;  // under retire_mu
  Slots retire_count(0);
  std::atomic<size_t> retire_claimed{0};
  const unsigned nthreads = callers ? nreaders + ncallers : nworkers;
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
    for (unsigned i = 0; i < nthreads; ++i) {  // every thread that may wait for a chunk read or a slot to retire
      ready_count.release();
      retire_count.release();
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
  // Run by each reader (worker) that has no chunk left: retires the last round's slots as the sink frees them.
  auto retire_last_round = [&] {
    try {
      while (retire_claimed.fetch_add(1) < nretire) {
        retire_count.acquire();
        if (abort) return;  // the rest is retired after the threads ended
        size_t slot;
        {
          std::lock_guard<std::mutex> lk(retire_mu);
          slot = to_retire.back();
          to_retire.pop_back();
        }
        retire(slot);
      }
    } catch (...) {
      fail(std::current_exception());
    }
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
  // Claims the next chunk and waits for its place in the ring; false when none is left or the stream stopped.
  auto claim = [&](uint64_t& k) {
    const auto t = Clock::now();
    k = next.fetch_add(1);
    const bool ok = !abort && k < nchunks && (!ring || await(turn[k % nslots], uint32_t(k / nslots)));
    StageTimes::add(times.ring_wait, t);  // (a thread may have waited the last chunks' whole time)
    if (ok && opt.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
    return ok;
  };
  auto chunk_len = [&](uint64_t k) { return size_t(std::min<uint64_t>(chunk, length - k * chunk)); };

  auto worker = [&](unsigned w) {
    try {
      uint64_t k;
      while (claim(k)) {
        const uint64_t pos = k * chunk;
        const size_t len = chunk_len(k);
        uint8_t* buf = chunk_buf(k, w);
        auto t = Clock::now();
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
    if (ring) retire_last_round();
    else if (!region) retire(w);  // its own buffer: no chunk is left for it
  };
  auto reader = [&] {
    try {
      uint64_t k;
      while (claim(k)) {
        uint8_t* buf = chunk_buf(k, 0);
        const auto t = Clock::now();
        source(k * chunk, buf, chunk_len(k));
        StageTimes::add(times.read, t);
        {
          std::lock_guard<std::mutex> lk(ready_mu);
          ready.push(k);
        }
        ready_count.release();
      }
    } catch (...) {
      fail(std::current_exception());
    }
    retire_last_round();
  };
  auto engine_caller = [&] {
    try {
      while (taken.fetch_add(1) < nchunks) {
        auto t = Clock::now();
        ready_count.acquire();
        StageTimes::add(times.engine_wait, t);
        if (abort) return;
        uint64_t k;
        {
          std::lock_guard<std::mutex> lk(ready_mu);
          k = ready.top();
          ready.pop();
        }
        t = Clock::now();
        transform.fn(k * chunk, chunk_buf(k, 0), chunk_len(k));
        StageTimes::add(times.engine, t);
        const uint32_t round = uint32_t(k / nslots);
        advance(filled[k % nslots], round, round + 1);
      }
    } catch (...) {
      fail(std::current_exception());
    }
  };
  std::vector<std::thread> threads;
  try {
    if (callers) {
      for (unsigned i = 0; i < nreaders; ++i) threads.emplace_back(reader);
      for (unsigned i = 0; i < ncallers; ++i) threads.emplace_back(engine_caller);
    } else {
      for (unsigned w = 0; w < nworkers; ++w) threads.emplace_back(worker, w);
    }
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
        sink(k * chunk, chunk_buf(k, 0), chunk_len(k));
        StageTimes::add(times.sink, t);
        report(chunk_len(k));
        if (k + nslots >= nchunks && !region) {  // no later chunk comes to this slot
          {
            std::lock_guard<std::mutex> lk(retire_mu);
            to_retire.push_back(slot);
          }
          retire_count.release();
        }
        advance(turn[slot], round, round + 1);
      }
    } catch (...) {
      fail(std::current_exception());
    }
  }
  for (auto& t : threads) t.join();  // threads return at the end or on abort: no engine work outlives the buffers
  for (size_t i = 0; i < bufs.size(); ++i) retire(i);  // those an error or the end left
  if (error) std::rethrow_exception(error);
  if (opt.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
  if (opt.summary)
    opt.summary(times.line(callers, nworkers, callers ? nreaders : std::min(nworkers, nreaders),
                           engine ? engine_slots : 0, std::chrono::duration<double>(Clock::now() - t_start).count()));
  pu.bytes_done = length;
  pu.finished = true;
  if (opt.progress) opt.progress(pu);
}

}  // namespace warpvol
