// The CPU engine's thread pool (core/util/thread_pool.h): every index runs exactly once, on several threads; errors
// come back to the caller; a second caller runs inline; jobs handed over while the workers poll and after they fell
// asleep both complete; ranges are cut into pieces that shrink toward the end.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "core/util/thread_pool.h"

using warpvol::ThreadPool;

namespace {

// Runs n indices, each counting itself and noting its thread; checks each ran once and returns the threads.
// With wait_for_second, an index does not finish before a second thread has run one (or 5 s passed): a worker
// must then take part, however busy the machine (ctest runs tests side by side), unless the pool never wakes it.
std::set<std::thread::id> run_counted(ThreadPool& pool, size_t n, bool wait_for_second = false) {
  std::vector<std::atomic<int>> hits(n);
  std::mutex mu;
  std::set<std::thread::id> threads;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  pool.parallel_for(n, [&](size_t i) {
    hits[i].fetch_add(1);
    {
      std::lock_guard<std::mutex> lk(mu);
      threads.insert(std::this_thread::get_id());
    }
    while (wait_for_second && std::chrono::steady_clock::now() < deadline) {
      {
        std::lock_guard<std::mutex> lk(mu);
        if (threads.size() > 1) break;
      }
      std::this_thread::yield();
    }
  });
  for (size_t i = 0; i < n; ++i) REQUIRE(hits[i].load() == 1);
  return threads;
}

}  // namespace

TEST_CASE("Thread pool runs every index once, spread over its threads", "[threadpool]") {
  ThreadPool pool(4);
  REQUIRE(pool.size() == 4);
  // A worker must take part (the caller alone would run every index).
  CHECK(run_counted(pool, 64, true).size() > 1);
  // Many short jobs back to back: each handed over while the workers still poll for the next one.
  for (int r = 0; r < 2000; ++r) run_counted(pool, 1 + size_t(r % 9));
  // A job after the workers fell asleep (they poll for 100 us, then sleep): the job must wake one.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(run_counted(pool, 64, true).size() > 1);
}

TEST_CASE("Thread pool passes the first error back after all indices ran", "[threadpool]") {
  ThreadPool pool(3);
  std::atomic<int> ran{0};
  CHECK_THROWS_WITH(pool.parallel_for(50,
                                      [&](size_t i) {
                                        ran.fetch_add(1);
                                        if (i % 10 == 3) throw std::runtime_error("index failed");
                                      }),
                    "index failed");
  CHECK(ran.load() == 50);
  // The pool still works afterwards.
  run_counted(pool, 20);
}

TEST_CASE("Thread pool serves concurrent callers", "[threadpool]") {
  // Callers that find the pool busy run their indices themselves; all of them must complete, none twice.
  ThreadPool pool(2);
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int r = 0; r < 300; ++r) {
        std::vector<std::atomic<int>> hits(16);
        pool.parallel_for(hits.size(), [&](size_t i) { hits[i].fetch_add(1); });
        for (auto& h : hits)
          if (h.load() != 1) failures.fetch_add(1);
      }
    });
  for (auto& t : callers) t.join();
  CHECK(failures.load() == 0);
}

TEST_CASE("Thread pool of one thread runs on the caller", "[threadpool]") {
  ThreadPool pool(1);
  CHECK(pool.size() == 1);
  const auto threads = run_counted(pool, 10);
  REQUIRE(threads.size() == 1);
  CHECK(*threads.begin() == std::this_thread::get_id());
}

TEST_CASE("Thread pool cuts ranges into pieces that shrink toward the end", "[threadpool]") {
  // parallel_ranges: every index once, in contiguous pieces of at most max_piece and at least min_piece (only the
  // very last piece may be shorter); pieces near the end are smaller than max_piece, so threads finish together.
  for (unsigned threads : {1u, 2u, 4u}) {
    ThreadPool pool(threads);
    for (size_t n : {size_t(1), size_t(63), size_t(64), size_t(2048), size_t(65536), size_t(100003)}) {
      std::vector<std::atomic<int>> hits(n);
      std::mutex mu;
      std::vector<std::pair<size_t, size_t>> pieces;
      pool.parallel_ranges(n, 64, 512, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
        std::lock_guard<std::mutex> lk(mu);
        pieces.emplace_back(b, e);
      });
      for (size_t i = 0; i < n; ++i) REQUIRE(hits[i].load() == 1);
      size_t smallest = n;
      for (auto [b, e] : pieces) {
        REQUIRE(e > b);
        REQUIRE(e - b <= 512);
        if (e != n) REQUIRE(e - b >= (threads == 1 ? 512 : 64));
        smallest = std::min(smallest, e - b);
      }
      // With workers, a long range ends in pieces below the largest size (one thread cuts only max_piece pieces).
      if (threads > 1 && n >= 65536) CHECK(smallest < 512);
    }
  }
}
