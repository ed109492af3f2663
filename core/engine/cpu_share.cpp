#include "core/engine/cpu_share.h"

#include <algorithm>
#include <cstdio>

namespace warpvol {

namespace {
// The share of [t0, t1] in which an engine was busy, from its busy seconds at both ends; -1: not known.
double busy_share(double at0, double at1, double t0, double t1) {
  if (at0 < 0 || at1 < 0 || t1 <= t0) return -1;
  return std::clamp((at1 - at0) / (t1 - t0), 0.0, 1.0);
}
}  // namespace

void CpuShare::done(uint64_t bytes, double t, bool on_cpu, Busy busy) {
  if (!started_) {  // the first request's start is not known: the first period starts at its end
    started_ = true;
    start_ = t;
    busy0_ = busy;
    return;
  }
  ++requests_;
  cpu_done_ |= on_cpu;
  if (t >= start_ + c_.settle * c_.period_s) bytes_ += bytes;
  if (t - start_ >= c_.period_s && requests_ >= c_.min_requests && (cpu_done_ || !trial_ || mode_ != kMixed))
    end_period(t, busy);
}

CpuShare::Mode CpuShare::challenger(double gpu_busy) const {
  if (gpu_busy < 0 || gpu_busy >= c_.busy_share) return kMixed;
  return cpu_alone_out_ ? kGpuAlone : kCpuAlone;
}

void CpuShare::end_period(double t, Busy busy) {
  const double counted = t - (start_ + c_.settle * c_.period_s);
  const double r = double(bytes_) / counted;
  const bool lead_in = lead_in_left_ > 0;  // the GPU alone while the job warms up: the latest period's rate stands
  rate_[mode_] = rate_[mode_] > 0 && !lead_in ? c_.smoothing * r + (1 - c_.smoothing) * rate_[mode_] : r;
  ++periods_[mode_];
  if (mode_ == kGpuAlone) {
    const double g = busy_share(busy0_.gpu, busy.gpu, start_, t);
    last_gpu_busy_ = g < 0 ? 1 : g;
  }
  if (mode_ == kCpuAlone && ((busy_share(busy0_.cpu, busy.cpu, start_, t) >= c_.cpu_bound_share &&
                              rate_[kCpuAlone] <= c_.gain * rate_[kGpuAlone]) ||
                             rate_[kCpuAlone] < c_.far_below * rate_[kGpuAlone]))
    cpu_alone_out_ = true;  // the CPU's own work took half its cores' time or more, and did not win; or far slower
  // A trial of the mode worth trying against the GPU alone after the period just ended (one of the GPU alone);
  // none: the GPU alone goes on for another round of periods.
  auto try_challenger = [&] {
    const Mode m = challenger(last_gpu_busy_);
    exploiting_ = 0;
    if (m == kGpuAlone) {
      trial_ = false;
      if (exploit_for_ == 0) exploit_for_ = std::min(c_.exploit, 2u << std::min(choices_++, 8u));
      return;
    }
    mode_ = challenger_ = m;
    trial_ = true;
  };
  if (lead_in) {
    if (--lead_in_left_ == 0) try_challenger();  // the first trial
  } else if (trial_) {
    if (mode_ == kMixed && periods_[kGpuAlone] == 0) {
      mode_ = kGpuAlone;  // no lead-in: the first trials are mixed, then the GPU alone
    } else {
      const bool keep = rate_[challenger_] > c_.gain * rate_[kGpuAlone] &&
                        !(challenger_ == kCpuAlone && cpu_alone_out_);
      mode_ = keep ? challenger_ : kGpuAlone;
      trial_ = false;
      exploiting_ = 0;
      // The first choices are kept for fewer periods (2, 4, then c_.exploit): the first trials run while the job
      // and the per-request rule warm up, and a choice they got wrong is corrected soon.
      exploit_for_ = std::min(c_.exploit, 2u << std::min(choices_++, 8u));
    }
  } else if (++exploiting_ >= exploit_for_) {
    if (mode_ == kGpuAlone) {
      try_challenger();
    } else {
      mode_ = kGpuAlone;
      trial_ = true;
    }
  }
  start_ = t;
  busy0_ = busy;
  bytes_ = 0;
  requests_ = 0;
  cpu_done_ = false;
}

std::string CpuShare::summary() const {
  if (periods() == 0) return "";
  char b[600];
  if (periods_[kMixed] == 0 && periods_[kCpuAlone] == 0 && !ruled_out_by_caller_) {
    std::snprintf(b, sizeof b,
                  "engine auto, the CPU beside the GPU: not tried (the job ended within the first %u periods of at "
                  "least %.0f ms, run by the GPU alone, at %.2f GB/s)",
                  c_.lead_in + 1, c_.period_s * 1e3, rate_[kGpuAlone] / 1e9);
    return b;
  }
  std::string modes;
  auto add = [&](Mode m, const char* what) {
    if (periods_[m] == 0) return;
    char f[120];
    std::snprintf(f, sizeof f, "%s%.2f GB/s %s (%u periods)", modes.empty() ? "" : ", ", rate_[m] / 1e9, what,
                  periods_[m]);
    modes += f;
  };
  add(kGpuAlone, "with the GPU alone");
  add(kMixed, "with the CPU taking requests beside it");
  add(kCpuAlone, "with the CPU alone");
  char alone[96] = "", out[120] = "";
  if (c_.busy_share > 0)
    std::snprintf(alone, sizeof alone, "; the CPU alone is tried where the GPU idled for %.0f%% of a period or more",
                  (1 - c_.busy_share) * 100);
  if (ruled_out_by_caller_)
    std::snprintf(out, sizeof out, "; the CPU alone: not tried (measured too slow for this job before it began)");
  else if (cpu_alone_out_)
    std::snprintf(out, sizeof out,
                  "; the CPU alone was far slower, or busy for %.0f%% of its trial or more and no faster: not tried "
                  "again",
                  c_.cpu_bound_share * 100);
  std::snprintf(b, sizeof b,
                "engine auto, the CPU beside the GPU: the job ran at %s, smoothed over periods of at least %.0f ms; "
                "the CPU took part in %u of %u periods (a mode is kept only where the job gains %.0f%% with it over "
                "the GPU alone%s)%s",
                modes.c_str(), c_.period_s * 1e3, periods_[kMixed] + periods_[kCpuAlone], periods(),
                (c_.gain - 1) * 100, alone, out);
  return b;
}

}  // namespace warpvol
