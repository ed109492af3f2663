// A generation counter that idle threads poll, then sleep on: the wake-up of the CPU engine's thread pool and of the
// CUDA engine's copy crews. ring() bumps the generation and wakes sleepers; wait(seen, spin) returns once the
// generation differs from `seen`, polling for `spin` before it sleeps.
//
// Why poll at all: waking a sleeping thread costs tens of microseconds on a virtual machine (the futex wake-up
// becomes an IPI through the hypervisor), as long as encrypting a whole 1 MiB request with AES.
// Why yield while polling: a polling thread must not keep a runnable thread off its core. With pause alone, a volume
// mounted on few cores was slower than with sleeping workers (docs/perf/design-figures.md, "Thread pool").
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace warpvol {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
  std::this_thread::yield();
}

// Polls done() for up to `spin`, yielding the CPU between polls; true if it became true.
template <class Done>
bool poll_for(std::chrono::microseconds spin, const Done& done) {
  const auto t0 = std::chrono::steady_clock::now();
  for (unsigned polls = 1;; ++polls) {
    if (done()) return true;
    cpu_relax();
    if (polls % 16 == 0 && std::chrono::steady_clock::now() - t0 > spin) return done();
  }
}

class Doorbell {
 public:
  void ring() {
    gen_.fetch_add(1);
    // A sleeper counts itself before it re-reads the generation under mu_, and this reads sleepers_ after the bump
    // (all sequentially consistent): either this sees the sleeper and wakes it, or the sleeper sees the new
    // generation and does not wait.
    if (sleepers_.load() > 0) {
      std::lock_guard<std::mutex> lk(mu_);
      cv_.notify_all();
    }
  }
  // The generation once it differs from `seen`. Threads start from generation 0 (passed in, not read when they
  // start): one that starts late, even after a shutdown ring, must still see every ring.
  uint64_t wait(uint64_t seen, std::chrono::microseconds spin) {
    if (!poll_for(spin, [&] { return gen_.load() != seen; })) {
      std::unique_lock<std::mutex> lk(mu_);
      sleepers_.fetch_add(1);
      cv_.wait(lk, [&] { return gen_.load() != seen; });
      sleepers_.fetch_sub(1);
    }
    return gen_.load();
  }

 private:
  std::atomic<uint64_t> gen_{0};
  std::atomic<unsigned> sleepers_{0};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace warpvol
