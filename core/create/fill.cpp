#include "core/create/fill.h"

#include <algorithm>
#include <memory>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "core/util/aligned_buffer.h"
#include "core/util/error.h"
#include "core/util/secure.h"

namespace warpvol {

void encrypt_to_file(BlockFile& file, uint64_t offset, uint64_t length, uint64_t first_unit, XtsEngine& engine,
                     std::shared_ptr<const EngineKey> key, const PlaintextSource& source, const FillOptions& opt) {
  if (length % kDataUnitSize) throw Error(ErrorKind::Usage, "internal: fill length not a multiple of 512");
  const size_t chunk = std::max<size_t>(kDataUnitSize, opt.chunk_bytes / kDataUnitSize * kDataUnitSize);
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t nwriters = opt.writers ? opt.writers : std::clamp<size_t>(hw / 4, 2, 4);
  const size_t nbuf = opt.buffers ? std::max<size_t>(2, opt.buffers) : nwriters + 4;
  ProgressUpdate pu;
  pu.phase = opt.phase;
  pu.bytes_total = length;
  if (opt.progress) opt.progress(pu);
  if (length == 0) {
    pu.finished = true;
    if (opt.progress) opt.progress(pu);
    return;
  }

  // Buffers aligned for write_at_direct: where the file system takes O_DIRECT, the encrypted chunks go to the disk
  // without a copy into the page cache, whose copies cost CPU that create's engine needs
  // (docs/perf/design-figures.md, "Create").
  struct Slot {
    IoBuffer buf;  // the engine's: pinned on the GPU engine (no staging copy), page-aligned either way
    std::future<void> fut;
    uint64_t pos = 0;
    size_t len = 0;
    bool used = false;  // an empty source's plaintext is zeros until the buffer's first use, then its own ciphertext
  };
  std::vector<Slot> slots(nbuf);
  const size_t bufsize = size_t(std::min<uint64_t>(chunk, length));
  for (auto& s : slots) s.buf = engine.io_buffer(bufsize);

  std::mutex mu;
  std::condition_variable cv;
  std::deque<size_t> free_q, write_q;
  for (size_t i = 0; i < nbuf; ++i) free_q.push_back(i);
  bool producer_done = false, abort = false;
  std::exception_ptr writer_error;

  // Background fsync: the writer only signals; a separate thread syncs, so the disk writes back while the engine
  // and the writer keep going (a blocking fsync in the writer would stall the whole pipeline for its duration).
  // BlockFile::sync() concurrent with write_at() is fine for PosixFile (fsync and pwrite on one descriptor).
  std::mutex sync_mu;
  std::condition_variable sync_cv;
  bool sync_wanted = false, sync_stop = false;
  std::exception_ptr sync_error;
  std::thread syncer;
  if (opt.sync_every && opt.sync_every < length) {
    syncer = std::thread([&] {
      for (;;) {
        {
          std::unique_lock<std::mutex> lk(sync_mu);
          sync_cv.wait(lk, [&] { return sync_wanted || sync_stop; });
          if (!sync_wanted) return;
          sync_wanted = false;
        }
        try {
          file.sync();
        } catch (...) {
          {
            std::lock_guard<std::mutex> lk(sync_mu);
            if (!sync_error) sync_error = std::current_exception();
          }
          std::lock_guard<std::mutex> lk(mu);
          abort = true;
          cv.notify_all();
          return;
        }
      }
    });
  }

  // Writers: each takes the oldest encrypted chunk, waits for its encryption, writes it and returns the buffer
  // to the free list. Several writers (on machines with many cores) keep up with a fast engine: one thread's
  // copies into the page cache top out at a few GB/s. Writes go to disjoint offsets.
  uint64_t done = 0, since_sync = 0;  // under mu
  auto writer_fn = [&] {
    for (;;) {
      size_t i;
      bool skip;
      {
        std::unique_lock<std::mutex> lk(mu);
        // Returns only once the producer has stopped and every submitted chunk was waited for.
        cv.wait(lk, [&] { return !write_q.empty() || producer_done; });
        if (write_q.empty()) return;
        i = write_q.front();
        write_q.pop_front();
        skip = abort;
      }
      Slot& s = slots[i];
      try {
        s.fut.get();
        if (!skip) {
          if (!file.write_at_direct(offset + s.pos, s.buf.data(), s.len))
            file.write_at(offset + s.pos, s.buf.data(), s.len);
          bool want_sync = false;
          uint64_t d;
          {
            std::lock_guard<std::mutex> lk(mu);
            done += s.len;
            since_sync += s.len;
            d = done;
            if (syncer.joinable() && since_sync >= opt.sync_every && done < length) {
              since_sync = 0;
              want_sync = true;
            }
          }
          if (want_sync) {
            {
              std::lock_guard<std::mutex> lk(sync_mu);
              sync_wanted = true;
            }
            sync_cv.notify_one();
          }
          if (opt.progress) {
            ProgressUpdate u = pu;
            u.bytes_done = d;
            opt.progress(u);
          }
        }
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu);
        if (!writer_error) writer_error = std::current_exception();
        abort = true;
      }
      {
        std::lock_guard<std::mutex> lk(mu);
        free_q.push_back(i);
      }
      cv.notify_all();
    }
  };
  std::vector<std::thread> writers;
  for (size_t w = 0; w < nwriters; ++w) writers.emplace_back(writer_fn);

  std::exception_ptr producer_error;
  try {
    for (uint64_t pos = 0; pos < length;) {
      if (opt.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
      size_t i;
      {
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return !free_q.empty() || abort; });
        if (abort) break;
        i = free_q.front();
        free_q.pop_front();
      }
      Slot& s = slots[i];
      s.pos = pos;
      s.len = size_t(std::min<uint64_t>(bufsize, length - pos));
      if (source)
        source(pos, s.buf.data(), s.len);
      else if (!s.used)
        std::memset(s.buf.data(), 0, s.len);  // cleared at its first use only: a small fill touches few buffers
      s.used = true;
      s.fut = engine.submit(key, Direction::Encrypt, first_unit + pos / kDataUnitSize, s.buf.data(),
                            s.len / kDataUnitSize);
      pos += s.len;
      {
        std::lock_guard<std::mutex> lk(mu);
        write_q.push_back(i);
      }
      cv.notify_all();
    }
  } catch (...) {
    producer_error = std::current_exception();
    std::lock_guard<std::mutex> lk(mu);
    abort = true;
  }
  {
    std::lock_guard<std::mutex> lk(mu);
    producer_done = true;
  }
  cv.notify_all();
  for (auto& w : writers) w.join();  // writers wait for every submitted future: no engine work outlives the buffers
  if (syncer.joinable()) {
    {
      std::lock_guard<std::mutex> lk(sync_mu);
      sync_stop = true;
    }
    sync_cv.notify_one();
    syncer.join();
  }
  for (auto& s : slots) secure_wipe(s.buf.data(), s.buf.size());
  if (producer_error) std::rethrow_exception(producer_error);
  if (writer_error) std::rethrow_exception(writer_error);
  if (sync_error) std::rethrow_exception(sync_error);
  if (opt.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
  pu.bytes_done = length;
  pu.finished = true;
  if (opt.progress) opt.progress(pu);
}

}  // namespace warpvol
