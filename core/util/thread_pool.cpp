#include "core/util/thread_pool.h"

#include <algorithm>
#include <chrono>

namespace warpvol {

namespace {

// How long an idle thread keeps polling before it sleeps: longer than the gap between one request's chunks and the
// next request of a busy stream, short enough that an idle engine burns no noticeable CPU.
constexpr auto kSpin = std::chrono::microseconds(100);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// Polls done() for up to kSpin; true if it became true. Each poll also yields the CPU: a polling thread must not
// keep a runnable thread off its core. With pause alone, a volume mounted on 2 cores read and wrote AES 15-20%
// slower than with sleeping workers, because the polling workers took CPU time from the FUSE threads.
template <class Done>
bool spin_until(const Done& done) {
  const auto t0 = std::chrono::steady_clock::now();
  for (unsigned polls = 1;; ++polls) {
    if (done()) return true;
    cpu_relax();
    std::this_thread::yield();
    if (polls % 16 == 0 && std::chrono::steady_clock::now() - t0 > kSpin) return done();
  }
}

}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  workers_.reserve(threads - 1);
  // Generation 0 is passed in, not read by the new thread: one that starts late, after jobs or even after the
  // destructor bumped gen_, must still see those bumps.
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(0); });
}

ThreadPool::~ThreadPool() {
  stop_ = true;
  gen_.fetch_add(1);
  {
    std::lock_guard<std::mutex> lk(sleep_mu_);
  }
  sleep_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::work(Job& j) {
  for (size_t i; (i = j.next.fetch_add(1)) < j.total;) {
    try {
      (*j.fn)(i);
    } catch (...) {
      std::lock_guard<std::mutex> lk(j.error_mu);
      if (!j.error) j.error = std::current_exception();
    }
    if (j.done.fetch_add(1) + 1 == j.total) {
      // The last index: wake the caller if it stopped polling (taking the lock orders this after its check).
      std::lock_guard<std::mutex> lk(done_mu_);
      done_cv_.notify_all();
    }
  }
}

void ThreadPool::worker_loop(uint64_t seen) {
  for (;;) {
    if (!spin_until([&] { return gen_.load() != seen; })) {
      // Sleep. The caller bumps gen_ before it reads sleepers_, this thread counts itself before it re-reads gen_
      // (all sequentially consistent), so either the caller sees a sleeper and notifies, or this thread sees the
      // new generation and does not wait.
      std::unique_lock<std::mutex> lk(sleep_mu_);
      sleepers_.fetch_add(1);
      sleep_cv_.wait(lk, [&] { return gen_.load() != seen; });
      sleepers_.fetch_sub(1);
    }
    seen = gen_.load();
    if (stop_) return;
    active_.fetch_add(1);
    if (Job* j = job_.load()) work(*j);
    active_.fetch_sub(1);
  }
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  if (workers_.empty() || n == 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  // Another caller owns the pool (e.g. several FUSE threads at once): run this request on the calling thread
  // rather than queueing behind it; the cores are busy anyway.
  std::unique_lock<std::mutex> call(call_mu_, std::try_to_lock);
  if (!call.owns_lock()) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  Job j;
  j.fn = &fn;
  j.total = n;
  job_.store(&j);
  gen_.fetch_add(1);
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lk(sleep_mu_);
    sleep_cv_.notify_all();
  }
  work(j);
  if (!spin_until([&] { return j.done.load() == n; })) {
    std::unique_lock<std::mutex> lk(done_mu_);
    done_cv_.wait(lk, [&] { return j.done.load() == n; });
  }
  // Retract the job, then wait out workers that picked it up: after this no worker touches `j` (a worker counts
  // itself active before it reads job_, and these operations are sequentially consistent). Every index is done,
  // so they only find none left.
  job_.store(nullptr);
  while (active_.load() != 0) {
    cpu_relax();
    std::this_thread::yield();  // such a worker may have lost its CPU between its last index and leaving
  }
  if (j.error) std::rethrow_exception(j.error);
}

}  // namespace warpvol
