// auto's trials of the CPU beside the GPU (core/engine/cpu_share.h): the period logic on a simulated clock, and the
// AutoEngine over two sleeping fake engines where the CPU's requests slow the "GPU" down (a job bound by memory or
// by its readers) or do not.
#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <latch>
#include <random>
#include <regex>
#include <semaphore>
#include <string>
#include <thread>
#include <vector>

#include "core/crypto/chain.h"
#include "core/engine/auto_engine.h"
#include "core/engine/cpu_engine.h"
#include "core/engine/cpu_share.h"
#include "tests/support/test_support.h"

using namespace warpvol;

namespace {

constexpr uint64_t kMiB = uint64_t(1) << 20;

// Runs `seconds` of simulated job through s: 4 MiB requests, finished at the rate of the mode s is in (bytes per
// second); in each period's first `lag` seconds requests still finish at the previous period's rate.
void simulate(CpuShare& s, double mixed, double gpu_alone, double seconds, double lag = 0) {
  double t = 0;
  bool was = s.cpu_allowed(), prev = was;
  double switched = 0;
  while (t < seconds) {
    if (s.cpu_allowed() != was) {
      prev = was;
      was = s.cpu_allowed();
      switched = t;
    }
    const bool mode = t - switched < lag ? prev : was;
    t += double(4 * kMiB) / (mode ? mixed : gpu_alone);
    s.done(4 * kMiB, t, s.cpu_allowed());
  }
}

}  // namespace

TEST_CASE("cpu share: the mode in which the job runs faster is kept, the other tried again now and then",
          "[job][auto]") {
  SECTION("the CPU slows the job: the GPU alone") {
    CpuShare s;
    simulate(s, 10e9, 20e9, 10.0);
    INFO(s.summary());
    CHECK(s.periods() > 50);
    CHECK(s.mixed_periods() * 6 < s.periods());  // the first trial, then one after 2, 4, then every 8 periods
    CHECK(s.mixed_periods() >= 2);               // tried again
    CHECK(s.rate(true) == Approx(10e9).epsilon(0.02));
    CHECK(s.rate(false) == Approx(20e9).epsilon(0.02));
  }
  SECTION("the CPU helps: mixed") {
    CpuShare s;
    simulate(s, 20e9, 10e9, 10.0);
    INFO(s.summary());
    CHECK(s.mixed_periods() * 6 > 5 * s.periods());
    CHECK(s.mixed_periods() < s.periods());  // the GPU alone tried again
  }
  SECTION("a gain under kGain is not worth the CPU's cores") {
    CpuShare s;
    simulate(s, 10.2e9, 10e9, 10.0);
    CHECK(s.mixed_periods() * 6 < s.periods());
  }
  SECTION("requests still finishing under the previous mode are not counted") {
    CpuShare s;
    // The previous mode's rate for the first 10 ms of each period (its settle share is 16 ms).
    simulate(s, 10e9, 20e9, 10.0, 0.010);
    CHECK(s.rate(true) == Approx(10e9).epsilon(0.02));
    CHECK(s.rate(false) == Approx(20e9).epsilon(0.02));
  }
}

