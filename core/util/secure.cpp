#include "core/util/secure.h"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace warpvol {

namespace {

int default_lock(const void* p, size_t n) { return ::mlock(p, n); }
int default_unlock(const void* p, size_t n) { return ::munlock(p, n); }

// mlock() works on whole pages and does not nest: one munlock() unlocks a page whatever else on it is still
// secret. So every page is counted: locked when its first secret arrives, unlocked when its last one leaves.
struct LockTable {
  std::mutex mu;
  std::unordered_map<uintptr_t, uint32_t> pages;  // page address -> number of live locked ranges on it
  MemoryLockBackend backend{default_lock, default_unlock};
  std::function<void(const std::string&)> notice;
  bool reported = false;
};

LockTable& table() {
  static LockTable* t = new LockTable;  // never destroyed: static LockedBytes are released after main() returns
  return *t;
}

uintptr_t page_size() {
  static const uintptr_t ps = uintptr_t(::sysconf(_SC_PAGESIZE));
  return ps;
}

// Calls fn(start, bytes) for each run of consecutive pages in the sorted list.
template <class F>
void for_runs(const std::vector<uintptr_t>& pages, F fn) {
  const uintptr_t ps = page_size();
  for (size_t i = 0; i < pages.size();) {
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + ps) ++j;
    fn(reinterpret_cast<void*>(pages[i]), (j - i) * ps);
    i = j;
  }
}

}  // namespace

void lock_memory(const void* p, size_t n) {
  if (!p || !n) return;
  const uintptr_t ps = page_size();
  const uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~(ps - 1);
  const uintptr_t last = (reinterpret_cast<uintptr_t>(p) + n - 1) & ~(ps - 1);
  LockTable& t = table();
  std::function<void(const std::string&)> notice;
  std::string failure;
  {
    std::lock_guard<std::mutex> lk(t.mu);
    std::vector<uintptr_t> fresh;
    for (uintptr_t a = first; a <= last; a += ps)
      if (++t.pages[a] == 1) fresh.push_back(a);
    for_runs(fresh, [&](void* start, size_t len) {
      // Keys must not reach a core dump either (the process is also made non-dumpable at start).
      (void)::madvise(start, len, MADV_DONTDUMP);
      if (t.backend.lock(start, len) != 0 && !t.reported && failure.empty()) {
        const int e = errno;
        struct rlimit rl {};
        ::getrlimit(RLIMIT_MEMLOCK, &rl);
        failure = std::string("warning: cannot lock secret memory in RAM (mlock: ") + std::strerror(e) +
                  "; RLIMIT_MEMLOCK " +
                  (rl.rlim_cur == RLIM_INFINITY ? std::string("unlimited") : std::to_string(rl.rlim_cur)) +
                  " bytes): keys and passwords may reach swap";
      }
    });
    if (!failure.empty()) {
      t.reported = bool(t.notice);  // reported once; without a listener, the next failure may still be
      notice = t.notice;
    }
  }
  if (notice) notice(failure);
}

void unlock_memory(const void* p, size_t n) {
  if (!p || !n) return;
  const uintptr_t ps = page_size();
  const uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~(ps - 1);
  const uintptr_t last = (reinterpret_cast<uintptr_t>(p) + n - 1) & ~(ps - 1);
  LockTable& t = table();
  std::lock_guard<std::mutex> lk(t.mu);
  std::vector<uintptr_t> released;
  for (uintptr_t a = first; a <= last; a += ps) {
    auto it = t.pages.find(a);
    if (it == t.pages.end()) continue;
    if (--it->second == 0) {
      t.pages.erase(it);
      released.push_back(a);
    }
  }
  for_runs(released, [&](void* start, size_t len) {
    (void)t.backend.unlock(start, len);
    (void)::madvise(start, len, MADV_DODUMP);
  });
}

uint32_t memory_lock_count(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p) & ~(page_size() - 1);
  LockTable& t = table();
  std::lock_guard<std::mutex> lk(t.mu);
  auto it = t.pages.find(a);
  return it == t.pages.end() ? 0 : it->second;
}

MemoryLockBackend set_memory_lock_backend(MemoryLockBackend b) {
  LockTable& t = table();
  std::lock_guard<std::mutex> lk(t.mu);
  MemoryLockBackend old = t.backend;
  t.backend = b;
  return old;
}

void set_memory_lock_failure_notice(std::function<void(const std::string&)> fn) {
  LockTable& t = table();
  std::lock_guard<std::mutex> lk(t.mu);
  t.notice = std::move(fn);
}

void make_process_undumpable() { (void)::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

void secure_wipe(void* p, size_t n) {
  if (!p || !n) return;
  explicit_bzero(p, n);
}

}  // namespace warpvol
