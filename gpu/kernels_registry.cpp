// Registry of the fused re-encryption kernels (generated files kernels_reenc_<from>.cu), when built. Alone in its
// file so that programs that never re-encrypt (gpu_bench, gpu_ablation) can define reencrypt_kernel() themselves and
// link without the 225 kernels (about 100 MB of fatbin); see bench/no_reencrypt_kernels.cpp.
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