TEST_CASE("cpu share: where the job's rate swings from period to period, the smoothed rates keep the GPU alone "
          "where the CPU costs a few per cent",
          "[job][auto]") {
  // A job bound by one writer (export to a file): 2.94 GB/s with the GPU alone, 2.75 with the CPU taking requests
  // (both figures from a device run), each 20 ms of it up to 25% faster or slower. Over 40 jobs of 3.3 s, the
  // share of periods in which the CPU took part: the trials alone would give about an eighth.
  auto share_of_mixed = [](double smoothing) {
    double sum = 0;
    for (int seed = 1; seed <= 40; ++seed) {
      CpuShare::Config c;
      c.smoothing = smoothing;
      CpuShare s(c);
      std::mt19937_64 rng(seed);
      std::uniform_real_distribution<double> swing(0.75, 1.25);
      double t = 0, f = 1, next = 0;
      while (t < 3.3) {
        if (t >= next) {
          f = swing(rng);
          next = t + 0.02;
        }
        t += double(4 * kMiB) / ((s.cpu_allowed() ? 2.75e9 : 2.94e9) * f);
        s.done(4 * kMiB, t, s.cpu_allowed());
      }
      sum += double(s.mixed_periods()) / s.periods();
    }
    return sum / 40;
  };
  const double smoothed = share_of_mixed(CpuShare::Config{}.smoothing);
  const double latest = share_of_mixed(1.0);
  INFO("periods with the CPU: smoothed " << smoothed << ", latest period alone " << latest);
  CHECK(smoothed < 0.22);  // 0.19 here; the latest period alone: 0.32
  CHECK(smoothed < latest);
}

TEST_CASE("cpu share: the first choices are kept for 2, then 4, then 8 periods", "[job][auto]") {
  // The GPU alone is faster: M = a period with the CPU, G = the GPU alone.
  CpuShare s;
  std::string modes;
  double t = 0;
  s.done(kMiB, t, false);
  while (s.periods() < 22) {
    const unsigned before = s.periods();
    const bool mixed = s.cpu_allowed();
    while (s.periods() == before) {
      t += mixed ? 0.010 : 0.005;
      s.done(kMiB, t, mixed);
    }
    modes += mixed ? 'M' : 'G';
  }
  // The lead-in's periods of the GPU alone while the job warms up, then the trial of the CPU, against the last of
  // them.
  const std::string lead_in(CpuShare::Config{}.lead_in, 'G');
  CHECK(modes == (lead_in + "M" "GG" "M" "GGGG" "M" "GGGGGGGG" "M" "G").substr(0, 22));
}

TEST_CASE("cpu share: a job starts with the GPU alone and tries the CPU after the lead-in (where the CPU helps, it "
          "is chosen at once)",
          "[job][auto]") {
  CpuShare s;
  CHECK_FALSE(s.cpu_allowed());
  // The first period is the job's warm-up, far slower: only the lead-in's last period counts against the CPU.
  double t = 0;
  s.done(kMiB, t, false);
  for (int i = 1; i <= 16; ++i) s.done(kMiB, t += 0.050, false);  // the warm-up: 20 MB/s
  REQUIRE(s.periods() == 1);
  CHECK(s.summary().find("not tried") != std::string::npos);
  std::string modes = "G";
  const unsigned lead_in = CpuShare::Config{}.lead_in;
  while (s.periods() < lead_in + 3) {
    const unsigned before = s.periods();
    const bool mixed = s.cpu_allowed();
    while (s.periods() == before) {
      t += mixed ? 0.004 : 0.005;  // mixed 1.25 times the GPU alone
      s.done(kMiB, t, mixed);
    }
    modes += mixed ? 'M' : 'G';
  }
  CHECK(modes == std::string(lead_in, 'G') + "M" "MM");
  CHECK(s.rate(false) == Approx(kMiB / 0.005).epsilon(0.03));  // the warm-up period left no trace
}

TEST_CASE("cpu share: a period ends after its time and its requests (a trial of mixed: one of them the CPU's), the "
          "first request only starts the clock",
          "[job][auto]") {
  CpuShare::Config c;
  c.lead_in = 0;  // the trials from the first period (the lead-in: below)
  CpuShare s(c);
  CHECK(s.summary() == "");
  CHECK(s.cpu_allowed());  // the first trial is the CPU taking part
  s.done(kMiB, 100.0, false);  // starts the clock
  for (int i = 1; i < 16; ++i) s.done(kMiB, 100.0 + i, false);  // 15 requests, 15 s: not enough requests
  CHECK(s.periods() == 0);
  s.done(kMiB, 116.0, false);  // the 16th, but none was the CPU's: the trial of mixed goes on
  CHECK(s.periods() == 0);
  s.done(kMiB, 117.0, true);
  CHECK(s.periods() == 1);
  CHECK_FALSE(s.cpu_allowed());  // the second trial: the GPU alone
  // 16 requests in under the period's time: the period goes on.
  for (int i = 1; i <= 16; ++i) s.done(kMiB, 117.0 + i * 0.001, false);
  CHECK(s.periods() == 1);
  s.done(kMiB, 117.1, false);
  CHECK(s.periods() == 2);
  CHECK(s.summary().find("the CPU took part in 1 of 2 periods") != std::string::npos);
}

