// A fixed pool of worker threads running index ranges in parallel (parallel_for), used by the CPU engine.
//
// Idle workers poll for the next job for a short while (kSpin in thread_pool.cpp, yielding the CPU between polls)
// before they sleep on a condition variable, and the caller polls for the last index to finish before it sleeps
// too. Waking a sleeping thread costs tens of microseconds on a virtual machine (the futex wake-up becomes an IPI
// through the hypervisor), as long as decrypting a whole 1 MiB request with AES: with workers that always slept,
// two threads were no faster than one on 1 MiB requests. gpu/copy_crew.h polls the same way for the CUDA engine's
// copies.
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
  void worker_loop(uint64_t seen);

  std::vector<std::thread> workers_;
  std::mutex call_mu_;               // one parallel_for at a time
  std::atomic<Job*> job_{nullptr};
  std::atomic<uint64_t> gen_{0};     // bumped for every job and at shutdown
  std::atomic<unsigned> active_{0};  // workers that may be looking at job_
  std::atomic<unsigned> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::mutex sleep_mu_;
  std::condition_variable sleep_cv_;
  std::mutex done_mu_;               // the caller sleeping until the last index finished
  std::condition_variable done_cv_;
};

}  // namespace warpvol
