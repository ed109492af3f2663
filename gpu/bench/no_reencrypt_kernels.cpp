// For programs that never re-encrypt (gpu_bench, gpu_ablation): no fused re-encryption kernels, so the linker does
// not pull kernels_registry.o and the 225 kernels it references out of libwarpvol_gpu.a (the binaries shrink by about
// 100 MB of fatbin). GpuEngine::reencrypt would fall back to two kernels.
#include "gpu/kernel_api.h"

namespace warpvol::gpu {
const KernelInfo* reencrypt_kernel(ChainId, ChainId) { return nullptr; }
}  // namespace warpvol::gpu
