// A fixed pool of worker threads running index ranges in parallel (parallel_for), used by the CPU engine.
//
// Idle workers poll for the next job for a short while before they sleep (core/util/doorbell.h), and the caller
// polls for the last index to finish before it sleeps too: with workers that always slept, two threads were no
// faster than one on 1 MiB requests on this project's 2-core VM, because a wake-up cost as long as the work.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/util/doorbell.h"

namespace warpvol {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);  // 0 = hardware_concurrency
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  unsigned size() const { return unsigned(workers_.size()) + 1; }  // the caller works too
  // Runs fn(i) for i in [0, n), spread over the workers and the calling thread; returns when all are done.
  // Exceptions from fn are rethrown (the first one) after all tasks finished. Not re-entrant from within fn.
  void parallel_for(size_t n, const std::function<void(size_t)>& fn);

 private:
  struct Job {
    const std::function<void(size_t)>* fn = nullptr;
    size_t total = 0;
    std::atomic<size_t> next{0}, done{0};
    std::mutex error_mu;
    std::exception_ptr error;
  };
  void work(Job& j);  // runs indices of j until none is left
  void worker_loop();

  std::vector<std::thread> workers_;
  std::mutex call_mu_;               // one parallel_for at a time
  std::atomic<Job*> job_{nullptr};
  Doorbell bell_;                    // rung for every job and at shutdown
  std::atomic<unsigned> active_{0};  // workers that may be looking at job_
  std::atomic<bool> stop_{false};
  std::mutex done_mu_;               // the caller sleeping until the last index finished
  std::condition_variable done_cv_;
};

}  // namespace warpvol
