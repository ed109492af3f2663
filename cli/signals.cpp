#include "cli/signals.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "core/kdf/kdf_stop.h"

namespace warpvol::cli {
namespace {
// A lock-free atomic, not a volatile sig_atomic_t: the flag is read by a job's worker threads (the stream's cancel
// token), and volatile orders nothing between threads (ThreadSanitizer reported the handler's write against a
// worker's read as a data race).
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "on_signal() must be async-signal-safe");

// The key search polls its own stop flag (kdf_stop.h), not g_signal: set both. errno is kept for the code the
// signal interrupted.
extern "C" void on_signal(int sig) {
  const int saved_errno = errno;
  g_signal.store(sig, std::memory_order_relaxed);
  request_kdf_stop();
  errno = saved_errno;
}
}  // namespace

void install_signal_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking read (password prompt) returns EINTR
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  struct sigaction ign;
  std::memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, nullptr);
}

bool interrupt_requested() { return g_signal.load(std::memory_order_relaxed) != 0; }

}  // namespace warpvol::cli
