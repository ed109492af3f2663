#include "core/engine/auto_engine.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <exception>
#include <vector>

#include "core/util/parallel.h"

namespace warpvol {

namespace {

class AutoKey final : public EngineKey {
 public:
  AutoKey(ChainId c, std::shared_ptr<const EngineKey> cpu, std::shared_ptr<const EngineKey> gpu)
      : chain_(c), cpu_(std::move(cpu)), gpu_(std::move(gpu)) {}
  ChainId chain() const override { return chain_; }
  ChainId chain_;
  std::shared_ptr<const EngineKey> cpu_, gpu_;
};

const AutoKey& auto_key(const EngineKey& k) { return static_cast<const AutoKey&>(k); }

std::string gbps(double bytes_per_s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GB/s", bytes_per_s / 1e9);
  return b;
}

}  // namespace

AutoEngine::AutoEngine(std::shared_ptr<XtsEngine> cpu, std::shared_ptr<XtsEngine> gpu,
                       std::map<ChainId, size_t> crossover, std::function<void(const std::string&)> summary)
    : cpu_(std::move(cpu)), gpu_(std::move(gpu)), crossover_(std::move(crossover)), summary_(std::move(summary)) {}

AutoEngine::~AutoEngine() {
  if (!summary_) return;
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
              std::to_string(s.requests) + " requests" + (s.rate > 0 ? " at " + gbps(s.rate) : "") +
              (l == kGpu ? ";" : "");
    }
    line += " (each request went to the engine expected to finish it first, from the rates measured in this job)";
    summary_(line);
  }
}

std::string AutoEngine::detail() const {
  return "cpu (" + cpu_->detail() + ") + gpu (" + gpu_->detail() + ")";
}

std::shared_ptr<const EngineKey> AutoEngine::prepare(ChainId chain, const uint8_t* key_material) {
  return std::make_shared<AutoKey>(chain, cpu_->prepare(chain, key_material), gpu_->prepare(chain, key_material));
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

IoBuffer AutoEngine::io_buffer_for(size_t bytes, const EngineKey& a, const EngineKey* b) {
  if (cpu_only(a) && (!b || cpu_only(*b))) return cpu_->io_buffer(bytes);
  return gpu_->io_buffer(bytes);
}

unsigned AutoEngine::concurrency_for(const EngineKey& a, const EngineKey* b) const {
  if (cpu_only(a) && (!b || cpu_only(*b))) return cpu_->concurrency();
  return concurrency();
}

double AutoEngine::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

AutoEngine::Lane AutoEngine::pick(const Op& op, size_t bytes) {
  std::lock_guard<std::mutex> lk(mu_);
  OpStats& st = stats_[op];
  const double t = now();
  // Unmeasured engines count as fast as the measured one (or both as equal): each gets tried early.
  double rate[2];
  for (int l = 0; l < 2; ++l) rate[l] = st.lane[l].rate;
  if (rate[kCpu] <= 0 && rate[kGpu] <= 0) rate[kCpu] = rate[kGpu] = 1e9;
  else if (rate[kCpu] <= 0) rate[kCpu] = rate[kGpu];
  else if (rate[kGpu] <= 0) rate[kGpu] = rate[kCpu];
  double finish[2];
  for (int l = 0; l < 2; ++l) finish[l] = std::max(t, st.lane[l].busy_until) + double(bytes) / rate[l];
  Lane lane = finish[kGpu] <= finish[kCpu] ? kGpu : kCpu;  // a tie goes to the GPU: it spares the cores
  const Lane other = lane == kGpu ? kCpu : kGpu;
  if (st.lane[other].passed_over >= kProbeEvery && st.lane[other].active == 0) lane = other;  // measure it again
  st.lane[lane].passed_over = 0;
  ++st.lane[lane == kGpu ? kCpu : kGpu].passed_over;
  LaneStats& s = st.lane[lane];
  s.busy_until = finish[lane];
  if (s.active++ == 0) s.busy_start = t;
  return lane;
}

void AutoEngine::finished(const Op& op, Lane lane, size_t bytes) {
  std::lock_guard<std::mutex> lk(mu_);
  LaneStats& s = stats_[op].lane[lane];
  const double t = now();
  s.bytes += bytes;
  ++s.requests;
  --s.active;
  if (s.active == 0) s.busy_until = t;  // re-anchor the estimate on what happened
  if (!s.warmed) {  // the first request carries one-time set-up: the rate starts after it
    s.warmed = true;
    s.busy_start = t;
    s.busy_seconds = 0;
    return;
  }
  s.rate_bytes += bytes;
  const double busy = s.busy_seconds + (t - s.busy_start);
  if (s.active == 0) s.busy_seconds = busy;
  if (busy > 0) s.rate = double(s.rate_bytes) / busy;
}

void AutoEngine::run_on(Lane lane, const Piece& p) {
  const AutoKey& a = auto_key(*p.a);
  XtsEngine& e = lane == kGpu ? *gpu_ : *cpu_;
  const EngineKey& ka = lane == kGpu ? *a.gpu_ : *a.cpu_;
  std::unique_lock<std::mutex> serial(cpu_run_mu_, std::defer_lock);
  if (lane == kCpu && cpu_->concurrency() == 1) serial.lock();
  if (p.b) {
    const AutoKey& b = auto_key(*p.b);
    e.reencrypt(ka, lane == kGpu ? *b.gpu_ : *b.cpu_, p.unit0, p.data, p.nunits);
  } else {
    e.process(ka, p.d, p.unit0, p.data, p.nunits);
  }
}

void AutoEngine::run_scheduled(const Op& op, const Piece& p) {
  const size_t bytes = p.nunits * kDataUnitSize;
  const Lane lane = pick(op, bytes);
  struct Done {  // the lane's books are closed whatever happens
    AutoEngine* e;
    const Op& op;
    Lane lane;
    size_t bytes;
    ~Done() { e->finished(op, lane, bytes); }
  } done{this, op, lane, bytes};
  run_on(lane, p);
}

void AutoEngine::run_split(const Op& op, const Piece& p) {
  const size_t piece_units = kPieceBytes / kDataUnitSize;
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
    run_scheduled(op, q);
  });
}

