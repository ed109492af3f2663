// The cores this process may run on, for sizing its thread pools and pipelines. std::thread::hardware_concurrency
// counts the machine's online CPUs whatever the process may use, so threads sized by it oversubscribe a process that
// `taskset`, a cpuset or a container's CPU quota restricts (16 busy threads on 2 usable cores run each at an eighth).
#pragma once
#include <optional>
#include <string_view>

namespace warpvol {

// The calling thread's CPU affinity (sched_getaffinity: taskset, cpusets), bounded by the cgroup v2 CPU quota of this
// process's cgroup and its parents (cpu.max: `docker --cpus`, systemd's CPUQuota=), rounded up; at least 1.
unsigned usable_cores();

// Cores a cgroup v2 cpu.max line allows ("QUOTA PERIOD", rounded up, at least 1); none for "max ..." or a line it
// cannot read.
std::optional<unsigned> cores_of_cpu_max(std::string_view cpu_max);
// The cgroup v2 path in /proc/self/cgroup's text (its "0::PATH" line); none on a system of cgroup v1 only.
std::optional<std::string_view> cgroup_v2_path(std::string_view proc_self_cgroup);

}  // namespace warpvol
