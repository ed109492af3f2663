#include "core/util/thread_pool.h"

#include <algorithm>
#include <chrono>

#include "core/util/cores.h"

namespace warpvol {

namespace {
// How long an idle thread keeps polling before it sleeps: longer than the gap between one request's chunks and the
// next request of a busy stream, short enough that an idle engine burns no noticeable CPU.
constexpr auto kSpin = std::chrono::microseconds(100);
}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = usable_cores();
  workers_.reserve(threads - 1);
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  board_.stop();
  for (auto& t : workers_) t.join();
}

void ThreadPool::work(Job& j) {
  for (;;) {
    size_t begin = j.next.load(), len;
    do {
      if (begin >= j.total) return;
      const size_t left = j.total - begin;
      len = std::min(left, std::clamp(left / j.split, j.min_piece, j.max_piece));
    } while (!j.next.compare_exchange_weak(begin, begin + len));
    try {
      (*j.fn)(begin, begin + len);
    } catch (...) {
      std::lock_guard<std::mutex> lk(j.error_mu);
      if (!j.error) j.error = std::current_exception();
    }
    if (j.done.fetch_add(len) + len == j.total) {
      // The last piece: wake the caller if it stopped polling (taking the lock orders this after its check).
      std::lock_guard<std::mutex> lk(done_mu_);
      done_cv_.notify_all();
    }
  }
}

void ThreadPool::worker_loop() {
  board_.serve(kSpin, [this](Job& j) { work(j); });
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t)>& fn) {
  parallel_ranges(n, 1, 1, [&fn](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) fn(i);
  });
}

void ThreadPool::parallel_ranges(size_t n, size_t min_piece, size_t max_piece,
                                 const std::function<void(size_t, size_t)>& fn) {
  if (n == 0) return;
  max_piece = std::max<size_t>(1, max_piece);
  min_piece = std::clamp<size_t>(min_piece, 1, max_piece);
  auto run_here = [&] {
    for (size_t b = 0; b < n; b += max_piece) fn(b, std::min(n, b + max_piece));
  };
  if (workers_.empty() || n <= min_piece) return run_here();
  // Another caller owns the pool (e.g. several FUSE threads at once): run this request on the calling thread
  // rather than queueing behind it; the cores are busy anyway.
  std::unique_lock<std::mutex> call(call_mu_, std::try_to_lock);
  if (!call.owns_lock()) return run_here();
  Job j;
  j.fn = &fn;
  j.total = n;
  j.min_piece = min_piece;
  j.max_piece = max_piece;
  j.split = 2 * size_t(size());
  board_.post(&j);
  work(j);
  if (!poll_for(kSpin, [&] { return j.done.load() == n; })) {
    std::unique_lock<std::mutex> lk(done_mu_);
    done_cv_.wait(lk, [&] { return j.done.load() == n; });
  }
  // Every piece is done; a worker that still holds `j` only finds none left. It may have lost its CPU in between,
  // hence the yielding wait.
  board_.retract(cpu_relax);
  if (j.error) std::rethrow_exception(j.error);
}

}  // namespace warpvol
