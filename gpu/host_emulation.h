// Host emulation of the CUDA primitives used by gpu/xts_device.cuh, so the device cipher code, the shared-memory
// plan and the table layouts can be compiled by the host compiler and checked on a machine without a GPU
// (tests/xts/test_gpu_engine.cpp, "[gpu][emulation]"). Only the per-thread code is emulated; the kernel driver
// (warps, shuffles, barriers) is re-enacted sequentially by the test.
#pragma once
#include <vector_functions.h>
#include <vector_types.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#ifndef __device__
#define __device__
#endif
#ifndef __host__
#define __host__
#endif
#ifndef __forceinline__
#define __forceinline__ inline
#endif
#define WV_EMU_SMEM_BYTES (227 * 1024)

namespace warpvol::gpu::dev {
struct EmuDim {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local EmuDim threadIdx, blockDim;
alignas(16) inline thread_local unsigned char wv_smem[WV_EMU_SMEM_BYTES];

inline uint32_t __byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  const uint64_t v = uint64_t(y) << 32 | x;
  uint32_t r = 0;
  for (int n = 0; n < 4; ++n) r |= uint32_t((v >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
  return r;
}
inline uint32_t __funnelshift_l(uint32_t lo, uint32_t hi, uint32_t s) {
  return uint32_t(((uint64_t(hi) << 32 | lo) << (s & 31)) >> 32);
}
inline uint32_t __funnelshift_r(uint32_t lo, uint32_t hi, uint32_t s) {
  return uint32_t((uint64_t(hi) << 32 | lo) >> (s & 31));
}
template <class T>
inline T __ldg(const T* p) {
  return *p;
}
}  // namespace warpvol::gpu::dev
