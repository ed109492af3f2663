#include "cli/signals.h"

#include <csignal>
#include <cstring>

#include "core/kdf/kdf_stop.h"

namespace warpvol::cli {
namespace {
volatile std::sig_atomic_t g_signal = 0;

// The key search polls its own stop flag (kdf_stop.h), not g_signal: set both.
extern "C" void on_signal(int sig) {
  g_signal = sig;
  request_kdf_stop();
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

bool interrupt_requested() { return g_signal != 0; }

}  // namespace warpvol::cli
