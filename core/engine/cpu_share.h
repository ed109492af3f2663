// Whether auto's CPU takes requests beside a ready GPU, decided from what the whole job gets: the bytes both engines
// finish per second. The per-request rule (auto_engine.h) sees each engine's own rate, not what a CPU request costs
// the rest of the job: it runs on every core, and a job bound by its readers (the page-cache copy), its writers or
// host memory gets slower though the CPU's rate looks worth it. So auto tries the modes against each other:
// `lead_in` periods of the GPU alone (the job warms up; the last one's rate stands), a trial of a challenger, then
// `exploit` periods of the better one (2 and 4 for the first two choices), then the other one again (the better one
// may change as the job moves on, or the first periods may have been unlucky: they run while the job warms up).
// The challenger depends on what bounds the job, read from the GPU's busy time in the latest period of the GPU
// alone (the share of it in which the GPU had a request of this job):
// - busy at least `busy_share`: the GPU may be the bottleneck, and the CPU taking requests beside it (mixed) may add
//   to it;
// - less: the job is bound by its storage or by host memory, where requests on the CPU beside the GPU only take
//   cores from the readers and writers; but the CPU alone may be faster than the GPU alone: the GPU's requests cross
//   host memory twice more (DMA there and back), which a host short of memory bandwidth feels in the readers' and
//   writers' copies. A trial of the CPU alone in which the CPU was busy for `cpu_bound_share` of the time and did not
//   win shows the CPU's own work too large for it (a cascade: its cores crunch half the time or more, beside the
//   readers and writers they would serve), and one that ran below `far_below` times the GPU alone's rate a gap of
//   that kind: such gaps do not close during a job, and the CPU alone is not tried again. (Single periods of a job
//   bound by one writer swing by 20%: one lucky trial would otherwise keep a losing CPU alone for several periods.)
// A challenger is kept only where it beats the GPU alone by `gain`: the CPU's cores cost more than the GPU's time.
// The lead-in spares a short job (an export of a few GB at tens of GB/s lasts a handful of periods) a trial that
// would be a large share of it; a long job tries the CPU a fraction of a second later. Each mode's rate is smoothed
// over its periods (the newest weighs `smoothing`): a job bound by one writer finishes its requests unevenly, so
// one period's rate can swing by more than the difference the trials must see.
// A period lasts at least period_s and min_requests finished requests; what finishes in its first settle share is
// not counted (requests chosen under the previous mode are still finishing). A trial of mixed lasts until the CPU
// finished a request in it: before that it was the GPU alone too, and says nothing of the CPU (which the per-request
// rule may give only a probe now and then). Time is passed in: tests drive it.
#pragma once
#include <cstdint>
#include <string>

namespace warpvol {

class CpuShare {
 public:
  struct Config {
    double period_s = 0.064;
    unsigned min_requests = 16;
    unsigned exploit = 8;   // periods of the chosen mode between two trials of the other
    double gain = 1.03;     // a challenger must be this much faster than the GPU alone to be chosen
    double settle = 0.25;   // share of a period whose finished requests are not counted
    double smoothing = 1.0 / 3;  // weight of a mode's newest period in its rate (1: the latest period alone)
    unsigned lead_in = 5;   // periods of the GPU alone before the first trial (0: mixed first)
    double busy_share = 0.5;       // the GPU busy for less of a period: the CPU alone is the challenger
    double cpu_bound_share = 0.5;  // a CPU alone busy for this much of its trial, and no faster: not tried again
    double far_below = 0.85;       // nor one whose trial ran below this share of the GPU alone's rate
  };
  enum Mode { kMixed = 0, kGpuAlone = 1, kCpuAlone = 2 };
  // Seconds each engine has had at least one of the job's requests, since any fixed origin (non-decreasing); a
  // negative figure: not known (the GPU counts as busy, the CPU alone is never tried).
  struct Busy {
    double gpu, cpu;
  };
  CpuShare() : CpuShare(Config{}) {}
  explicit CpuShare(Config c) : c_(c), mode_(c.lead_in ? kGpuAlone : kMixed), lead_in_left_(c.lead_in) {}

  Mode mode() const { return mode_; }
  bool cpu_allowed() const { return mode_ != kGpuAlone; }
  bool gpu_allowed() const { return mode_ != kCpuAlone; }
  // A request of `bytes` finished at t (seconds, any origin; non-decreasing), on the CPU or on the GPU.
  void done(uint64_t bytes, double t, bool on_cpu, Busy busy);
  void done(uint64_t bytes, double t, bool on_cpu) { done(bytes, t, on_cpu, Busy{-1, -1}); }
  // What was measured and chosen (--verbose); "" before the first period ended.
  std::string summary() const;
  unsigned periods() const { return periods_[kMixed] + periods_[kGpuAlone] + periods_[kCpuAlone]; }
  unsigned mixed_periods() const { return periods_[kMixed]; }
  unsigned periods_of(Mode m) const { return periods_[m]; }
  // The measured rate of the job with the CPU taking part (mixed) or with the GPU alone, smoothed; 0: not yet.
  double rate(bool mixed) const { return rate_[mixed ? kMixed : kGpuAlone]; }
  double rate_of(Mode m) const { return rate_[m]; }
  bool cpu_alone_ruled_out() const { return cpu_alone_out_; }
  // The caller knows the CPU alone too slow for this job (auto's rate for a job bound by one writer): it is never
  // tried; the CPU beside a busy GPU still is.
  void rule_out_cpu_alone() { cpu_alone_out_ = ruled_out_by_caller_ = true; }

 private:
  void end_period(double t, Busy busy);
  // The mode to try against the GPU alone after a period of it whose GPU was busy for `gpu_busy` of the time;
  // kGpuAlone: none worth a trial.
  Mode challenger(double gpu_busy) const;
  Config c_;
  Mode mode_;
  unsigned lead_in_left_;     // periods of the lead-in still to run
  bool started_ = false;
  double start_ = 0;          // this period's start
  Busy busy0_{-1, -1};        // the engines' busy seconds at its start
  uint64_t bytes_ = 0;        // counted in this period (after its settle share)
  unsigned requests_ = 0;     // finished in this period
  bool cpu_done_ = false;     // the CPU finished a request in this period
  double rate_[3] = {0, 0, 0};  // each mode's measured rate (bytes per second), smoothed over its periods
  unsigned periods_[3] = {0, 0, 0};
  double last_gpu_busy_ = 1;  // the GPU's busy share in the latest period of the GPU alone
  bool cpu_alone_out_ = false;  // a trial showed the CPU alone bound by itself and slower, or far slower
  bool ruled_out_by_caller_ = false;  // rule_out_cpu_alone()
  Mode challenger_ = kMixed;  // the mode last tried against the GPU alone
  unsigned exploiting_ = 0;   // periods of the chosen mode since the last trial
  unsigned exploit_for_ = 0;  // periods the current choice is kept
  unsigned choices_ = 0;      // choices made so far
  bool trial_ = true;         // this period is a trial of a mode (not a chosen one's)
};

}  // namespace warpvol
