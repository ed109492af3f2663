// Host threads that copy the pieces of one buffer in parallel, for the pageable <-> pinned staging copies of the
// CUDA engine. Why not core's ThreadPool: its workers sleep on a condition variable, and waking them costs tens of
// microseconds per call on the GPU machine -- more than copying a 1 MiB request. These workers spin for a short
// while after each job (kSpin below) before they sleep, so the back-to-back copies of a pipeline start at once.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace warpvol::gpu {

class CopyCrew {
 public:
  using CopyFn = void (*)(uint8_t* dst, const uint8_t* src, size_t n);
  explicit CopyCrew(unsigned helpers);  // helper threads; the calling thread copies too
  ~CopyCrew();
  CopyCrew(const CopyCrew&) = delete;
  CopyCrew& operator=(const CopyCrew&) = delete;
  // Copies n bytes in pieces of `piece` bytes; returns when all are copied. One call at a time per crew.
  void copy(uint8_t* dst, const uint8_t* src, size_t n, size_t piece, CopyFn fn);

 private:
  struct Job {
    uint8_t* dst;
    const uint8_t* src;
    size_t n, piece, pieces;
    CopyFn fn;
    std::atomic<size_t> next{0}, done{0};
  };
  static void work(Job& j);
  void loop(uint64_t seen);

  std::vector<std::thread> threads_;
  std::mutex call_mu_;
  std::atomic<Job*> job_{nullptr};
  std::atomic<uint64_t> gen_{0};  // bumped for every job (and at shutdown)
  std::atomic<unsigned> active_{0};  // helpers that may be looking at job_
  std::atomic<unsigned> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::mutex sleep_mu_;
  std::condition_variable sleep_cv_;
};

}  // namespace warpvol::gpu
