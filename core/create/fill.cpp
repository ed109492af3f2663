#include "core/create/fill.h"

#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include "core/job/stream.h"
#include "core/util/env.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

// fsync()s the file in the background when asked: the disk writes back while the engine and the writers keep going
// (a blocking fsync in a writer would stall its part of the pipeline for its duration). BlockFile::sync()
// concurrent with write_at() is fine for PosixFile (fsync and pwrite on one descriptor).
class BackgroundSync {
 public:
  explicit BackgroundSync(BlockFile& file) : file_(file), thread_([this] { run(); }) {}
  ~BackgroundSync() { stop(); }
  // Waits for a requested fsync to finish; rethrows its error.
  void finish() {
    stop();
    rethrow();
  }
  void request() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      wanted_ = true;
    }
    cv_.notify_one();
  }
  void rethrow() {
    std::lock_guard<std::mutex> lk(mu_);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void stop() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  void run() {
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return wanted_ || stop_; });
        if (!wanted_ || error_) return;  // a request made before stop() still runs
        wanted_ = false;
      }
      try {
        file_.sync();
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu_);
        error_ = std::current_exception();
      }
    }
  }
  BlockFile& file_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool wanted_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace

void encrypt_to_file(BlockFile& file, uint64_t offset, uint64_t length, uint64_t first_unit, XtsEngine& engine,
                     std::shared_ptr<const EngineKey> key, const PlaintextSource& source, const FillOptions& opt) {
  if (length % kDataUnitSize) throw Error(ErrorKind::Usage, "internal: fill length not a multiple of 512");
  std::unique_ptr<BackgroundSync> syncer;
  if (opt.sync_every && opt.sync_every < length) syncer = std::make_unique<BackgroundSync>(file);

  std::mutex mu;
  std::set<const uint8_t*> cleared;  // an empty source's buffers: zeros at their first use only
  uint64_t since_sync = 0;
  ChunkSource src = [&](uint64_t pos, uint8_t* buf, size_t len) {
    if (source) return source(pos, buf, len);
    {
      std::lock_guard<std::mutex> lk(mu);
      if (!cleared.insert(buf).second) return;
    }
    std::memset(buf, 0, len);
  };
  ChunkSink sink = [&](uint64_t pos, const uint8_t* buf, size_t len) {
    if (!file.write_at_direct(offset + pos, buf, len)) file.write_at(offset + pos, buf, len);
    if (!syncer) return;
    syncer->rethrow();
    bool want = false;
    {
      std::lock_guard<std::mutex> lk(mu);
      since_sync += len;
      if (since_sync >= opt.sync_every) {
        since_sync = 0;
        want = true;
      }
    }
    if (want) syncer->request();
  };
  StreamOptions so;
  so.chunk_bytes = opt.chunk_bytes;
  so.workers = unsigned(opt.writers);
  // WARPVOL_FILL_ORDERED=1 (tuning runs): the fill as an ordered ring, which with an engine of several callers (the
  // GPU's) takes the export's shape, readers and engine callers as threads of their own (stream.cpp), instead of
  // workers that each wait for their own request's round trip.
  so.ordered = env_number("WARPVOL_FILL_ORDERED", 0, 1).value_or(0) == 1;
  so.sink_threads = file.parallel_writes() ? 0 : 1;
  so.phase = opt.phase;
  so.progress = opt.progress;
  so.cancel = opt.cancel;
  so.summary = opt.summary;
  // The source's buffer is encrypted in place: the sink gets it back through const, never copies it.
  stream_area(length, src, &engine, std::move(key), Direction::Encrypt, first_unit, sink, so);
  if (syncer) syncer->finish();
}

}  // namespace warpvol
