// Serpent-XTS, SSE2: 4 blocks per register set (one block per xmm in memory layout), 2 sets per batch. Registered
// at the AES-NI level (the lowest SIMD level of the dispatcher); it uses nothing beyond SSE2. See serpent_xts.h.
#include <emmintrin.h>

#include "core/crypto/simd/serpent_kernel.h"
#include "core/crypto/simd/serpent_xts.h"
#include "core/crypto/simd/vec_sse.h"

namespace warpvol::simd::serpent {

namespace {

struct V128 : VecSse<V128> {};

using X = Xts<V128, 2>;

}  // namespace

void xts_encrypt_sse2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k->k1, k->k2, unit0, data, nunits);
}
void xts_decrypt_sse2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k->k1, k->k2, unit0, data, nunits);
}

}  // namespace warpvol::simd::serpent