namespace {

// What one mode of a simulated job gives: its rate (bytes per second) and the share of the time in which each
// engine has a request.
struct ModeRun {
  double rate, gpu_busy, cpu_busy;
};

// Runs `seconds` of simulated job through s, 4 MiB requests, passing the engines' busy seconds.
void simulate_busy(CpuShare& s, ModeRun mixed, ModeRun gpu_alone, ModeRun cpu_alone, double seconds) {
  double t = 0;
  CpuShare::Busy busy{0, 0};
  while (t < seconds) {
    const CpuShare::Mode m = s.mode();
    const ModeRun& r = m == CpuShare::kMixed ? mixed : m == CpuShare::kGpuAlone ? gpu_alone : cpu_alone;
    const double dt = double(4 * kMiB) / r.rate;
    t += dt;
    busy.gpu += dt * r.gpu_busy;
    busy.cpu += dt * r.cpu_busy;
    s.done(4 * kMiB, t, m != CpuShare::kGpuAlone, busy);
  }
}

}  // namespace

TEST_CASE("cpu share: where the GPU idles (a job bound by its storage or host memory), the CPU alone is tried "
          "against the GPU alone, not the CPU beside it",
          "[job][auto]") {
  const ModeRun mixed{2.0e9, 0.2, 0.5};  // what mixed would give (never tried here)
  SECTION("the CPU alone is faster (fewer host-memory crossings), so it is kept; the GPU alone is tried again") {
    CpuShare s;
    simulate_busy(s, mixed, {2.0e9, 0.2, 0}, {2.4e9, 0, 0.6}, 4.0);
    INFO(s.summary());
    CHECK(s.mixed_periods() == 0);
    CHECK(s.periods_of(CpuShare::kCpuAlone) * 6 > 4 * s.periods());
    CHECK(s.periods_of(CpuShare::kGpuAlone) > CpuShare::Config{}.lead_in);  // the GPU alone tried again
    CHECK(s.rate_of(CpuShare::kCpuAlone) == Approx(2.4e9).epsilon(0.02));
    CHECK_FALSE(s.cpu_alone_ruled_out());
    CHECK(s.summary().find("with the CPU alone") != std::string::npos);
  }
  SECTION("the CPU alone is slower and busy throughout (a cascade), so one trial, then the GPU alone for good") {
    CpuShare s;
    simulate_busy(s, mixed, {2.0e9, 0.2, 0}, {0.8e9, 0, 1.0}, 4.0);
    INFO(s.summary());
    CHECK(s.mixed_periods() == 0);
    CHECK(s.periods_of(CpuShare::kCpuAlone) == 1);
    CHECK(s.cpu_alone_ruled_out());
    CHECK(s.summary().find("not tried again") != std::string::npos);
  }
  SECTION("the CPU alone is far slower though not busy throughout, so one trial, then the GPU alone for good") {
    CpuShare s;
    simulate_busy(s, mixed, {2.0e9, 0.2, 0}, {1.5e9, 0, 0.6}, 4.0);
    INFO(s.summary());
    CHECK(s.periods_of(CpuShare::kCpuAlone) == 1);
    CHECK(s.cpu_alone_ruled_out());
  }
  SECTION("the CPU alone is slightly slower and busy for half of its trial (a cascade bound by the writer, its cores "
          "crunching beside it), so one trial") {
    CpuShare s;
    simulate_busy(s, mixed, {2.0e9, 0.2, 0}, {1.95e9, 0, 0.55}, 4.0);
    INFO(s.summary());
    CHECK(s.periods_of(CpuShare::kCpuAlone) == 1);
    CHECK(s.cpu_alone_ruled_out());
    CHECK(s.summary().find("busy for 50% of its trial or more and no faster: not tried again") != std::string::npos);
  }
  SECTION("the CPU alone is slower but little busy (a fast cipher bound by the same writer), so it is tried again") {
    CpuShare s;
    simulate_busy(s, mixed, {2.0e9, 0.2, 0}, {1.9e9, 0, 0.3}, 4.0);
    INFO(s.summary());
    CHECK(s.mixed_periods() == 0);
    CHECK(s.periods_of(CpuShare::kCpuAlone) >= 3);
    CHECK(s.periods_of(CpuShare::kCpuAlone) * 6 < s.periods());
    CHECK_FALSE(s.cpu_alone_ruled_out());
  }
  SECTION("the CPU alone ruled out by the caller (too slow for the job, measured before it) is never tried") {
    CpuShare s;
    s.rule_out_cpu_alone();
    simulate_busy(s, mixed, {2.0e9, 0.2, 0}, {2.4e9, 0, 0.3}, 4.0);
    INFO(s.summary());
    CHECK(s.periods_of(CpuShare::kCpuAlone) == 0);
    CHECK(s.mixed_periods() == 0);
    CHECK(s.summary().find("measured too slow for this job") != std::string::npos);
  }
  SECTION("a GPU busy for most of its periods has the CPU beside it as the challenger, as before") {
    CpuShare s;
    simulate_busy(s, {24e9, 1.0, 0.3}, {20e9, 0.9, 0}, {5e9, 0, 1.0}, 4.0);
    INFO(s.summary());
    CHECK(s.periods_of(CpuShare::kCpuAlone) == 0);
    CHECK(s.mixed_periods() * 6 > 4 * s.periods());
  }
}

