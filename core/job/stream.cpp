#include "core/job/stream.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/util/error.h"
#include "core/util/secure.h"

namespace warpvol {

unsigned default_stream_workers() {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp(hw / 4, 2u, 8u);
}

void stream_area(uint64_t length, const ChunkSource& source, XtsEngine* engine, std::shared_ptr<const EngineKey> key,
                 Direction d, uint64_t first_unit, const ChunkSink& sink, const StreamOptions& opt) {
  const size_t chunk = std::max<size_t>(kDataUnitSize, opt.chunk_bytes / kDataUnitSize * kDataUnitSize);
  if (engine && length % kDataUnitSize) throw Error(ErrorKind::Usage, "internal: stream length not a multiple of 512");
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
  const unsigned nworkers = unsigned(std::min<uint64_t>(opt.workers ? opt.workers : default_stream_workers(), nchunks));
  // Ordered: a ring of in_flight buffers, chunk k in slot k % n. Unordered: one buffer per worker.
  const size_t nslots = opt.ordered ? size_t(std::min<uint64_t>(
                                          opt.in_flight ? opt.in_flight : std::max<size_t>(4, 2 * nworkers), nchunks))
                                    : nworkers;
  const size_t bufsize = size_t(std::min<uint64_t>(chunk, length));
  std::vector<IoBuffer> bufs;
  for (size_t i = 0; i < nslots; ++i)
    bufs.push_back(engine ? engine->io_buffer(bufsize) : IoBuffer::aligned(bufsize));

  std::mutex mu;
  std::condition_variable cv;
  uint64_t next = 0;      // next chunk to claim
  uint64_t consumed = 0;  // ordered: chunks the sink took (slot of chunk k is free once k - nslots was consumed)
  uint64_t done_bytes = 0;
  std::vector<int64_t> ready(nslots, -1);  // ordered: chunk held ready in the slot
  bool abort = false;
  std::exception_ptr error;
  // Engine calls at once: reads go on in parallel, the engine gets as many callers as add throughput.
  const unsigned engine_slots = engine ? std::max(1u, engine->concurrency()) : 1;
  unsigned engine_busy = 0;
  std::condition_variable engine_cv;
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard<std::mutex> lk(mu);
    if (!error) error = e;
    abort = true;
    cv.notify_all();
  };
  auto report = [&](size_t len) {
    if (!opt.progress) return;
    ProgressUpdate u = pu;
    {
      std::lock_guard<std::mutex> lk(mu);
      done_bytes += len;
      u.bytes_done = done_bytes;
    }
    opt.progress(u);
  };

  auto worker = [&](unsigned w) {
    try {
      for (;;) {
        uint64_t k;
        {
          std::unique_lock<std::mutex> lk(mu);
          if (opt.ordered) cv.wait(lk, [&] { return abort || next >= nchunks || next < consumed + nslots; });
          if (abort || next >= nchunks) return;
          k = next++;
        }
        if (opt.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
        const uint64_t pos = k * chunk;
        const size_t len = size_t(std::min<uint64_t>(chunk, length - pos));
        uint8_t* buf = bufs[opt.ordered ? size_t(k % nslots) : w].data();
        source(pos, buf, len);
        if (engine) {
          {
            std::unique_lock<std::mutex> lk(mu);
            engine_cv.wait(lk, [&] { return engine_busy < engine_slots; });
            ++engine_busy;
          }
          struct Release {
            std::mutex& mu;
            unsigned& busy;
            std::condition_variable& cv;
            ~Release() {
              {
                std::lock_guard<std::mutex> lk(mu);
                --busy;
              }
              cv.notify_one();
            }
          } release{mu, engine_busy, engine_cv};
          engine->process(*key, d, first_unit + pos / kDataUnitSize, buf, len / kDataUnitSize);
        }
        if (opt.ordered) {
          std::lock_guard<std::mutex> lk(mu);
          ready[size_t(k % nslots)] = int64_t(k);
          cv.notify_all();
        } else {
          sink(pos, buf, len);
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
  if (opt.ordered) {
    try {
      for (uint64_t k = 0; k < nchunks; ++k) {
        const size_t slot = size_t(k % nslots);
        {
          std::unique_lock<std::mutex> lk(mu);
          cv.wait(lk, [&] { return abort || ready[slot] == int64_t(k); });
          if (abort) break;
        }
        if (opt.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
        const uint64_t pos = k * chunk;
        const size_t len = size_t(std::min<uint64_t>(chunk, length - pos));
        sink(pos, bufs[slot].data(), len);
        report(len);
        {
          std::lock_guard<std::mutex> lk(mu);
          ready[slot] = -1;
          consumed = k + 1;
        }
        cv.notify_all();
      }
    } catch (...) {
      fail(std::current_exception());
    }
  }
  for (auto& t : threads) t.join();  // workers return at the end or on abort: no engine work outlives the buffers
  for (auto& b : bufs) secure_wipe(b.data(), b.size());
  if (error) std::rethrow_exception(error);
  if (opt.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
  pu.bytes_done = length;
  pu.finished = true;
  if (opt.progress) opt.progress(pu);
}

}  // namespace warpvol
