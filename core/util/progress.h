// Progress of a long operation as core reports it; the CLI renders it (bar with speed and ETA on a TTY, JSON
// lines with --progress-json) and the GUI shows it in dialogs. Callbacks may be invoked from worker threads.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace warpvol {

struct ProgressUpdate {
  std::string item;        // which volume/file (batch operations), may be empty
  std::string phase;       // "export", "fill", "reencrypt", "verify", ...
  uint64_t bytes_done = 0;
  uint64_t bytes_total = 0;
  bool finished = false;
};

using ProgressFn = std::function<void(const ProgressUpdate&)>;

// Cooperative cancellation for long operations (SIGINT/SIGTERM in the CLI, Cancel in the GUI). Operations
// check it at their safe points and throw Error(Interrupted).
struct CancelToken {
  std::function<bool()> requested;  // may be empty
  bool operator()() const { return requested && requested(); }
};

}  // namespace warpvol