namespace {

// Engines that only sleep, per MiB: the "GPU" runs four requests at once (more wait); while the "CPU" runs a
// request, the GPU's requests take `contention` times as long (both share what bounds the job).
struct Sleeper : CpuEngine {
  Sleeper(double us_per_mib, unsigned callers, std::atomic<int>* cpu_running, const std::atomic<int>* contended_by,
          double contention)
      : CpuEngine(1), us_(us_per_mib), callers_(callers), slots_(callers), running_(cpu_running),
        by_(contended_by), contention_(contention) {}
  unsigned concurrency() const override { return callers_; }
  void process(const EngineKey&, Direction, uint64_t, uint8_t*, size_t n) override {
    ++calls;
    for (size_t m = largest.load(); n > m && !largest.compare_exchange_weak(m, n);) {
    }
    slots_.acquire();
    if (running_) ++*running_;
    const double mib = double(n * kDataUnitSize) / double(kMiB);
    // Sleeps in 1 ms steps, each as long as the contention at that moment says.
    for (double left = fixed_us + us_ * mib; left > 0;) {
      const double factor = by_ && by_->load() > 0 ? contention_ : 1.0;
      const double step = std::min(left, 1000.0);
      std::this_thread::sleep_for(std::chrono::microseconds(int64_t(step * factor)));
      left -= step;
    }
    if (running_) --*running_;
    slots_.release();
  }
  double us_;
  unsigned callers_;
  std::counting_semaphore<64> slots_;
  std::atomic<int>* running_;
  const std::atomic<int>* by_;
  double contention_;
  std::atomic<uint64_t> calls{0};
  std::atomic<size_t> largest{0};  // units of the largest request it got
  double fixed_us = 0;             // per call, whatever its size
};

// `callers` threads send 4 MiB Serpent decryptions through eng for `seconds`, counted from the moment every caller
// has its buffer and has started: on a slow or loaded machine (a sanitizer build) starting the threads and
// touching their buffers took the whole time once, and no request was sent.
void send_requests(AutoEngine& eng, unsigned callers_n, double seconds) {
  std::vector<uint8_t> km(64, 7);
  auto key = eng.prepare(ChainId::Serpent, km.data());
  std::vector<std::vector<uint8_t>> bufs(callers_n, std::vector<uint8_t>(4 * kMiB));
  std::latch ready(callers_n + 1);
  std::chrono::steady_clock::time_point end;
  std::vector<std::thread> callers;
  for (unsigned t = 0; t < callers_n; ++t)
    callers.emplace_back([&, t] {
      ready.arrive_and_wait();  // the test thread sets end before it arrives
      while (std::chrono::steady_clock::now() < end)
        eng.process(*key, Direction::Decrypt, 0, bufs[t].data(), bufs[t].size() / kDataUnitSize);
    });
  end = std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  ready.arrive_and_wait();
  for (auto& c : callers) c.join();
}

// `callers` threads send requests through auto for `seconds` (send_requests); returns the CPU's share of the bytes
// and the summary.
double cpu_share_of_job(unsigned callers_n, double contention, bool trials, double seconds, std::string& summary) {
  if (trials) ::unsetenv("WARPVOL_AUTO_TRIALS");
  else ::setenv("WARPVOL_AUTO_TRIALS", "off", 1);
  std::atomic<int> cpu_running{0};
  // GPU: 4 ms per 4 MiB request, four at once; CPU: 2 ms per request (worth a request by its own rate).
  auto cpu = std::make_shared<Sleeper>(500, 1, &cpu_running, nullptr, 1.0);
  auto gpu = std::make_shared<Sleeper>(1000, 4, nullptr, &cpu_running, contention);
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  std::vector<std::string> lines;
  double share = 0;
  {
    AutoEngine eng(cpu, gpu, crossover, [&](const std::string& l) { lines.push_back(l); });
    send_requests(eng, callers_n, seconds);
    share = double(eng.cpu_bytes()) / double(eng.cpu_bytes() + eng.gpu_bytes());
  }
  ::unsetenv("WARPVOL_AUTO_TRIALS");
  summary.clear();
  for (const auto& l : lines) summary += l + "\n";
  return share;
}

// From the --verbose line: "the CPU took part in X of Y periods" -> {X, Y}.
std::pair<unsigned, unsigned> periods_with_cpu(const std::string& summary) {
  std::smatch m;
  if (!std::regex_search(summary, m, std::regex("took part in ([0-9]+) of ([0-9]+) periods"))) return {0, 0};
  return {unsigned(std::stoul(m[1])), unsigned(std::stoul(m[2]))};
}

}  // namespace

