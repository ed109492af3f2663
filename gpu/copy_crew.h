// Host threads that copy the pieces of one buffer in parallel, for the pageable <-> pinned staging copies of the
// CUDA engine. Like core's ThreadPool, idle helpers poll for the next job before they sleep (core/util/job_board.h):
// waking a sleeping thread can cost tens of microseconds on a virtual machine, more than copying a 1 MiB request.
// Unlike it, a second caller waits for the crew instead of copying alone, and the caller polls for its last piece
// without sleeping: the copies sit between GPU transfers that wait for them.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "core/util/job_board.h"

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
  void loop();

  std::vector<std::thread> threads_;
  std::mutex call_mu_;
  JobBoard<Job> board_;
};

}  // namespace warpvol::gpu
