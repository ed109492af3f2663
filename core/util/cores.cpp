#include "core/util/cores.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace warpvol {

namespace {

std::string read_small_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return {};
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// The lowest quota of the process's cgroup and its parents (a parent's quota bounds its children), read once: a
// process does not move between cgroups while it runs a job.
std::optional<unsigned> cgroup_quota_cores() {
  static const std::optional<unsigned> cores = [] {
    const std::string self = read_small_file("/proc/self/cgroup");
    const auto path = cgroup_v2_path(self);
    if (!path) return std::optional<unsigned>();
    std::optional<unsigned> lowest;
    std::string dir(*path);
    for (;;) {
      const auto c = cores_of_cpu_max(read_small_file("/sys/fs/cgroup" + dir + "/cpu.max"));
      if (c && (!lowest || *c < *lowest)) lowest = c;
      if (dir.empty() || dir == "/") break;
      const size_t slash = dir.find_last_of('/');
      dir.resize(slash == std::string::npos ? 0 : slash);
    }
    return lowest;
  }();
  return cores;
}

}  // namespace

std::optional<unsigned> cores_of_cpu_max(std::string_view cpu_max) {
  const size_t space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view q = cpu_max.substr(0, space);
  std::string_view p = cpu_max.substr(space + 1);
  while (!p.empty() && (p.back() == '\n' || p.back() == ' ')) p.remove_suffix(1);
  unsigned long long quota = 0, period = 0;
  if (std::from_chars(q.data(), q.data() + q.size(), quota).ptr != q.data() + q.size()) return std::nullopt;
  if (std::from_chars(p.data(), p.data() + p.size(), period).ptr != p.data() + p.size()) return std::nullopt;
  if (period == 0) return std::nullopt;
  return unsigned(std::clamp<unsigned long long>((quota + period - 1) / period, 1, 1u << 16));
}

std::optional<std::string_view> cgroup_v2_path(std::string_view text) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    if (line.substr(0, 3) == "0::") return line.substr(3);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return std::nullopt;
}

unsigned usable_cores() {
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = std::max(1, CPU_COUNT(&set));
  if (const auto q = cgroup_quota_cores()) n = std::min(n, *q);
  return n;
}

}  // namespace warpvol
