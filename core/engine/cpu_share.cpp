#include "core/engine/cpu_share.h"

#include <algorithm>
#include <cstdio>

namespace warpvol {

void CpuShare::done(uint64_t bytes, double t, bool on_cpu) {
  if (!started_) {  // the first request's start is not known: the first period starts at its end
    started_ = true;
    start_ = t;
    return;
  }
  ++requests_;
  cpu_done_ |= on_cpu;
  if (t >= start_ + c_.settle * c_.period_s) bytes_ += bytes;
  if (t - start_ >= c_.period_s && requests_ >= c_.min_requests && (cpu_done_ || !trial_ || mode_ != kMixed))
    end_period(t);
}

void CpuShare::end_period(double t) {
  const double counted = t - (start_ + c_.settle * c_.period_s);
  const double r = double(bytes_) / counted;
  const bool lead_in = lead_in_left_ > 0;  // the GPU alone while the job warms up: the latest period's rate stands
  rate_[mode_] = rate_[mode_] > 0 && !lead_in ? c_.smoothing * r + (1 - c_.smoothing) * rate_[mode_] : r;
  ++periods_[mode_];
  const Mode other = mode_ == kMixed ? kGpuAlone : kMixed;
  if (lead_in) {
    if (--lead_in_left_ == 0) mode_ = kMixed;  // the first trial
  } else if (trial_) {
    if (periods_[other] == 0) {
      mode_ = other;  // the first trials: each mode once
    } else {
      mode_ = better();
      trial_ = false;
      exploiting_ = 0;
      // The first choices are kept for fewer periods (2, 4, then c_.exploit): the first trials run while the job
      // and the per-request rule warm up, and a choice they got wrong is corrected soon.
      exploit_for_ = std::min(c_.exploit, 2u << std::min(choices_++, 8u));
    }
  } else if (++exploiting_ >= exploit_for_) {
    mode_ = other;
    trial_ = true;
  }
  start_ = t;
  bytes_ = 0;
  requests_ = 0;
  cpu_done_ = false;
}

std::string CpuShare::summary() const {
  if (periods() == 0) return "";
  char b[400];
  if (periods_[kMixed] == 0) {
    std::snprintf(b, sizeof b,
                  "engine auto, the CPU beside the GPU: not tried (the job ended within the first %u periods of at "
                  "least %.0f ms, run by the GPU alone, at %.2f GB/s)",
                  c_.lead_in + 1, c_.period_s * 1e3, rate_[kGpuAlone] / 1e9);
    return b;
  }
  std::snprintf(b, sizeof b,
                "engine auto, the CPU beside the GPU: the job ran at %.2f GB/s with the CPU taking requests and %.2f "
                "GB/s with the GPU alone (smoothed over periods of at least %.0f ms); the CPU took part in %u of %u "
                "periods (it is kept only where the job gains %.0f%% with it)",
                rate_[kMixed] / 1e9, rate_[kGpuAlone] / 1e9, c_.period_s * 1e3, periods_[kMixed], periods(),
                (c_.gain - 1) * 100);
  return b;
}

}  // namespace warpvol
