#include "gpu/copy_crew.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>

namespace warpvol::gpu {

namespace {
// How long an idle helper keeps polling for the next job before it sleeps: longer than the gap between the copies
// of one request's pieces, short enough that an idle engine burns no noticeable CPU.
constexpr auto kSpin = std::chrono::microseconds(200);
}  // namespace

CopyCrew::CopyCrew(unsigned helpers) {
  threads_.reserve(helpers);
  for (unsigned i = 0; i < helpers; ++i) threads_.emplace_back([this] { loop(); });
}

CopyCrew::~CopyCrew() {
  board_.stop();
  for (auto& t : threads_) t.join();
}

void CopyCrew::work(Job& j) {
  for (size_t i; (i = j.next.fetch_add(1)) < j.pieces;) {
    const size_t off = i * j.piece;
    j.fn(j.dst + off, j.src + off, std::min(j.piece, j.n - off));
    j.done.fetch_add(1, std::memory_order_release);
  }
}

void CopyCrew::copy(uint8_t* dst, const uint8_t* src, size_t n, size_t piece, CopyFn fn) {
  if (n == 0) return;
  piece = std::max<size_t>(piece, 1);
  if (threads_.empty() || n <= piece) {
    fn(dst, src, n);
    return;
  }
  std::lock_guard<std::mutex> call(call_mu_);
  Job j;
  j.dst = dst;
  j.src = src;
  j.n = n;
  j.piece = piece;
  j.pieces = (n + piece - 1) / piece;
  j.fn = fn;
  board_.post(&j);
  work(j);
  while (j.done.load(std::memory_order_acquire) < j.pieces) _mm_pause();
  board_.retract([] { _mm_pause(); });
}

void CopyCrew::loop() { board_.serve(kSpin, work); }

}  // namespace warpvol::gpu
