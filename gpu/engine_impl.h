// Internal: the CUDA engine class shared by gpu_engine.cpp (engine, pipeline, fallback) and gpu_benchmark.cpp.
#pragma once
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/engine/cpu_engine.h"
#include "core/engine/xts_engine.h"
#include "core/util/secure.h"
#include "gpu/copy_crew.h"
#include "gpu/gpu_engine.h"
#include "gpu/kernel_api.h"

namespace warpvol::gpu {

struct CudaError : std::runtime_error {
  CudaError(cudaError_t c, const std::string& what) : std::runtime_error(what), code(c) {}
  cudaError_t code;
};
void check(cudaError_t e, const char* what);  // throws CudaError

class GpuEngine;
struct PinnedPool;  // gpu_engine.cpp

class GpuKey final : public EngineKey {
 public:
  // upload = false: host schedules only (after a CUDA error; such a key only serves the CPU fallback).
  GpuKey(ChainId chain, const uint8_t* key_material, int device, bool upload);
  ~GpuKey() override;
  ChainId chain() const override { return chain_; }
  int layers() const { return n_; }
  // n_ layer keys in application order: encryption order for encrypt, reversed for decrypt.
  const LayerKey* keys(Direction d) const {
    return reinterpret_cast<const LayerKey*>((d == Direction::Encrypt ? enc_ : dec_).data());
  }
  // The CPU engine's key for the fallback (made on first use).
  const EngineKey& cpu_key(CpuEngine& cpu) const;

 private:
  ChainId chain_;
  int n_;
  int device_;
  LockedBytes material_;  // 2K bytes
  LockedBytes enc_, dec_;  // n_ LayerKey each
  uint32_t* d_tf_ = nullptr;  // Twofish g() tables: per cipher index, data key then tweak key (1024 words each)
  size_t d_tf_bytes_ = 0;
  mutable std::mutex cpu_mu_;
  mutable std::shared_ptr<const EngineKey> cpu_key_;
};

class GpuEngine final : public XtsEngine {
 public:
  // nullptr with why_not when no usable device.
  static std::unique_ptr<GpuEngine> create(const GpuEngineOptions& opt, std::string& why_not);
  ~GpuEngine() override;

  std::string name() const override { return "gpu"; }
  std::string detail() const override;
  std::shared_ptr<const EngineKey> prepare(ChainId chain, const uint8_t* key_material) override;
  void process(const EngineKey& key, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) override;
  void reencrypt(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                 size_t nunits) override;
  // The checksum entries are hashed in device memory after the cipher kernels; only they come back beside the data
  // (16 bytes per 512-byte unit).
  void reencrypt_hashed(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data, size_t nunits,
                        uint8_t* hashes) override;
  // Page-locked (cudaHostAlloc) buffers, kept in a pool between requests and jobs: the pipeline DMAs from them
  // without a staging copy. Aligned heap memory after a CUDA error or when page-locking fails.
  IoBuffer io_buffer(size_t bytes) override;
  unsigned concurrency() const override { return unsigned(std::max(1, nslots_)); }

  GpuEngineStatus status() const;
  int device() const { return device_; }
  const cudaDeviceProp& props() const { return prop_; }
  bool pin_host(uint8_t* p, size_t bytes) override;
  void unpin_host(uint8_t* p) override;
  const uint32_t* tables() const { return d_tables_; }

  // One job's work on `n` units already in device memory at `d_data` (process when `to` is null, else re-encrypt
  // from `a` to `to`), enqueued on `s`. Returns the first error (launch failures, injected ones included).
  cudaError_t enqueue_kernels(const GpuKey& a, const GpuKey* to, Direction d, uint64_t unit0, uint8_t* d_data,
                              size_t n, cudaStream_t s);

 private:
  GpuEngine() = default;
  struct Slot {
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;
    uint8_t* d = nullptr;  // device chunk buffer
    uint8_t* h = nullptr;  // pinned staging buffer
    uint8_t* d_hash = nullptr;  // device: the chunk's unit hashes (reencrypt_hashed)
    uint8_t* h_hash = nullptr;  // pinned: the same, brought back
    bool busy = false;
  };
  struct Job {
    const GpuKey* a;
    const GpuKey* b;  // re-encryption target, or null
    Direction d;
    uint64_t unit0;
    uint8_t* data;
    size_t nunits;
    uint8_t* hashes = nullptr;  // reencrypt_hashed: 16 bytes per unit of the result
  };
  void run(const Job& job);
  void run_cpu(const Job& job, size_t first, size_t n);
  void ensure_buffers();
  Slot* acquire(bool may_block);
  void release(Slot* s);
  void fail(const std::string& what);
  CpuEngine& cpu();
  int grid_for(const KernelInfo& k, size_t nunits, unsigned& tile);  // grid size; sets the units per warp tile
  void parallel_copy(CopyCrew& crew, uint8_t* dst, const uint8_t* src, size_t n);

  GpuEngineOptions opt_;
  int device_ = 0;
  cudaDeviceProp prop_{};
  // Seconds spent in create(): the driver's start (the first CUDA call), the context's creation, all of it. Shown by
  // detail(): a job on the GPU pays them once, before its first request.
  double driver_start_s_ = 0, context_s_ = 0, create_s_ = 0;
  uint32_t* d_tables_ = nullptr;
  size_t chunk_units_ = 0;
  int nslots_ = 0;
  unsigned copy_threads_ = 0;
  long fail_launch_ = -1;
  int tile_units_ = 0;           // WARPVOL_GPU_TILE: 0 = per request (grid_for)
  size_t min_piece_units_ = 1024;  // requests under four chunks go in pieces of at least this many units
  size_t copy_piece_ = 128 << 10;  // bytes per copy-crew task
  size_t threaded_bytes_ = 16 << 20;  // larger requests finish their pieces on a completer thread

  std::mutex buf_mu_;
  bool buffers_ready_ = false;
  std::vector<Slot> slots_;
  std::mutex slot_mu_;
  std::condition_variable slot_cv_;
  std::unique_ptr<CopyCrew> copy_in_, copy_out_;  // pageable <-> staging copies: caller side, completer side
  bool nt_copy_ = false;

  std::mutex grid_mu_;
  std::unordered_map<const void*, int> max_grid_;  // per kernel: SMs x resident CTAs

  std::atomic<unsigned> active_runs_{0};  // run() calls under way: how many requests overlap one another
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> launches_{0};
  std::atomic<uint64_t> cpu_units_{0};
  mutable std::mutex fail_mu_;
  std::string error_;
  std::mutex cpu_mu_;
  std::unique_ptr<CpuEngine> cpu_;
  std::shared_ptr<PinnedPool> pinned_pool_;  // shared with the buffers handed out (they may outlive the engine)
};

}  // namespace warpvol::gpu
