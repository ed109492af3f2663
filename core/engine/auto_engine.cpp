#include "core/engine/auto_engine.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <exception>
#include <future>
#include <mutex>
#include <vector>

#include "core/crypto/unit_xxh3.h"
#include "core/util/aligned_buffer.h"
#include "core/util/env.h"
#include "core/util/parallel.h"
#include "core/util/secure.h"

namespace warpvol {

namespace {

// The CPU engine's key, and the GPU engine's once the GPU takes a request of it: while the GPU is starting, the
// key material is kept (locked memory, wiped once the GPU key is made or the key is dropped).
class AutoKey final : public EngineKey {
 public:
  AutoKey(ChainId c, std::shared_ptr<const EngineKey> cpu, std::shared_ptr<const EngineKey> gpu,
          const uint8_t* material)
      : chain_(c), cpu_(std::move(cpu)), gpu_(std::move(gpu)) {
    if (!gpu_) material_ = LockedBytes(material, 2 * chain_info(c).key_size());
  }
  ChainId chain() const override { return chain_; }
  const EngineKey& gpu_key(XtsEngine& gpu) const {
    std::lock_guard<std::mutex> lk(mu_);
    if (!gpu_) {
      gpu_ = gpu.prepare(chain_, material_.data());
      material_ = LockedBytes();
    }
    return *gpu_;
  }
  ChainId chain_;
  std::shared_ptr<const EngineKey> cpu_;

