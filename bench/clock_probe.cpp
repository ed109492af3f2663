// Core clock with N cores busy at once (for "all cores against one core"): each of N threads, pinned to its own
// CPU, runs a chain of dependent IMULs (bench/imul_clock.h) for S seconds, and the probe prints the clock each
// thread saw and the time the hypervisor took (steal, /proc/stat). When the clock with every core busy is lower
// than with one, no engine can scale by the core count: the ratio the engine reaches is bounded by
// cores x (clock all) / (clock one).
// Usage: clock_probe [SECONDS=1] [THREADS...]   (default threads: 1 and every CPU)
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "imul_clock.h"

namespace {

using clk = std::chrono::steady_clock;

// Jiffies the hypervisor stole from this guest, summed over all CPUs (8th value of the "cpu" line).
uint64_t steal_jiffies() {
  std::ifstream f("/proc/stat");
  std::string cpu;
  uint64_t v[8] = {};
  f >> cpu >> v[0] >> v[1] >> v[2] >> v[3] >> v[4] >> v[5] >> v[6] >> v[7];
  return v[7];
}

// Dependent IMULs until `seconds` have passed; returns the clock in GHz.
double imul_ghz(double seconds) {
  const auto t0 = clk::now();
  uint64_t blocks = 0;
  double el = 0;
  do {
    warpvol::bench::imul_chain(1'000'000);
    ++blocks;
    el = std::chrono::duration<double>(clk::now() - t0).count();
  } while (el < seconds);
  return double(blocks) * 1e6 * warpvol::bench::kImulChainCycles / el / 1e9;
}

void probe(unsigned n, double seconds) {
  std::vector<double> ghz(n);
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(i, &set);
      sched_setaffinity(0, sizeof set, &set);  // one thread per CPU; failure leaves it to the scheduler
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      ghz[i] = imul_ghz(seconds);
    });
  while (ready.load() < n) std::this_thread::yield();
  const uint64_t s0 = steal_jiffies();
  const auto t0 = clk::now();
  go.store(true);
  for (auto& t : threads) t.join();
  const double wall = std::chrono::duration<double>(clk::now() - t0).count();
  const double steal = double(steal_jiffies() - s0) / double(sysconf(_SC_CLK_TCK));
  double sum = 0;
  for (double g : ghz) sum += g;
  std::printf("%2u threads: clock mean %.2f GHz (min %.2f, max %.2f); steal %.2f CPU-s of %.2f\n", n, sum / n,
              *std::min_element(ghz.begin(), ghz.end()), *std::max_element(ghz.begin(), ghz.end()), steal,
              wall * n);
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  std::vector<unsigned> counts;
  for (int i = 2; i < argc; ++i) counts.push_back(unsigned(std::strtoul(argv[i], nullptr, 10)));
  if (counts.empty()) counts = {1, std::max(1u, std::thread::hardware_concurrency())};
  for (unsigned n : counts) probe(std::max(1u, n), seconds);
}