TEST_CASE("auto engine: where the CPU's requests slow the job down, the GPU alone keeps it, and where they help, the "
          "CPU stays",
          "[job][auto][serial]") {
  std::string with, without, helps;
  // Four callers, as many as the GPU's slots. Each CPU request makes the GPU's requests meanwhile take 6 times as
  // long: the job is faster without the CPU.
  const double share_with = cpu_share_of_job(8, 6.0, true, 1.5, with);
  cpu_share_of_job(8, 6.0, false, 0.5, without);
  INFO("with trials:\n" << with << "without trials:\n" << without);
  CHECK(with.find("the CPU beside the GPU") != std::string::npos);
  CHECK(without.find("the CPU beside the GPU") == std::string::npos);
  // By its own rate the CPU is worth requests: without the trials it took 11-73% of the bytes in this test (the
  // share swings with the order in which the requests finish), with them 3-7% (more where the first trials, made
  // while the job warms up, chose wrong: then up to 7 of 22 periods).
  CHECK(share_with < 0.3);
  const auto [part, of] = periods_with_cpu(with);
  CHECK(part * 2 < of);  // with the pick's override removed: 20 of 23
  // Eight callers, requests wait for the GPU's four slots, no contention: the CPU's requests add to the GPU's, and
  // it keeps taking them.
  const double share_helps = cpu_share_of_job(8, 1.0, true, 1.5, helps);
  INFO("no contention:\n" << helps);
  CHECK(share_helps > 0.1);
  const auto [helps_part, helps_of] = periods_with_cpu(helps);
  // 19-20 of 23 here; 7 of 21 where early trials, made while the job warms up, chose wrong; a choice always against
  // the CPU would leave it the trials alone (4 of 21).
  CHECK(helps_part * 4 > helps_of);
}

