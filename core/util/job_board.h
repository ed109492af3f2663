// The slot through which a caller hands one job at a time to helper threads that poll, then sleep (doorbell.h):
// the CPU engine's thread pool and the CUDA engine's copy crews.
//
//   caller:  post(&job); ...work on it too...; wait until the job is finished; retract(relax);
//   helpers: serve(spin, [](Job& j) { ...take pieces of j until none is left... });
//   owner:   stop(), then join the helpers.
//
// retract() makes the job safe to destroy: it empties the slot, then waits out helpers that picked the job up. A
// helper counts itself active before it reads the slot, and these operations are sequentially consistent, so once
// active_ is 0 after the slot was emptied, no helper holds the job. The job must be finished by then: a helper
// that still holds it only finds no piece left.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>

#include "core/util/doorbell.h"

namespace warpvol {

template <class Job>
class JobBoard {
 public:
  void post(Job* job) {
    job_.store(job);
    bell_.ring();
  }
  // relax(): what to do while a helper still holds the job (pause, or pause and yield).
  template <class Relax>
  void retract(Relax relax) {
    job_.store(nullptr);
    while (active_.load() != 0) relax();
  }
  // A helper thread's loop: work(job) for every posted job, until stop().
  template <class Work>
  void serve(std::chrono::microseconds spin, Work work) {
    for (uint64_t seen = 0;;) {
      seen = bell_.wait(seen, spin);
      if (stop_) return;
      active_.fetch_add(1);
      if (Job* j = job_.load()) work(*j);
      active_.fetch_sub(1);
    }
  }
  void stop() {
    stop_ = true;
    bell_.ring();
  }

 private:
  std::atomic<Job*> job_{nullptr};
  Doorbell bell_;                    // rung for every job and at shutdown
  std::atomic<unsigned> active_{0};  // helpers that may be looking at job_
  std::atomic<bool> stop_{false};
};

}  // namespace warpvol
