// Rendering core's ProgressUpdate: on a TTY a one-line bar on stderr (phase, bytes, percent, speed, ETA),
// JSON lines on stderr with --progress-json, nothing otherwise. Thread-safe; updates are rate-limited.
#pragma once
#include <chrono>
#include <iosfwd>
#include <mutex>
#include <string>

#include "core/util/progress.h"

namespace warpvol::cli {

enum class ProgressMode { None, Tty, Json };

// Json when asked; Tty when stderr is a terminal and not quiet; None otherwise.
ProgressMode choose_progress_mode(bool progress_json, bool quiet);

class ProgressRenderer {
 public:
  ProgressRenderer(ProgressMode mode, std::ostream& err);
  ~ProgressRenderer();
  void update(const ProgressUpdate& u);
  // Final line (TTY: ends the bar with a newline). Called by the destructor when not called before.
  void finish(const ProgressUpdate& u);
  ProgressMode mode() const { return mode_; }

 private:
  void render(const ProgressUpdate& u, bool final);
  ProgressMode mode_;
  std::ostream& err_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point start_, last_;
  bool started_ = false, finished_ = false, drew_ = false;
  size_t last_width_ = 0;
};

std::string format_duration(double seconds);  // "0:07", "1:02:03"

// Bytes per second over `elapsed` seconds, or -1 (unknown) when the interval is too short to mean anything: a
// final line right after the start (nothing was measured, e.g. a hidden volume whose area is not filled) must not
// divide by a few microseconds.
double progress_rate(uint64_t bytes, double elapsed);
constexpr double kMinRateSeconds = 0.25;

}  // namespace warpvol::cli
