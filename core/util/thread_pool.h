// A fixed pool of worker threads running index ranges in parallel (parallel_ranges, parallel_for), used by the
// CPU engine.
//
// Idle workers poll for the next job for a short while before they sleep (core/util/job_board.h), and the caller
// polls for the last piece to finish before it sleeps too: on a virtual machine a wake-up can cost as long as the
// work of a 1 MiB request, and with workers that always slept two threads were no faster than one
// (docs/perf/design-figures.md, "Thread pool").
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

#include "core/util/job_board.h"

namespace warpvol {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);  // 0 = usable_cores() (core/util/cores.h)
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  unsigned size() const { return unsigned(workers_.size()) + 1; }  // the caller works too
  // Runs fn(begin, end) over consecutive pieces of [0, n), spread over the workers and the calling thread; returns
  // when all are done. A piece is the remaining count / (2 x size()), clamped to [min_piece, max_piece]: large
  // while much is left, smaller toward the end, so the threads finish together. With equal pieces, a request
  // ended when its slowest thread finished its last piece (docs/perf/design-figures.md, "Thread pool").
  // Exceptions from fn are rethrown (the first one) after all pieces finished. Not re-entrant from within fn.
  void parallel_ranges(size_t n, size_t min_piece, size_t max_piece,
                       const std::function<void(size_t, size_t)>& fn);
  // fn(i) for i in [0, n), one index per piece.
  void parallel_for(size_t n, const std::function<void(size_t)>& fn);

 private:
  struct Job {
    const std::function<void(size_t, size_t)>* fn = nullptr;
    size_t total = 0, min_piece = 1, max_piece = 1, split = 1;
    std::atomic<size_t> next{0}, done{0};
    std::mutex error_mu;
    std::exception_ptr error;
  };
  void work(Job& j);  // runs pieces of j until none is left
  void worker_loop();

  std::vector<std::thread> workers_;
  std::mutex call_mu_;               // one job at a time
  JobBoard<Job> board_;
  std::mutex done_mu_;               // the caller sleeping until the last piece finished
  std::condition_variable done_cv_;
};

}  // namespace warpvol