TEST_CASE("auto engine: a job bound by its writer, whose writes are slower after the GPU's requests, runs on the "
          "CPU alone",
          "[job][auto]") {
  // One caller: a request, then its write, which takes 8 ms after a request of the GPU and 5 ms after one of the
  // CPU (a host short of memory bandwidth, where the GPU's DMA there and back slows the writer's copy). GPU: 1 ms a
  // request, CPU 2 ms: by the engines' own rates the GPU is the one, and it idles most of the time.
  wvtest::ScopedEnv lead_in("WARPVOL_AUTO_LEAD_IN", "1");
  auto cpu = std::make_shared<Sleeper>(500, 1, nullptr, nullptr, 1.0);
  auto gpu = std::make_shared<Sleeper>(250, 4, nullptr, nullptr, 1.0);
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  std::vector<std::string> lines;
  double share = 0;
  {
    AutoEngine eng(cpu, gpu, crossover, [&](const std::string& l) { lines.push_back(l); });
    std::vector<uint8_t> km(64, 7), buf(4 * kMiB);
    auto key = eng.prepare(ChainId::Serpent, km.data());
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (std::chrono::steady_clock::now() < end) {
      const uint64_t before = cpu->calls;
      eng.process(*key, Direction::Decrypt, 0, buf.data(), buf.size() / kDataUnitSize);
      std::this_thread::sleep_for(std::chrono::milliseconds(cpu->calls > before ? 5 : 8));
    }
    share = double(eng.cpu_bytes()) / double(eng.cpu_bytes() + eng.gpu_bytes());
  }
  std::string summary;
  for (const auto& l : lines) summary += l + "\n";
  INFO(summary);
  CHECK(summary.find("with the CPU alone") != std::string::npos);
  CHECK(summary.find("with the CPU taking requests beside it") == std::string::npos);
  CHECK(share > 0.5);  // 0.8 here: the lead-in and the GPU's trials are the rest
}

TEST_CASE("auto engine: a CPU not measured yet takes one request at a time, not a burst on a guessed rate",
          "[job][auto]") {
  wvtest::ScopedEnv trials("WARPVOL_AUTO_TRIALS", "off");  // the per-request rule alone
  // CPU: 40 ms per 4 MiB request, one at a time; GPU: 1 ms, four at once (a cascade's rates, roughly).
  auto cpu = std::make_shared<Sleeper>(10000, 1, nullptr, nullptr, 1.0);
  auto gpu = std::make_shared<Sleeper>(250, 4, nullptr, nullptr, 1.0);
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  uint64_t cpu_requests = 0, gpu_requests = 0, cpu_units = 0, cpu_largest = 0;
  {
    AutoEngine eng(cpu, gpu, crossover);
    send_requests(eng, 8, 0.3);
    cpu_requests = cpu->calls;
    cpu_largest = cpu->largest;
    cpu_units = eng.cpu_bytes() / kDataUnitSize;
    gpu_requests = eng.gpu_bytes() / (4 * kMiB);
  }
  INFO("CPU " << cpu_requests << " requests of up to " << cpu_largest << " units, GPU " << gpu_requests);
  // Two probes one after the other (the first one's time is not counted), then the CPU is measured far below the
  // GPU and gets only a rare probe. Without the one-at-a-time rule the early picks queued up to every caller on the
  // CPU, which ran requests for the whole job. Each probe is a slice of its request (a quarter while the CPU's rate
  // is unknown, an eighth once it is measured this slow), the GPU doing the rest at the same time.
  CHECK(cpu_requests >= 1);
  CHECK(cpu_requests <= 3);
  CHECK(cpu_largest <= 4 * kMiB / kDataUnitSize / 4);
  CHECK(cpu_units > 0);
  CHECK(gpu_requests > 40);
}

