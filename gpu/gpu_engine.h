// The CUDA XTS engine. Plain C++ header: no CUDA types, so the CLI and tests include it freely.
//
// One fused kernel per chain and direction (every layer of a cascade applied in registers, data read and written
// once, tweaks computed in the kernel), fused re-encryption kernels (decrypt chain A, encrypt chain B), a pinned
// staging ring of several MiB chunks on >= 3 CUDA streams so that copies and kernels overlap, and a CPU fallback:
// a CUDA error during a job sends the rest of the job (and later jobs) to the CPU engine; the error is reported once
// on stderr. Environment: WARPVOL_GPU_DEVICE (index), WARPVOL_GPU_MEM_MB (device memory bound, default 1024),
// WARPVOL_GPU_CHUNK_MB (bytes per transfer, default 16), WARPVOL_GPU_STREAMS (default 4),
// WARPVOL_GPU_COPY_THREADS (host threads copying pageable <-> pinned), WARPVOL_GPU_FAIL_LAUNCH=N (testing: the N-th
// kernel launch of an engine fails).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/crypto/chain.h"
#include "core/engine/xts_engine.h"

namespace warpvol::gpu {

// Registers the GPU factory with core (register_gpu_engine_factory). Idempotent.
void register_engine();

struct GpuEngineOptions {
  int device = -1;               // -1: WARPVOL_GPU_DEVICE or 0
  size_t device_memory = 0;      // bound on the engine's device buffers; 0: WARPVOL_GPU_MEM_MB or 1 GiB
  size_t chunk_bytes = 0;        // bytes per transfer (multiple of 512); 0: WARPVOL_GPU_CHUNK_MB or 16 MiB
  int streams = 0;               // staging slots = CUDA streams (>= 3); 0: WARPVOL_GPU_STREAMS or 4
  unsigned copy_threads = 0;     // 0: WARPVOL_GPU_COPY_THREADS or min(cores, 16)
  unsigned cpu_threads = 0;      // fallback CPU engine threads (0 = one per core)
  long fail_launch = -1;         // -1: WARPVOL_GPU_FAIL_LAUNCH or never; N >= 1: the N-th launch fails
  bool fused_reencrypt = true;   // false: re-encrypt as two kernels over the chunk in GPU memory
  unsigned tile_units = 0;       // data units per warp work item, 1..32; 0: WARPVOL_GPU_TILE or chosen per request
};

// A GPU engine, or nullptr with `why_not` set ("no CUDA device", "CUDA driver ... ", ...).
std::unique_ptr<XtsEngine> make_engine(const GpuEngineOptions& opt, std::string& why_not);

// State of an engine made by make_engine (for tests and --verbose). Not a GPU engine: all fields zero/empty.
struct GpuEngineStatus {
  bool is_gpu = false;
  bool failed = false;        // a CUDA error happened; the engine now runs on the CPU
  std::string error;          // the first error
  uint64_t launches = 0;      // kernel launches so far
  uint64_t cpu_units = 0;     // data units processed by the CPU fallback
  std::string device;         // "NVIDIA H100 80GB HBM3"
};
GpuEngineStatus engine_status(const XtsEngine& e);

// Page-locked host memory: buffers from here skip the staging copy (the engine DMAs straight from them).
void* alloc_pinned(size_t bytes);  // nullptr on failure
void free_pinned(void* p);

// ---- benchmark, for `warpvol benchmark --engine gpu`
struct GpuBenchResult {
  ChainId chain;
  double kernel_encrypt_gbps = 0;  // fused kernel, data already in GPU memory (median of repeats)
  double kernel_decrypt_gbps = 0;
  double pinned_gbps = 0;          // process(encrypt) on a page-locked host buffer: H2D, kernel, D2H pipelined
  double pageable_gbps = 0;        // process(encrypt) on ordinary host memory (staged through the pinned ring)
  double pinned_decrypt_gbps = 0;  // the same two, process(decrypt)
  double pageable_decrypt_gbps = 0;
};
struct GpuBenchOptions {
  size_t kernel_bytes = size_t(1) << 30;  // data in GPU memory for the kernel-only figures
  size_t host_bytes = size_t(1) << 30;    // host buffer for the end-to-end figures
  std::vector<ChainId> chains;            // empty: all 15, in all_chains() order
  int repeats = 5;                        // timed runs per figure (median), after one warm-up
  bool kernel = true, pinned = true, pageable = true;
  GpuEngineOptions engine;
};
// GB/s = 1e9 bytes per second. Empty result with `why_not` set when no device is usable. `device` gets the GPU's
// name. Throws warpvol::Error on a CUDA error during the measurement.
std::vector<GpuBenchResult> benchmark(const GpuBenchOptions& opt, std::string& device, std::string& why_not);

}  // namespace warpvol::gpu
