// warpvol::gpu::benchmark (gpu_engine.h): kernel-only and end-to-end throughput per chain.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>

#include "core/util/error.h"
#include "gpu/engine_impl.h"

namespace warpvol::gpu {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void fill_random(uint8_t* p, size_t n, uint64_t seed) {
  uint64_t s = seed | 1;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    std::memcpy(p + i, &s, 8);
  }
  for (; i < n; ++i) p[i] = uint8_t(i * 131 + 7);
}

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(ErrorKind::Io, std::string("GPU benchmark: ") + what + ": " + cudaGetErrorString(e));
}

struct DeviceBuffer {
  uint8_t* p = nullptr;
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
};
struct PinnedBuffer {
  uint8_t* p = nullptr;
  ~PinnedBuffer() { free_pinned(p); }
};

}  // namespace

std::vector<GpuBenchResult> benchmark(const GpuBenchOptions& opt, std::string& device, std::string& why_not) {
  std::unique_ptr<GpuEngine> eng = GpuEngine::create(opt.engine, why_not);
  if (!eng) return {};
  device = eng->props().name;
  std::vector<ChainId> chains = opt.chains;
  if (chains.empty())
    for (const auto& c : all_chains()) chains.push_back(c.id);
  const int reps = std::max(1, opt.repeats);
  std::mt19937_64 rng(std::random_device{}());
  auto fail_check = [&](const char* what) {
    GpuEngineStatus st = eng->status();
    if (st.failed) throw Error(ErrorKind::Io, std::string("GPU benchmark (") + what + "): " + st.error);
  };

  std::vector<GpuBenchResult> out;
  for (ChainId c : chains) out.push_back(GpuBenchResult{c});
  std::vector<std::shared_ptr<const EngineKey>> keys;
  for (ChainId c : chains) {
    std::vector<uint8_t> km(2 * chain_info(c).key_size());
    for (auto& b : km) b = uint8_t(rng());
    keys.push_back(eng->prepare(c, km.data()));
    secure_wipe(km.data(), km.size());
  }

  if (opt.kernel) {
    const size_t units = std::max<size_t>(1, opt.kernel_bytes / kDataUnitSize);
    const size_t bytes = units * kDataUnitSize;
    ck(cudaSetDevice(eng->device()), "cudaSetDevice");
    DeviceBuffer buf;
    ck(cudaMalloc(&buf.p, bytes), "cudaMalloc");
    // Pseudo-random payload: zeros encrypted once with a random AES key (never time on zeros).
    ck(cudaMemset(buf.p, 0, bytes), "cudaMemset");
    std::vector<uint8_t> km(64);
    for (auto& b : km) b = uint8_t(rng());
    auto filler = eng->prepare(ChainId::Aes, km.data());
    cudaStream_t s;
    ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    cudaEvent_t e0, e1;
    ck(cudaEventCreate(&e0), "cudaEventCreate");
    ck(cudaEventCreate(&e1), "cudaEventCreate");
    try {
      ck(eng->enqueue_kernels(static_cast<const GpuKey&>(*filler), nullptr, Direction::Encrypt, 0, buf.p, units, s),
         "kernel");
      for (size_t i = 0; i < chains.size(); ++i) {
        const auto& k = static_cast<const GpuKey&>(*keys[i]);
        for (Direction d : {Direction::Encrypt, Direction::Decrypt}) {
          ck(eng->enqueue_kernels(k, nullptr, d, 256, buf.p, units, s), "kernel");  // warm-up
          std::vector<double> t;
          for (int r = 0; r < reps; ++r) {
            ck(cudaEventRecord(e0, s), "cudaEventRecord");
            ck(eng->enqueue_kernels(k, nullptr, d, 256, buf.p, units, s), "kernel");
            ck(cudaEventRecord(e1, s), "cudaEventRecord");
            ck(cudaEventSynchronize(e1), "kernel run");
            float ms = 0;
            ck(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
            t.push_back(ms * 1e-3);
          }
          const double gbps = double(bytes) / median(t) / 1e9;
          (d == Direction::Encrypt ? out[i].kernel_encrypt_gbps : out[i].kernel_decrypt_gbps) = gbps;
        }
      }
    } catch (...) {
      cudaStreamSynchronize(s);
      cudaEventDestroy(e0);
      cudaEventDestroy(e1);
      cudaStreamDestroy(s);
      throw;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(s);
  }

  auto host_pass = [&](uint8_t* buf, size_t units, double GpuBenchResult::*enc_field,
                       double GpuBenchResult::*dec_field) {
    for (size_t i = 0; i < chains.size(); ++i) {
      for (Direction d : {Direction::Encrypt, Direction::Decrypt}) {
        eng->process(*keys[i], d, 256, buf, units);  // warm-up
        std::vector<double> t;
        for (int r = 0; r < reps; ++r) {
          auto t0 = std::chrono::steady_clock::now();
          eng->process(*keys[i], d, 256, buf, units);
          t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        fail_check("end to end");
        out[i].*(d == Direction::Encrypt ? enc_field : dec_field) = double(units * kDataUnitSize) / median(t) / 1e9;
      }
    }
  };
  const size_t hunits = std::max<size_t>(1, opt.host_bytes / kDataUnitSize);
  if (opt.pinned) {
    PinnedBuffer b;
    b.p = static_cast<uint8_t*>(alloc_pinned(hunits * kDataUnitSize));
    if (!b.p) throw Error(ErrorKind::Io, "GPU benchmark: cannot allocate page-locked host memory");
    fill_random(b.p, hunits * kDataUnitSize, rng());
    host_pass(b.p, hunits, &GpuBenchResult::pinned_gbps, &GpuBenchResult::pinned_decrypt_gbps);
  }
  if (opt.pageable) {
    std::unique_ptr<uint8_t[]> b(new uint8_t[hunits * kDataUnitSize]);
    fill_random(b.get(), hunits * kDataUnitSize, rng());
    host_pass(b.get(), hunits, &GpuBenchResult::pageable_gbps, &GpuBenchResult::pageable_decrypt_gbps);
  }
  return out;
}

}  // namespace warpvol::gpu