TEST_CASE("auto engine: a CPU whose slices understate it (a fixed cost per call) gets a whole request next, and "
          "requests once measured worth them",
          "[job][auto]") {
  wvtest::ScopedEnv trials("WARPVOL_AUTO_TRIALS", "off");  // the per-request rule alone
  // CPU: 10 ms per call plus 1 ms per MiB, one at a time: a quarter-request slice runs at a tenth of a GB/s, a
  // whole 4 MiB request at 0.3 GB/s, within a quarter of the GPU's rate. GPU: 5 ms per MiB, four at once (0.8 GB/s).
  // Sleeps overshoot on a loaded machine: the slices' rate still does not rule the CPU out (sixteen times it is
  // twice the GPU's).
  auto cpu = std::make_shared<Sleeper>(1000, 1, nullptr, nullptr, 1.0);
  cpu->fixed_us = 10000;
  auto gpu = std::make_shared<Sleeper>(5000, 4, nullptr, nullptr, 1.0);
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  uint64_t whole = 0;
  {
    AutoEngine eng(cpu, gpu, crossover);
    send_requests(eng, 8, 0.6);
    whole = cpu->largest;
    INFO("CPU " << cpu->calls << " requests, " << eng.cpu_bytes() / kMiB << " MiB; GPU " << eng.gpu_bytes() / kMiB
                << " MiB");
    // Its first requests are slices (a quarter of 4 MiB); its slices do not rule it out, so whole requests follow,
    // more than one: once measured, it is worth them.
    CHECK(cpu->calls >= 4);
    CHECK(eng.cpu_bytes() >= 2 * 4 * kMiB);
  }
  CHECK(whole == 4 * kMiB / kDataUnitSize);
}

TEST_CASE("auto engine: a synchronous request of re-encryption's size reaches the GPU whole, not in halves",
          "[job][auto]") {
  // Re-encryption hands an engine with several callers 16 MiB at a time. Split into 8 MiB pieces, each ran as a
  // GPU request of its own, the second from a thread started for it, in a batch where the CPU took nothing.
  auto cpu = std::make_shared<Sleeper>(20000, 1, nullptr, nullptr, 1.0);  // far slower than the GPU
  auto gpu = std::make_shared<Sleeper>(250, 4, nullptr, nullptr, 1.0);
  std::map<ChainId, size_t> crossover;
  for (const auto& c : all_chains()) crossover[c.id] = 64 * 1024;
  constexpr size_t kRequest = 16 * kMiB;
  constexpr int kRequests = 12;
  uint64_t gpu_calls = 0, gpu_largest = 0, cpu_units = 0;
  {
    AutoEngine eng(cpu, gpu, crossover);
    std::vector<uint8_t> km(64, 7);
    auto key = eng.prepare(ChainId::Serpent, km.data());
    std::vector<uint8_t> buf(kRequest);
    for (int i = 0; i < kRequests; ++i) eng.process(*key, Direction::Decrypt, 0, buf.data(), kRequest / kDataUnitSize);
    gpu_calls = gpu->calls;
    gpu_largest = gpu->largest;
    cpu_units = eng.cpu_bytes() / kDataUnitSize;
  }
  INFO("GPU " << gpu_calls << " calls of up to " << gpu_largest << " units; CPU " << cpu_units << " units");
  CHECK(gpu_largest == kRequest / kDataUnitSize);
  CHECK(gpu_calls <= unsigned(kRequests));  // one per request (a probe's slice leaves the GPU one call for its rest)
  CHECK(cpu_units * kDataUnitSize < kRequest);  // the slow CPU took a probe's slice at most
}