 private:
  mutable std::mutex mu_;
  mutable std::shared_ptr<const EngineKey> gpu_;
  mutable LockedBytes material_;
};

const AutoKey& auto_key(const EngineKey& k) { return static_cast<const AutoKey&>(k); }
// The CPU engine's key: a legacy key is the CPU engine's own, the others are AutoKeys.
const EngineKey& cpu_side(const EngineKey& k) { return k.legacy() ? k : *auto_key(k).cpu_; }

// WARPVOL_AUTO_TRIALS=off: the CPU may always take requests beside the GPU (measurements against the trials).
bool trials_wanted() {
  const char* e = std::getenv("WARPVOL_AUTO_TRIALS");
  return !(e && std::strcmp(e, "off") == 0);
}

// WARPVOL_AUTO_TRIALS=latest: each mode's latest period alone decides (measurements against the smoothed rates);
// =mixed: the challenger is always the CPU beside the GPU, never the CPU alone (measurements against that trial);
// WARPVOL_AUTO_LEAD_IN=N: N periods of the GPU alone before the first trial (measurements of the lead-in);
// WARPVOL_AUTO_CPU_BOUND=P: a CPU alone busy for P% of its trial and not faster is not tried again (measurements
// of that share).
CpuShare::Config share_config() {
  CpuShare::Config c;
  const char* e = std::getenv("WARPVOL_AUTO_TRIALS");
  if (e && std::strcmp(e, "latest") == 0) c.smoothing = 1;
  if (e && std::strcmp(e, "mixed") == 0) c.busy_share = 0;
  c.lead_in = unsigned(env_number("WARPVOL_AUTO_LEAD_IN", 0, 1000).value_or(c.lead_in));
  if (const auto p = env_number("WARPVOL_AUTO_CPU_BOUND", 1, 100)) c.cpu_bound_share = double(*p) / 100;
  return c;
}

// WARPVOL_AUTO_PIECE=N: synchronous calls split into pieces of N MiB (measurements of the piece size).
size_t piece_units_wanted() {
  const size_t mib = size_t(env_number("WARPVOL_AUTO_PIECE", 1, 1024).value_or(long(AutoEngine::kPieceBytes >> 20)));
  return (mib << 20) / kDataUnitSize;
}

// WARPVOL_AUTO_PROBE=whole: a probe of the CPU takes the whole request (measurements against the slices).
bool probe_slices_wanted() {
  const char* e = std::getenv("WARPVOL_AUTO_PROBE");
  return !(e && std::strcmp(e, "whole") == 0);
}

std::string gbps(double bytes_per_s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GB/s", bytes_per_s / 1e9);
  return b;
}

}  // namespace

namespace {
std::shared_future<std::shared_ptr<XtsEngine>> ready(std::shared_ptr<XtsEngine> e) {
  std::promise<std::shared_ptr<XtsEngine>> p;
  p.set_value(std::move(e));
  return p.get_future().share();
}
}  // namespace

AutoEngine::AutoEngine(std::shared_ptr<XtsEngine> cpu, std::shared_ptr<XtsEngine> gpu,
                       std::map<ChainId, size_t> crossover, std::function<void(const std::string&)> summary)
    : AutoEngine(std::move(cpu), ready(std::move(gpu)), std::move(crossover), std::move(summary)) {}

// Buffers of io_buffer() handed out while the GPU engine starts (by address: size, page-locked yet), and the GPU
// engine once settled (null: it could not start). Shared with the buffers' release functions, which may run after
// the AutoEngine is gone: a pinned buffer is unpinned before it is freed.
struct AutoEngine::LatePins {
  std::mutex mu;
  bool settled = false;
  std::shared_ptr<XtsEngine> gpu;
  std::map<uint8_t*, std::pair<size_t, bool>> buffers;
};

AutoEngine::AutoEngine(std::shared_ptr<XtsEngine> cpu, std::shared_future<std::shared_ptr<XtsEngine>> starting,
                       std::map<ChainId, size_t> crossover, std::function<void(const std::string&)> summary)
    : cpu_(std::move(cpu)), gpu_future_(std::move(starting)), crossover_(std::move(crossover)),
      summary_(std::move(summary)), trials_(trials_wanted()), share_(share_config()),
      probe_slices_(probe_slices_wanted()), piece_units_(piece_units_wanted()) {
  late_ = std::make_shared<LatePins>();
  if (gpu_future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    settle();
    gpu_ready_at_ = 0;
    return;
  }
  // The GPU joins as soon as it is ready, not at the next request: pinning the buffers handed out meanwhile takes
  // a few milliseconds, better spent on this thread than on a request's.
  starter_ = std::thread([this] {
    gpu_future_.wait();
    settle();
  });
}

void AutoEngine::settle() const {
  std::lock_guard<std::mutex> lk(late_->mu);
  if (late_->settled) return;
  std::shared_ptr<XtsEngine> g = gpu_future_.get();
  if (g)
    for (auto& [p, b] : late_->buffers) b.second = g->pin_host(p, b.first);
  late_->gpu = g;
  late_->settled = true;
  gpu_.store(g.get(), std::memory_order_release);
  gpu_ready_at_ = now();
  gpu_settled_.store(true, std::memory_order_release);
}

XtsEngine* AutoEngine::gpu() const {
  if (gpu_settled_.load(std::memory_order_acquire)) return gpu_.load(std::memory_order_acquire);
  if (gpu_future_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return nullptr;
  settle();
  return gpu_.load(std::memory_order_acquire);
}

std::string AutoEngine::request_stats() const {
  const XtsEngine* g = gpu();
  return g ? g->request_stats() : std::string();
}

IoBuffer AutoEngine::io_buffer(size_t bytes) {
  {
    std::lock_guard<std::mutex> lk(late_->mu);
    if (!late_->settled) {
      auto* b = new AlignedBuffer(bytes);
      late_->buffers[b->data()] = {b->size(), false};
      return IoBuffer(
          b->data(), b->size(),
          [late = late_, b](uint8_t* p, size_t) {
            {
              std::lock_guard<std::mutex> lk(late->mu);
              auto it = late->buffers.find(p);
              if (it != late->buffers.end()) {
                if (it->second.second) late->gpu->unpin_host(p);
                late->buffers.erase(it);
              }
            }
            delete b;
          },
          false);
    }
  }
  XtsEngine* g = gpu();
  return g ? g->io_buffer(bytes) : cpu_->io_buffer(bytes);
}

unsigned AutoEngine::concurrency() const {
  if (XtsEngine* g = gpu()) return std::max(g->concurrency(), cpu_->concurrency());
  return std::max(gpu_settled_ ? 0u : kStartingGpuCallers, cpu_->concurrency());
}

AutoEngine::~AutoEngine() {
  const double ended = now();
  if (starter_.joinable()) starter_.join();
  if (!summary_) return;
  if (gpu_ready_at_ > ended) {
    summary_("engine auto: the job ended before the GPU engine was ready: the CPU did all");
  } else if (gpu_ready_at_ > 0) {
    char b[160];
    std::snprintf(b, sizeof b, "engine auto: the GPU engine was ready %.2f s into the job%s", gpu_ready_at_,
                  gpu_.load() ? "; the CPU took the requests until then" : ", but could not start: the CPU did all");
    summary_(b);
  }
  for (const auto& [op, st] : stats_) {
    const auto& [a, b, d] = op;
    std::string what = b >= 0 ? "re-encrypt " + std::string(chain_info(ChainId(a)).name) + " -> " +
                                    std::string(chain_info(ChainId(b)).name)
                              : std::string(d == int(Direction::Encrypt) ? "encrypt " : "decrypt ") +
                                    std::string(chain_info(ChainId(a)).name);
    std::string line = "engine auto, " + what + ":";
    const char* names[2] = {"CPU", "GPU"};
    for (int l : {kGpu, kCpu}) {
      const LaneStats& s = st.lane[l];
      line += std::string(" ") + names[l] + " " + std::to_string(s.bytes >> 20) + " MiB in " +
              std::to_string(s.requests) + " requests" +
              (s.probes ? " (" + std::to_string(s.probes) + " of them slices beside the GPU's rest, to measure it" +
                              (s.slice_rate > 0 ? ", at " + gbps(s.slice_rate) : "") + ")"
                        : "") +
              (s.rate > 0 ? " at " + gbps(s.rate) : "") + (l == kGpu ? ";" : "");
    }
    line += " (each request went to the engine expected to finish it first, from the rates measured in this job)";
    summary_(line);
  }
  if (trials_ && share_.periods() > 0) summary_(share_.summary());
}

std::string AutoEngine::detail() const {
  XtsEngine* g = gpu();
  return "cpu (" + cpu_->detail() + ") + gpu (" + (g ? g->detail() : gpu_settled_ ? "could not start" : "starting") +
         ")";
}

std::shared_ptr<const EngineKey> AutoEngine::prepare(ChainId chain, const uint8_t* key_material) {
  XtsEngine* g = gpu();
  return std::make_shared<AutoKey>(chain, cpu_->prepare(chain, key_material),
                                   g ? g->prepare(chain, key_material) : nullptr, key_material);
}

std::shared_ptr<const EngineKey> AutoEngine::prepare_legacy(LegacySuite suite, const uint8_t* key, uint64_t base) {
  if (summary_) summary_("engine auto: " + suite.name() + " is a TrueCrypt legacy mode: it runs on the CPU engine");
  return cpu_->prepare_legacy(suite, key, base);
}

bool AutoEngine::large(ChainId c, size_t nunits) const {
  auto it = crossover_.find(c);
  const size_t limit = it == crossover_.end() ? SIZE_MAX : it->second;
  return nunits * kDataUnitSize >= limit;
}

bool AutoEngine::cpu_only(const EngineKey& k) const {
  if (k.legacy()) return true;
  auto it = crossover_.find(k.chain());
  return it == crossover_.end() || it->second == SIZE_MAX;
}

void AutoEngine::set_one_writer(bool on, double cpu_rate) {
  const char* e = std::getenv("WARPVOL_AUTO_ONE_WRITER");
  one_writer_ = on && !(e && std::strcmp(e, "off") == 0);
  one_writer_rate_ = cpu_rate;
}

double AutoEngine::one_writer_rate(OneWriterJob job) {
  switch (job) {
    case OneWriterJob::Fill: return kFillCpuRate;
    case OneWriterJob::ExportToFile: return kExportCpuRate;
    case OneWriterJob::Reencrypt: return kReencryptCpuRate;
    case OneWriterJob::None: break;
  }
  return 0;
}

void AutoEngine::set_one_writer(OneWriterJob job) {
  set_one_writer(job != OneWriterJob::None, one_writer_rate(job));
  one_writer_pass_ = job == OneWriterJob::Fill ? Direction::Encrypt : Direction::Decrypt;
  one_writer_kind_ = job == OneWriterJob::Fill           ? "a create or an import"
                     : job == OneWriterJob::ExportToFile ? "an export to a file"
                     : job == OneWriterJob::Reencrypt    ? "a re-encryption in place"
                                                         : nullptr;
}

void AutoEngine::use_calibration(const StoredCalibration& c) {
  const std::string mine = cpu_->detail();
  std::lock_guard<std::mutex> lk(rate_mu_);
  for (const auto& [chain, r] : c.cpu_rates) {
    if (r.cpu_detail != mine) continue;
    for (const auto& [d, MBps] : {std::pair{Direction::Encrypt, r.encrypt_MBps}, {Direction::Decrypt, r.decrypt_MBps}})
      if (MBps > 0) {
        cpu_rates_[{chain, d}] = MBps * 1e6;
        calibrated_.insert({chain, d});
      }
  }
}

double AutoEngine::cpu_rate(ChainId c, Direction d) const {
  auto it = cpu_rates_.find({c, d});
  // A calibrated rate (use_calibration) stands. Else `warpvol benchmark`'s measurement (random data and key, after a
  // warm-up pass), the best of kRateProbes windows: a probe shares the cores with the job's first reads and writes and
  // with a virtual machine's neighbours, which only ever slow it, and one slowed probe sent a job to the other engine
  // than the runs before and after it (docs/perf/measurements-2026-12-02-session30.md, "auto's probe"). Only the
  // direction asked for: the job waits for its probe.
  if (it == cpu_rates_.end()) {
    const bool enc = d == Direction::Encrypt;
    const EngineRate r = measure_engine(*cpu_, c, kRateProbeBytes, kRateProbeSeconds, {}, kRateProbes,
                                        enc ? RatePasses::Encrypt : RatePasses::Decrypt);
    it = cpu_rates_.emplace(std::make_pair(c, d), (enc ? r.encrypt_MBps : r.decrypt_MBps) * 1e6).first;
  }
  return it->second;
}

double AutoEngine::cpu_job_rate(ChainId a, const ChainId* b) const {
  std::lock_guard<std::mutex> lk(rate_mu_);
  double secs_per_byte = 1 / cpu_rate(a, b ? Direction::Decrypt : one_writer_pass_);
  if (b) secs_per_byte += 1 / cpu_rate(*b, Direction::Encrypt);
  return 1 / secs_per_byte;
}

bool AutoEngine::cpu_job(const EngineKey& a, const EngineKey* b) const {
  if (cpu_only(a) && (!b || cpu_only(*b))) return true;
  if (!one_writer_ || a.legacy() || (b && b->legacy())) return false;
  const std::pair<int, int> id{int(a.chain()), b ? int(b->chain()) : -1};
  {
    std::lock_guard<std::mutex> lk(rate_mu_);
    if (auto it = cpu_jobs_.find(id); it != cpu_jobs_.end()) return it->second;
  }
  const ChainId bc = b ? b->chain() : ChainId{};
  const double rate = cpu_job_rate(a.chain(), b ? &bc : nullptr);
  std::lock_guard<std::mutex> lk(rate_mu_);
  // Two callers may have measured at once: the first decision stands.
  const bool on_cpu = cpu_jobs_.emplace(id, rate >= one_writer_rate_).first->second;
  // Below the rate the CPU alone would crunch a large share of its cores' time beside the job's readers and writer,
  // and its trials cost the job what they measured (cascades: every trial slower than the GPU alone).
  if (!on_cpu) cpu_alone_too_slow_.store(true, std::memory_order_relaxed);
  if (summary_) {
    const std::string passes = b ? "re-encrypting " + std::string(chain_info(a.chain()).name) + " to " +
                                       std::string(chain_info(bc).name)
                                 : std::string(one_writer_pass_ == Direction::Encrypt ? "encrypting " : "on ") +
                                       std::string(chain_info(a.chain()).name);
    const std::string rate_for = one_writer_kind_ ? std::string(" (the rate for ") + one_writer_kind_ + ")" : "";
    const bool calibrated = calibrated_.count({a.chain(), b ? Direction::Decrypt : one_writer_pass_}) &&
                            (!b || calibrated_.count({bc, Direction::Encrypt}));
    summary_("engine auto: the job writes one file from one thread (a few GB/s at most); the CPU engine runs its "
             "passes " + passes + " at " + gbps(rate) + " here" +
             (calibrated ? " (from `warpvol benchmark --calibrate`)"
                         : " (measured now; `warpvol benchmark --calibrate` stores a steadier figure)") +
             (on_cpu ? ", at least " + gbps(one_writer_rate_) + rate_for + ": it takes the whole job, with its own "
                                                                            "buffers and threads"
                     : ", below " + gbps(one_writer_rate_) + rate_for + ": the GPU takes part"));
  }
  return on_cpu;
}

IoBuffer AutoEngine::io_buffer_for(size_t bytes, const EngineKey& a, const EngineKey* b) {
  if (cpu_job(a, b)) return cpu_->io_buffer(bytes);
  return io_buffer(bytes);
}

unsigned AutoEngine::concurrency_for(const EngineKey& a, const EngineKey* b) const {
  if (cpu_job(a, b)) return cpu_->concurrency();
  return concurrency();
}

double AutoEngine::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

void AutoEngine::lane_started(Lane l, double t) {
  if (busy_[l].active++ == 0) busy_[l].since = t;
}

void AutoEngine::lane_ended(Lane l, double t) {
  if (--busy_[l].active == 0) busy_[l].seconds += t - busy_[l].since;
}

double AutoEngine::busy_seconds(Lane l, double t) const {
  return busy_[l].seconds + (busy_[l].active > 0 ? t - busy_[l].since : 0);
}

AutoEngine::Plan AutoEngine::pick(const Op& op, size_t nunits) {
  const bool have_gpu = gpu() != nullptr;  // before mu_: gpu() takes it to settle a GPU that just became ready
  const size_t bytes = nunits * kDataUnitSize;
  std::lock_guard<std::mutex> lk(mu_);
  OpStats& st = stats_[op];
  const double t = now();
  // Unmeasured engines count as fast as the measured one (or both as equal): each gets tried early.
  if (!have_gpu) {  // starting, or it could not start
    LaneStats& s = st.lane[kCpu];
    s.busy_until = std::max(t, s.busy_until) + double(bytes) / (s.rate > 0 ? s.rate : 1e9);
    if (s.active++ == 0) s.busy_start = t;
    lane_started(kCpu, t);
    return Plan{kCpu, nunits};
  }
  // What is known of the CPU's rate on whole requests. Its latest measurement may come from a probe's slice: a
  // lower bound, since a call's fixed costs (waking a thread on every core, which the job's own threads keep busy)
  // weigh on fewer bytes. A CPU that would not be worth a request even at kSliceBias times that counts as measured
  // at that rate; otherwise its next request is a whole one, which measures it as the rule below needs.
  const LaneStats& c = st.lane[kCpu];
  bool cpu_known = c.rate > 0;
  double cpu_rate = c.rate;
  if (c.last_slice) {
    cpu_rate = c.slice_rate * kSliceBias;
    cpu_known = st.lane[kGpu].rate > 0 && cpu_rate * kCpuMargin * kCpuMargin < st.lane[kGpu].rate;
  }
  double rate[2] = {cpu_known ? cpu_rate : 0, st.lane[kGpu].rate};
  if (rate[kCpu] <= 0 && rate[kGpu] <= 0) rate[kCpu] = rate[kGpu] = 1e9;
  else if (rate[kCpu] <= 0) rate[kCpu] = rate[kGpu];
  else if (rate[kGpu] <= 0) rate[kGpu] = rate[kCpu];
  double finish[2];
  for (int l = 0; l < 2; ++l) finish[l] = std::max(t, st.lane[l].busy_until) + double(bytes) / rate[l];
  // The CPU takes a request only if it would be done in well under the GPU's time, queue included: its requests
  // run on every core, taking them from the job's readers and writers, a cost its own measured rate does not show
  // (a job bound by memory or I/O gets slower, whatever the CPU's rate). Ties go to the GPU likewise.
  // And only where it runs at a good fraction of the GPU's rate: a GPU queue is long in bursts (a batch's zones
  // arrive together) even where the GPU is not what bounds the job, and a slow CPU request then holds up its zone.
  const bool cpu_worth = rate[kCpu] * kCpuMargin * kCpuMargin >= rate[kGpu];
  Lane lane = cpu_worth && (finish[kCpu] - t) * kCpuMargin < finish[kGpu] - t ? kCpu : kGpu;
  const Lane other = lane == kGpu ? kCpu : kGpu;
  // Measure the other engine again now and then; a CPU measured far below the GPU (not worth a request) rarely:
  // such a gap does not close during a job.
  const unsigned probe_every = other == kCpu && cpu_known && !cpu_worth ? kProbeEvery * kRareProbe : kProbeEvery;
  if (st.lane[other].passed_over >= probe_every && st.lane[other].active == 0) lane = other;
  // Until the CPU's rate is measured, it takes no more requests than it runs at once: a guessed rate (the GPU's)
  // would queue a burst of requests on it, each holding up its caller (an ordered sink, a batch's zone) for as
  // long as the CPU takes, when a cascade runs there at a tenth of the GPU's rate.
  if (lane == kCpu && !cpu_known && unsigned(c.active) >= cpu_->concurrency()) lane = kGpu;
  if (trials_ && !share_.cpu_allowed()) lane = kGpu;  // a period of the GPU alone: no request, no probe
  const bool cpu_alone = trials_ && !share_.gpu_allowed();  // a period of the CPU alone: whole requests
  if (cpu_alone) lane = kCpu;
  // A probe of a CPU measured too slow to be worth a request, and its first requests (nothing measured yet), take a
  // slice of the request, the GPU the rest at the same time: the request is done about when the GPU alone would
  // have done it, where a whole request on a CPU at a tenth of the GPU's rate held up its caller (an ordered sink,
  // a batch's zone) and every core the job's readers and writers need. The slice is the CPU's share at the rates
  // known (a quarter while unmeasured), from an eighth to a half.
  const bool slice = lane == kCpu && !cpu_alone && probe_slices_ && nunits >= 2 * kMinProbeUnits &&
                     ((cpu_known && !cpu_worth) || (!cpu_known && c.slice_rate <= 0));
  size_t cpu_units = lane == kCpu ? nunits : 0;
  if (slice) {
    const double share = cpu_known ? rate[kCpu] / (rate[kCpu] + rate[kGpu]) : 0.25;
    cpu_units = size_t(double(nunits) * std::clamp(share, 0.125, 0.5));
    cpu_units = std::clamp<size_t>(cpu_units & ~size_t(7), kMinProbeUnits, nunits - kMinProbeUnits);
  }
  const size_t gpu_units = nunits - cpu_units;
  for (Lane l : {kCpu, kGpu}) {
    const size_t n = l == kCpu ? cpu_units : gpu_units;
    LaneStats& s = st.lane[l];
    if (n == 0) {
      ++s.passed_over;
      continue;
    }
    s.passed_over = 0;
    s.busy_until = std::max(t, s.busy_until) + double(n * kDataUnitSize) / rate[l];
    if (s.active++ == 0) s.busy_start = t;
    lane_started(l, t);
  }
  if (cpu_units && gpu_units) ++st.lane[kCpu].probes;
  return Plan{lane, cpu_units};
}

void AutoEngine::finished(const Op& op, Lane lane, size_t bytes, double slice_seconds) {
  std::lock_guard<std::mutex> lk(mu_);
  LaneStats& s = stats_[op].lane[lane];
  const double t = now();
  s.bytes += bytes;
  ++s.requests;
  --s.active;
  lane_ended(lane, t);
  // The job's rate, both engines together (counted once the GPU has joined).
  if (cpu_alone_too_slow_.load(std::memory_order_relaxed) && !share_.cpu_alone_ruled_out()) share_.rule_out_cpu_alone();
  if (gpu_.load(std::memory_order_acquire))
    share_.done(bytes, t, lane == kCpu, CpuShare::Busy{busy_seconds(kGpu, t), busy_seconds(kCpu, t)});
  if (s.active == 0) s.busy_until = t;  // re-anchor the estimate on what happened
  if (!s.warmed) {  // the first request carries one-time set-up: the rate starts after it
    s.warmed = true;
    s.busy_start = t;
    s.busy_seconds = 0;
    return;
  }
  if (slice_seconds >= 0) {  // a probe's slice: its rate apart (see pick())
    s.slice_bytes += bytes;
    s.slice_seconds += slice_seconds;
    if (s.slice_seconds > 0) s.slice_rate = double(s.slice_bytes) / s.slice_seconds;
    s.last_slice = true;
    return;
  }
  s.last_slice = false;
  s.rate_bytes += bytes;
  const double busy = s.busy_seconds + (t - s.busy_start);
  if (s.active == 0) s.busy_seconds = busy;
  if (busy > 0) s.rate = double(s.rate_bytes) / busy;
}

void AutoEngine::run_on(Lane lane, const Piece& p) {
  const AutoKey& a = auto_key(*p.a);
  XtsEngine& e = lane == kGpu ? *gpu() : *cpu_;
  const EngineKey& ka = lane == kGpu ? a.gpu_key(e) : *a.cpu_;
  std::unique_lock<std::mutex> serial(cpu_run_mu_, std::defer_lock);
  if (lane == kCpu && cpu_->concurrency() == 1) serial.lock();
  if (p.b) {
    const AutoKey& b = auto_key(*p.b);
    const EngineKey& kb = lane == kGpu ? b.gpu_key(e) : *b.cpu_;
    if (p.hashes)
      e.reencrypt_hashed(ka, kb, p.unit0, p.data, p.nunits, p.hashes);
    else
      e.reencrypt(ka, kb, p.unit0, p.data, p.nunits);
  } else {
    e.process(ka, p.d, p.unit0, p.data, p.nunits);
  }
}

void AutoEngine::run_scheduled(const Op& op, const Piece& p) {
  const Plan plan = pick(op, p.nunits);
  // Each lane's books are closed whatever happens.
  auto run_part = [&](Lane lane, const Piece& part, bool slice) {
    struct Done {
      AutoEngine* e;
      const Op& op;
      Lane lane;
      size_t bytes;
      double started;  // a slice's start; -1: not a slice
      ~Done() { e->finished(op, lane, bytes, started >= 0 ? e->now() - started : -1); }
    } done{this, op, lane, part.nunits * kDataUnitSize, slice ? now() : -1};
    run_on(lane, part);
  };
  if (plan.cpu_units == 0 || plan.cpu_units == p.nunits) {
    run_part(plan.cpu_units ? kCpu : kGpu, p, false);
    return;
  }
  // A probe: the GPU's part from the caller's thread at once, the CPU's slice (the head) on a thread of its own.
  Piece head = p, tail = p;
  head.nunits = plan.cpu_units;
  tail.unit0 += plan.cpu_units;
  tail.data += plan.cpu_units * kDataUnitSize;
  tail.nunits -= plan.cpu_units;
  if (p.hashes) tail.hashes += plan.cpu_units * kUnitXxh3Bytes;
  run_parts(2, [&](unsigned i) { i == 0 ? run_part(kGpu, tail, false) : run_part(kCpu, head, true); });
}

void AutoEngine::run_split(const Op& op, const Piece& p) {
  const size_t piece_units = piece_units_;
  if (p.nunits <= piece_units) {
    run_scheduled(op, p);
    return;
  }
  const unsigned n = unsigned((p.nunits + piece_units - 1) / piece_units);
  run_parts(n, [&](unsigned i) {
    const size_t done = size_t(i) * piece_units;
    Piece q = p;
    q.unit0 = p.unit0 + done;
    q.data = p.data + done * kDataUnitSize;
    q.nunits = std::min(piece_units, p.nunits - done);
    if (p.hashes) q.hashes = p.hashes + done * kUnitXxh3Bytes;
    run_scheduled(op, q);
  });
}

void AutoEngine::process(const EngineKey& key, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) {
  if (key.legacy()) return cpu_->process(key, d, unit0, data, nunits);
  const AutoKey& k = auto_key(key);
  if (!large(k.chain(), nunits) || cpu_job(key, nullptr)) {
    cpu_->process(*k.cpu_, d, unit0, data, nunits);
    return;
  }
  run_split(Op{int(k.chain()), -1, int(d)}, Piece{&key, nullptr, d, unit0, data, nunits});
}

void AutoEngine::reencrypt(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                           size_t nunits) {
  if (from.legacy() || to.legacy()) return cpu_->reencrypt(cpu_side(from), cpu_side(to), unit0, data, nunits);
  const AutoKey& a = auto_key(from);
  const AutoKey& b = auto_key(to);
  if ((!large(a.chain(), nunits) && !large(b.chain(), nunits)) || cpu_job(from, &to)) {
    cpu_->reencrypt(*a.cpu_, *b.cpu_, unit0, data, nunits);
    return;
  }
  run_split(Op{int(a.chain()), int(b.chain()), 0}, Piece{&from, &to, Direction::Decrypt, unit0, data, nunits});
}

void AutoEngine::reencrypt_each(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                                size_t nunits, const UnitsDone& done) {
  if (from.legacy() || to.legacy())
    return cpu_->reencrypt_each(cpu_side(from), cpu_side(to), unit0, data, nunits, done);
  const AutoKey& a = auto_key(from);
  const AutoKey& b = auto_key(to);
  if ((!large(a.chain(), nunits) && !large(b.chain(), nunits)) || cpu_job(from, &to))
    return cpu_->reencrypt_each(*a.cpu_, *b.cpu_, unit0, data, nunits, done);
  reencrypt(from, to, unit0, data, nunits);
  if (nunits) done(0, nunits);
}

void AutoEngine::reencrypt_hashed(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                                  size_t nunits, uint8_t* hashes) {
  if (from.legacy() || to.legacy())
    return cpu_->reencrypt_hashed(cpu_side(from), cpu_side(to), unit0, data, nunits, hashes);
  const AutoKey& a = auto_key(from);
  const AutoKey& b = auto_key(to);
  if ((!large(a.chain(), nunits) && !large(b.chain(), nunits)) || cpu_job(from, &to))
    return cpu_->reencrypt_hashed(*a.cpu_, *b.cpu_, unit0, data, nunits, hashes);
  Piece p{&from, &to, Direction::Decrypt, unit0, data, nunits};
  p.hashes = hashes;
  run_split(Op{int(a.chain()), int(b.chain()), 0}, p);
}

std::future<void> AutoEngine::submit(std::shared_ptr<const EngineKey> key, Direction d, uint64_t unit0,
                                     uint8_t* data, size_t nunits) {
  if (key->legacy()) return cpu_->submit(std::move(key), d, unit0, data, nunits);
  const AutoKey& k = auto_key(*key);
  if (!large(k.chain(), nunits) || cpu_job(*key, nullptr)) return cpu_->submit(k.cpu_, d, unit0, data, nunits);
  return std::async(std::launch::async, [this, key = std::move(key), d, unit0, data, nunits] {
    const AutoKey& kk = auto_key(*key);
    run_scheduled(Op{int(kk.chain()), -1, int(d)}, Piece{key.get(), nullptr, d, unit0, data, nunits});
  });
}

uint64_t AutoEngine::cpu_bytes() const {
  std::lock_guard<std::mutex> lk(mu_);
  uint64_t n = 0;
  for (const auto& [op, st] : stats_) n += st.lane[kCpu].bytes;
  return n;
}

uint64_t AutoEngine::gpu_bytes() const {
  std::lock_guard<std::mutex> lk(mu_);
  uint64_t n = 0;
  for (const auto& [op, st] : stats_) n += st.lane[kGpu].bytes;
  return n;
}

}  // namespace warpvol
