// The core clock from a chain of dependent IMULs, shared by the benchmarks that report it.
// Each iteration is 4 IMULs of 3 cycles' latency (current Intel and AMD cores), so `iters` iterations take
// kImulChainCycles * iters core cycles. Not an ADD chain: on an Intel Xeon a dependent ADD-immediate chain ran
// faster than one per cycle (folded at rename).
#pragma once
#include <cstdint>

namespace warpvol::bench {

constexpr double kImulChainCycles = 4 * 3;  // core cycles per iteration

inline void imul_chain(uint64_t iters) {
  uint64_t acc = 3;
  __asm__ __volatile__(
      "1:\n\t"
      "imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"
      "dec %1\n\tjnz 1b"
      : "+r"(acc), "+r"(iters)
      :
      : "cc");
}

}  // namespace warpvol::bench
