// A fixed pool of worker threads running index ranges in parallel (parallel_for), used by the CPU engine and by
// the parallel key derivation when opening a volume.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace warpvol {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);  // 0 = hardware_concurrency
  ~ThreadPool();
  unsigned size() const { return unsigned(workers_.size()) + 1; }  // the caller works too
  // Runs fn(i) for i in [0, n), spread over the workers and the calling thread; returns when all are done.
  // Exceptions from fn are rethrown (the first one) after all tasks finished. Not re-entrant from within fn.
  void parallel_for(size_t n, const std::function<void(size_t)>& fn);

 private:
  void worker_loop();
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::mutex call_mu_;  // one parallel_for at a time
  std::condition_variable cv_, done_cv_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t next_ = 0, total_ = 0, finished_ = 0;
  unsigned generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

}  // namespace warpvol
