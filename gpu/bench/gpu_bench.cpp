// Prints warpvol::gpu::benchmark() as a table: kernel-only, pinned and pageable end-to-end GB/s per chain.
// Usage: gpu_bench [kernel MiB] [host MiB] [repeats]   (engine knobs through the WARPVOL_GPU_* variables)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/crypto/chain.h"
#include "core/util/error.h"
#include "gpu/gpu_engine.h"

int main(int argc, char** argv) {
  using namespace warpvol;
  gpu::GpuBenchOptions o;
  if (argc > 1) o.kernel_bytes = std::strtoull(argv[1], nullptr, 10) << 20;
  if (argc > 2) o.host_bytes = std::strtoull(argv[2], nullptr, 10) << 20;
  if (argc > 3) o.repeats = std::atoi(argv[3]);
  if (const char* c = std::getenv("GPU_BENCH_CHAINS")) {
    std::string s = c;
    size_t pos = 0;
    while (pos <= s.size()) {
      size_t e = s.find(',', pos);
      if (e == std::string::npos) e = s.size();
      if (auto id = parse_chain(s.substr(pos, e - pos))) o.chains.push_back(*id);
      pos = e + 1;
    }
  }
  o.kernel = !std::getenv("GPU_BENCH_NO_KERNEL");
  o.pinned = !std::getenv("GPU_BENCH_NO_PINNED");
  o.pageable = !std::getenv("GPU_BENCH_NO_PAGEABLE");
  std::string dev, why;
  try {
    auto r = gpu::benchmark(o, dev, why);
    if (r.empty()) {
      std::printf("no GPU: %s\n", why.c_str());
      return 77;
    }
    std::printf("%s: kernel-only over %zu MiB in GPU memory; end to end over %zu MiB of host memory; GB/s, median of %d\n",
                dev.c_str(), o.kernel_bytes >> 20, o.host_bytes >> 20, o.repeats);
    std::printf("  %-28s %10s %10s %10s %10s %12s %12s\n", "chain", "kernel enc", "kernel dec", "pinned enc",
                "pinned dec", "pageable enc", "pageable dec");
    for (auto& x : r)
      std::printf("  %-28s %10.1f %10.1f %10.1f %10.1f %12.1f %12.1f\n", std::string(chain_info(x.chain).name).c_str(),
                  x.kernel_encrypt_gbps, x.kernel_decrypt_gbps, x.pinned_gbps, x.pinned_decrypt_gbps,
                  x.pageable_gbps, x.pageable_decrypt_gbps);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