void AutoEngine::process(const EngineKey& key, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) {
  if (key.legacy()) return cpu_->process(key, d, unit0, data, nunits);
  const AutoKey& k = auto_key(key);
  if (!large(k.chain(), nunits)) {
    cpu_->process(*k.cpu_, d, unit0, data, nunits);
    return;
  }
  run_split(Op{int(k.chain()), -1, int(d)}, Piece{&key, nullptr, d, unit0, data, nunits});
}

void AutoEngine::reencrypt(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                           size_t nunits) {
  if (from.legacy() || to.legacy()) {  // legacy keys are the CPU engine's own; the others are AutoKeys
    const EngineKey& f = from.legacy() ? from : *auto_key(from).cpu_;
    const EngineKey& t = to.legacy() ? to : *auto_key(to).cpu_;
    return cpu_->reencrypt(f, t, unit0, data, nunits);
  }
  const AutoKey& a = auto_key(from);
  const AutoKey& b = auto_key(to);
  if (!large(a.chain(), nunits) && !large(b.chain(), nunits)) {
    cpu_->reencrypt(*a.cpu_, *b.cpu_, unit0, data, nunits);
    return;
  }
  run_split(Op{int(a.chain()), int(b.chain()), 0}, Piece{&from, &to, Direction::Decrypt, unit0, data, nunits});
}

std::future<void> AutoEngine::submit(std::shared_ptr<const EngineKey> key, Direction d, uint64_t unit0,
                                     uint8_t* data, size_t nunits) {
  if (key->legacy()) return cpu_->submit(std::move(key), d, unit0, data, nunits);
  const AutoKey& k = auto_key(*key);
  if (!large(k.chain(), nunits)) return cpu_->submit(k.cpu_, d, unit0, data, nunits);
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
