// Ablation of the kernel design, one run over the same random data in GPU memory:
//   (a) seed design: one launch per 256 KiB chunk, one thread per 16-byte block, every thread encrypts its own
//       block's tweak E_K2(unit) (32x the tweak work), plain (not replicated) shared-memory tables;
//   (b) two kernels: a tweak kernel writes every block's T_j to a buffer (16 bytes per block and layer), then the
//       data kernel reads data + tweaks (same tile layout and tables as the shipped kernel);
//   (c) the shipped fused kernel (tweaks in registers, one launch over the whole buffer).
// The three outputs are compared with each other before timing. Usage: gpu_ablation [MiB] (default 1024).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "gpu/cipher_host.h"
#include "gpu/engine_impl.h"
#include "gpu/xts_device.cuh"

using namespace warpvol;
using namespace warpvol::gpu;
using namespace warpvol::gpu::dev;

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

namespace {

constexpr int kSeedThreads = 256;

template <class LL>
__global__ void __launch_bounds__(kSeedThreads) seed_kernel(const __grid_constant__ Params<LL::n> p) {
  using PL = PlanOf<LL, 1>;
  constexpr int NL = LL::n;
  LayerOps<LL>::template fill<PL, NL>(p);
  __syncthreads();
  const uint32_t lane = threadIdx.x & 31;
  const Lane ln{lane * 4, (lane & 15) * 4};
  const unsigned long long b = (unsigned long long)blockIdx.x * kSeedThreads + threadIdx.x;
  if (b >= p.nunits * 32) return;
  const unsigned long long unit = p.unit0 + b / 32;
  uint4 tw[NL];
  LayerOps<LL>::template tweaks<PL, NL>(tw, make_uint4(uint32_t(unit), uint32_t(unit >> 32), 0, 0), p, ln);
#pragma unroll
  for (int l = 0; l < NL; ++l) tw[l] = mul_alpha_pow(tw[l], uint32_t(b % 32));
  p.data[b] = LayerOps<LL>::template apply<PL, NL>(p.data[b], tw, p, ln);
}

// (b) kernel 1: T_j of every block and layer into tbuf[(l * nunits + unit) * 32 + j].
template <class LL>
__global__ void __launch_bounds__(kThreads) tweak_kernel(const __grid_constant__ Params<LL::n> p, uint4* tbuf) {
  using PL = PlanOf<LL>;
  constexpr int NL = LL::n;
  LayerOps<LL>::template fill<PL, NL>(p);
  __syncthreads();
  const uint32_t lane = threadIdx.x & 31;
  const Lane ln{lane * 4, (lane & 15) * 4};
  const unsigned long long ntiles = (p.nunits + 31) / 32, nwarps = (unsigned long long)gridDim.x * (kThreads / 32);
  for (unsigned long long tile = (unsigned long long)blockIdx.x * (kThreads / 32) + threadIdx.x / 32; tile < ntiles;
       tile += nwarps) {
    const unsigned long long ubase = tile * 32, unit = p.unit0 + ubase + lane;
    uint4 tw[NL];
    LayerOps<LL>::template tweaks<PL, NL>(tw, make_uint4(uint32_t(unit), uint32_t(unit >> 32), 0, 0), p, ln);
    const int cnt = int(min(32ull, p.nunits - ubase));
    for (int u = 0; u < cnt; ++u)
#pragma unroll
      for (int l = 0; l < NL; ++l)
        tbuf[(l * p.nunits + ubase + u) * 32 + lane] = mul_alpha_pow(shfl4(tw[l], u), lane);
  }
}

// (b) kernel 2: data with tweaks read from the buffer.
template <class LL>
__global__ void __launch_bounds__(kThreads) data_kernel(const __grid_constant__ Params<LL::n> p, const uint4* tbuf) {
  using PL = PlanOf<LL>;
  constexpr int NL = LL::n;
  LayerOps<LL>::template fill<PL, NL>(p);
  __syncthreads();
  const uint32_t lane = threadIdx.x & 31;
  const Lane ln{lane * 4, (lane & 15) * 4};
  const unsigned long long nblocks = p.nunits * 32;
  const unsigned long long stride = (unsigned long long)gridDim.x * kThreads;
  for (unsigned long long b = (unsigned long long)blockIdx.x * kThreads + threadIdx.x; b < nblocks; b += stride) {
    uint4 t[NL];
#pragma unroll
    for (int l = 0; l < NL; ++l) t[l] = __ldcs(tbuf + l * nblocks + b);
    __stcs(p.data + b, LayerOps<LL>::template apply<PL, NL>(__ldcs(p.data + b), t, p, ln));
  }
}

template <class K, class P>
int max_grid(K kernel, int threads, unsigned smem, int sms) {
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  int per = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, threads, smem));
  return per * sms;
}

struct Result {
  const char* name;
  double a, b, c;
  bool same;
};

uint64_t checksum(const uint8_t* d, size_t bytes) {
  std::vector<uint64_t> h(bytes / 8);
  CK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
  uint64_t s = 1469598103934665603ull;
  for (uint64_t v : h) s = (s ^ v) * 1099511628211ull;
  return s;
}

