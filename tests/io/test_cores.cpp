#include <catch2/catch.hpp>
#include <sched.h>

#include <algorithm>
#include <thread>

#include "core/util/cores.h"
#include "core/util/thread_pool.h"

using namespace warpvol;

TEST_CASE("cores: a cgroup v2 cpu.max line gives its quota in whole cores rounded up and none for max or a bad line",
          "[io]") {
  CHECK(cores_of_cpu_max("200000 100000\n") == 2u);
  CHECK(cores_of_cpu_max("150000 100000") == 2u);
  CHECK(cores_of_cpu_max("50000 100000\n") == 1u);
  CHECK(cores_of_cpu_max("1 100000") == 1u);
  CHECK_FALSE(cores_of_cpu_max("max 100000\n"));
  CHECK_FALSE(cores_of_cpu_max(""));
  CHECK_FALSE(cores_of_cpu_max("200000"));
  CHECK_FALSE(cores_of_cpu_max("200000 0"));
  CHECK_FALSE(cores_of_cpu_max("2e5 100000"));
}

TEST_CASE("cores: the cgroup v2 path is the 0:: line of /proc/self/cgroup and a cgroup v1 system has none", "[io]") {
  CHECK(cgroup_v2_path("0::/user.slice/session-1.scope\n") == std::string_view("/user.slice/session-1.scope"));
  CHECK(cgroup_v2_path("12:cpu,cpuacct:/x\n1:name=systemd:/\n0::/\n") == std::string_view("/"));
  CHECK_FALSE(cgroup_v2_path("4:memory:/a\n1:cpu:/\n"));
  CHECK_FALSE(cgroup_v2_path(""));
}

TEST_CASE("cores: a thread restricted to one CPU (taskset or a cpuset) sizes its pools for one core", "[io]") {
  const unsigned all = usable_cores();
  CHECK(all >= 1);
  CHECK(all <= std::max(1u, std::thread::hardware_concurrency()));
  cpu_set_t mine;
  REQUIRE(sched_getaffinity(0, sizeof mine, &mine) == 0);
  int first = 0;
  while (!CPU_ISSET(first, &mine)) ++first;
  unsigned restricted = 0, pool = 0;
  std::thread t([&] {  // the affinity is the thread's own: the test's thread keeps all of its CPUs
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) return;
    restricted = usable_cores();
    pool = ThreadPool(0).size();
  });
  t.join();
  CHECK(restricted == 1);
  CHECK(pool == 1);
  CHECK(usable_cores() == all);
}
