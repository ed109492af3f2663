// A growable, page-aligned buffer, meant to be thread_local: long-lived worker threads (FUSE's) reuse it for every
// request instead of allocating, and it is aligned for O_DIRECT (kDirectAlign).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace warpvol {

class AlignedScratch {
 public:
  explicit AlignedScratch(size_t min_capacity) : min_(min_capacity) {}
  ~AlignedScratch() { std::free(p_); }
  AlignedScratch(const AlignedScratch&) = delete;
  AlignedScratch& operator=(const AlignedScratch&) = delete;

  // At least n bytes; nullptr when memory is short.
  uint8_t* get(size_t n) {
    if (n > cap_) {
      std::free(p_);
      p_ = nullptr;
      cap_ = 0;
      void* q = nullptr;
      const size_t want = std::max(n, min_);
      if (posix_memalign(&q, 4096, want) != 0) return nullptr;
      p_ = static_cast<uint8_t*>(q);
      cap_ = want;
    }
    return p_;
  }

 private:
  uint8_t* p_ = nullptr;
  size_t cap_ = 0;
  size_t min_;
};

}  // namespace warpvol