template <ChainId C>
Result run(const char* name, ChainId chain, GpuEngine& eng, uint8_t* d_src, uint8_t* d_work, size_t units,
           int sms) {
  using LL = EncOf<C>;
  constexpr int NL = LL::n;
  std::mt19937_64 rng{uint64_t(C)};
  std::vector<uint8_t> km(2 * chain_info(chain).key_size());
  for (auto& b : km) b = uint8_t(rng());
  auto key = eng.prepare(chain, km.data());
  const auto& gk = static_cast<const GpuKey&>(*key);
  Params<NL> p{};
  p.unit0 = 256;
  p.tabs = eng.tables();
  for (int i = 0; i < NL; ++i) p.key[i] = gk.keys(Direction::Encrypt)[i];
  const size_t bytes = units * 512;
  uint4* tbuf = nullptr;
  CK(cudaMalloc(&tbuf, bytes * NL));
  const unsigned smem_seed = PlanOf<LL, 1>::plan.total, smem = PlanOf<LL>::plan.total;
  max_grid<decltype(&seed_kernel<LL>), Params<NL>>(&seed_kernel<LL>, kSeedThreads, smem_seed, sms);
  const int gt = max_grid<decltype(&tweak_kernel<LL>), Params<NL>>(&tweak_kernel<LL>, kThreads, smem, sms);
  const int gd = max_grid<decltype(&data_kernel<LL>), Params<NL>>(&data_kernel<LL>, kThreads, smem, sms);

  auto variant_a = [&] {
    const size_t cu = 512;  // units per 256 KiB chunk
    for (size_t first = 0; first < units; first += cu) {
      Params<NL> q = p;
      q.data = reinterpret_cast<uint4*>(d_work + first * 512);
      q.unit0 = p.unit0 + first;
      q.nunits = std::min(cu, units - first);
      seed_kernel<LL><<<unsigned((q.nunits * 32 + kSeedThreads - 1) / kSeedThreads), kSeedThreads, smem_seed>>>(q);
    }
  };
  auto variant_b = [&] {
    Params<NL> q = p;
    q.data = reinterpret_cast<uint4*>(d_work);
    q.nunits = units;
    tweak_kernel<LL><<<gt, kThreads, smem>>>(q, tbuf);
    data_kernel<LL><<<gd, kThreads, smem>>>(q, tbuf);
  };
  auto variant_c = [&] {
    CK(eng.enqueue_kernels(gk, nullptr, Direction::Encrypt, 256, d_work, units, 0));
  };
  auto timeit = [&](auto&& f) {
    f();  // warm-up
    CK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> t;
    for (int r = 0; r < 5; ++r) {
      CK(cudaEventRecord(e0));
      f();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return double(bytes) / (t[2] * 1e-3) / 1e9;
  };
  // Same output from all three on the same input.
  uint64_t sum[3];
  int i = 0;
  CK(cudaMemcpy(d_work, d_src, bytes, cudaMemcpyDeviceToDevice));
  variant_a();
  CK(cudaDeviceSynchronize());
  sum[i++] = checksum(d_work, bytes);
  CK(cudaMemcpy(d_work, d_src, bytes, cudaMemcpyDeviceToDevice));
  variant_b();
  CK(cudaDeviceSynchronize());
  sum[i++] = checksum(d_work, bytes);
  CK(cudaMemcpy(d_work, d_src, bytes, cudaMemcpyDeviceToDevice));
  variant_c();
  CK(cudaDeviceSynchronize());
  sum[i++] = checksum(d_work, bytes);
  Result r{name, timeit(variant_a), timeit(variant_b), timeit(variant_c), sum[0] == sum[1] && sum[1] == sum[2]};
  CK(cudaFree(tbuf));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
  std::string why;
  auto eng = GpuEngine::create(GpuEngineOptions{}, why);
  if (!eng) {
    std::printf("no GPU: %s\n", why.c_str());
    return 77;
  }
  CK(cudaSetDevice(eng->device()));
  const int sms = eng->props().multiProcessorCount;
  const size_t units = mib * 2048;
  uint8_t *d_src, *d_work;
  CK(cudaMalloc(&d_src, units * 512));
  CK(cudaMalloc(&d_work, units * 512));
  {
    std::vector<uint8_t> h(units * 512);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i + 8 <= h.size(); i += 8) {
      s ^= s << 13;
      s ^= s >> 7;
      s ^= s << 17;
      std::memcpy(&h[i], &s, 8);
    }
    CK(cudaMemcpy(d_src, h.data(), h.size(), cudaMemcpyHostToDevice));
  }
  std::printf("ablation on %s, %zu MiB of random data in GPU memory, encryption, GB/s (median of 5)\n",
              eng->props().name, mib);
  std::printf("  %-22s %14s %14s %14s  %s\n", "chain", "(a) seed", "(b) two-kernel", "(c) shipped", "outputs");
  std::vector<Result> rs;
  rs.push_back(run<ChainId::Aes>("AES", ChainId::Aes, *eng, d_src, d_work, units, sms));
  rs.push_back(run<ChainId::Serpent>("Serpent", ChainId::Serpent, *eng, d_src, d_work, units, sms));
  rs.push_back(run<ChainId::Twofish>("Twofish", ChainId::Twofish, *eng, d_src, d_work, units, sms));
  rs.push_back(run<ChainId::AesTwofishSerpent>("AES-Twofish-Serpent", ChainId::AesTwofishSerpent, *eng, d_src, d_work, units, sms));
  bool all = true;
  for (auto& r : rs) {
    std::printf("  %-22s %14.1f %14.1f %14.1f  %s\n", r.name, r.a, r.b, r.c, r.same ? "identical" : "DIFFER");
    all &= r.same;
  }
  cudaFree(d_src);
  cudaFree(d_work);
  return all ? 0 : 1;
}
