#include "core/util/thread_pool.h"

namespace warpvol {

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::worker_loop() {
  unsigned seen = 0;
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return stop_ || (job_ && generation_ != seen); });
    if (stop_) return;
    seen = generation_;
    while (job_ && next_ < total_) {
      size_t i = next_++;
      const auto* job = job_;
      lk.unlock();
      std::exception_ptr err;
      try {
        (*job)(i);
      } catch (...) {
        err = std::current_exception();
      }
      lk.lock();
      if (err && !error_) error_ = err;
      if (++finished_ == total_) done_cv_.notify_all();
    }
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
  std::unique_lock<std::mutex> lk(mu_);
  job_ = &fn;
  next_ = 0;
  total_ = n;
  finished_ = 0;
  error_ = nullptr;
  ++generation_;
  cv_.notify_all();
  while (next_ < total_) {
    size_t i = next_++;
    lk.unlock();
    std::exception_ptr err;
    try {
      fn(i);
    } catch (...) {
      err = std::current_exception();
    }
    lk.lock();
    if (err && !error_) error_ = err;
    ++finished_;
  }
  done_cv_.wait(lk, [&] { return finished_ == total_; });
  job_ = nullptr;
  auto err = error_;
  error_ = nullptr;
  lk.unlock();
  if (err) std::rethrow_exception(err);
}

}  // namespace warpvol
