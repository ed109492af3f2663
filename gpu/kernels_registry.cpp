// Registry of the fused re-encryption kernels (generated files kernels_reenc_<from>.cu). Alone in its file so that
// it is compiled twice (gpu/CMakeLists.txt): with WARPVOL_GPU_FUSED_REENCRYPT into warpvol_gpu, and without into
// warpvol_gpu_process_only, whose programs (gpu_bench, gpu_ablation) never re-encrypt and link without the kernels.
#include "gpu/kernel_api.h"

namespace warpvol::gpu {

#ifdef WARPVOL_GPU_FUSED_REENCRYPT
#define WV_LIST(X)                                                                                                   \
  X(Aes) X(Serpent) X(Twofish) X(Camellia) X(Kuznyechik) X(AesTwofish) X(AesTwofishSerpent) X(SerpentAes)         \
  X(SerpentTwofishAes) X(TwofishSerpent) X(CamelliaKuznyechik) X(KuznyechikTwofish) X(CamelliaSerpent)           \
  X(KuznyechikAes) X(KuznyechikSerpentCamellia)
#define WV_DECL(F) const KernelInfo* reenc_from_##F(ChainId to);
WV_LIST(WV_DECL)
#undef WV_DECL
#endif

const KernelInfo* reencrypt_kernel(ChainId from, ChainId to) {
#ifdef WARPVOL_GPU_FUSED_REENCRYPT
  switch (from) {
#define WV_CASE(F) \
  case ChainId::F: return reenc_from_##F(to);
    WV_LIST(WV_CASE)
#undef WV_CASE
  }
  return nullptr;
#else
  (void)from;
  (void)to;
  return nullptr;
#endif
}

}  // namespace warpvol::gpu
