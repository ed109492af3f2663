#include "cli/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/command.h"

namespace warpvol::cli {

ProgressMode choose_progress_mode(bool progress_json, bool quiet) {
  if (progress_json) return ProgressMode::Json;
  if (!quiet && ::isatty(STDERR_FILENO)) return ProgressMode::Tty;
  return ProgressMode::None;
}

std::string format_duration(double seconds) {
  if (seconds < 0 || seconds != seconds) return "--:--";
  long s = long(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

double progress_rate(uint64_t bytes, double elapsed) {
  if (!(elapsed >= kMinRateSeconds)) return -1;
  return double(bytes) / elapsed;
}

ProgressRenderer::ProgressRenderer(ProgressMode mode, std::ostream& err) : mode_(mode), err_(err) {}

ProgressRenderer::~ProgressRenderer() {
  std::lock_guard<std::mutex> lock(mu_);
  if (mode_ == ProgressMode::Tty && drew_ && !finished_) err_ << std::endl;  // leave the bar on its own line
}

void ProgressRenderer::update(const ProgressUpdate& u) {
  std::lock_guard<std::mutex> lock(mu_);
  if (mode_ == ProgressMode::None || finished_) return;
  auto now = std::chrono::steady_clock::now();
  if (!started_) {
    started_ = true;
    start_ = now;
    last_ = now;
    render(u, false);  // the first update is always shown (the total is known from here)
    return;
  }
  const auto min_gap = mode_ == ProgressMode::Tty ? std::chrono::milliseconds(100) : std::chrono::milliseconds(500);
  if (now - last_ < min_gap && !u.finished) return;
  last_ = now;
  render(u, u.finished);
  if (u.finished) finished_ = true;
}

void ProgressRenderer::finish(const ProgressUpdate& u) {
  std::lock_guard<std::mutex> lock(mu_);
  if (mode_ == ProgressMode::None || finished_) return;
  if (!started_) {
    started_ = true;
    start_ = std::chrono::steady_clock::now();
  }
  ProgressUpdate f = u;
  f.finished = true;
  render(f, true);
  finished_ = true;
}

void ProgressRenderer::render(const ProgressUpdate& u, bool final) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double speed = progress_rate(u.bytes_done, elapsed);
  const double remaining = u.bytes_total > u.bytes_done ? double(u.bytes_total - u.bytes_done) : 0;
  const double eta = speed > 0 ? remaining / speed : -1;
  const double pct = u.bytes_total ? 100.0 * double(u.bytes_done) / double(u.bytes_total) : (final ? 100.0 : 0.0);
  if (mode_ == ProgressMode::Json) {
    nlohmann::json j = {{"type", "progress"},
                        {"phase", u.phase},
                        {"bytes_done", u.bytes_done},
                        {"bytes_total", u.bytes_total},
                        {"percent", std::round(pct * 10) / 10},
                        {"bytes_per_second", speed >= 0 ? nlohmann::json(std::round(speed)) : nlohmann::json()},
                        {"elapsed_seconds", std::round(elapsed * 1000) / 1000},
                        {"finished", final}};
    if (!u.item.empty()) j["item"] = u.item;
    if (eta >= 0 && !final) j["eta_seconds"] = std::round(eta * 10) / 10;
    err_ << j.dump() << std::endl;
    return;
  }
  // TTY: "export  12.0 MiB / 64.0 MiB  18.8%  [#####.....]  812.3 MiB/s  ETA 0:03"
  const int width = 24;
  int filled = int(pct / 100.0 * width + 0.5);
  if (filled > width) filled = width;
  std::string bar = std::string(size_t(filled), '#') + std::string(size_t(width - filled), '.');
  char line[256];
  std::snprintf(line, sizeof line, "%s%s%s  %s / %s  %5.1f%%  [%s]  %s/s  %s %s", u.item.empty() ? "" : u.item.c_str(),
                u.item.empty() ? "" : ": ", u.phase.c_str(), format_bytes(u.bytes_done).c_str(),
                format_bytes(u.bytes_total).c_str(), pct, bar.c_str(), speed >= 0 ? format_bytes(uint64_t(speed)).c_str() : "-",
                final ? "in" : "ETA", format_duration(final ? elapsed : eta).c_str());
  std::string s = line;
  const size_t len = s.size();
  if (len < last_width_) s += std::string(last_width_ - len, ' ');
  last_width_ = len;
  err_ << '\r' << s;
  if (final) err_ << std::endl;
  else err_ << std::flush;
  drew_ = true;
}

}  // namespace warpvol::cli
