// Waiting on a 32-bit atomic with the kernel's futex directly, and a counting semaphore built on it: the hand-overs
// of the job stream (core/job/stream.cpp).
//
// Why not std::atomic::wait and std::counting_semaphore: libstdc++ polls before it sleeps, and the last polls yield
// the core (sched_yield). On a machine whose cores other processes keep busy (a build beside a job, two cores), each
// yield can hand the core to another process for a whole time slice while the value it waits for is already there;
// a futex wait sleeps until the wake-up, which the scheduler serves at once (docs/perf/design-figures.md, "Jobs").
#pragma once
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace warpvol {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) && std::atomic<uint32_t>::is_always_lock_free,
              "a futex word is a plain 32-bit integer");

// Sleeps while a holds `old` (returns at once if it does not; spurious returns happen: callers re-check).
inline void futex_wait(std::atomic<uint32_t>& a, uint32_t old) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(&a), FUTEX_WAIT_PRIVATE, old, nullptr, nullptr, 0);
}

// Wakes up to n threads sleeping on a.
inline void futex_wake(std::atomic<uint32_t>& a, int n = INT_MAX) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(&a), FUTEX_WAKE_PRIVATE, n, nullptr, nullptr, 0);
}

// A counting semaphore whose waiters sleep on a futex without polling first.
class FutexSemaphore {
 public:
  explicit FutexSemaphore(uint32_t count) : count_(count) {}
  FutexSemaphore(const FutexSemaphore&) = delete;
  FutexSemaphore& operator=(const FutexSemaphore&) = delete;

  void acquire() {
    for (;;) {
      uint32_t v = count_.load();
      while (v > 0)
        if (count_.compare_exchange_weak(v, v - 1)) return;
      // A waiter counts itself before it sleeps, and release() reads the count after its increment (both
      // sequentially consistent): either release() sees the waiter and wakes it, or the futex sees the new count
      // and does not sleep.
      waiters_.fetch_add(1);
      futex_wait(count_, 0);
      waiters_.fetch_sub(1);
    }
  }
  void release() {
    count_.fetch_add(1);
    if (waiters_.load() > 0) futex_wake(count_, 1);
  }

 private:
  std::atomic<uint32_t> count_;
  std::atomic<uint32_t> waiters_{0};
};

}  // namespace warpvol
