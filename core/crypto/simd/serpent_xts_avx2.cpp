// Serpent-XTS, AVX2: 8 blocks per register set (two blocks per ymm in memory layout), 2 sets per batch. Only AVX2
// instructions are used (no GFNI/VAES), although the dispatcher's AVX2 level also implies those. See serpent_xts.h.
#include <immintrin.h>

#include "core/crypto/simd/serpent_kernel.h"
#include "core/crypto/simd/serpent_xts.h"
#include "core/crypto/simd/vec_avx2.h"

namespace warpvol::simd::serpent {

namespace {

struct V256 : VecAvx2<V256> {};

using X = Xts<V256, 2>;

}  // namespace

void xts_encrypt_avx2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k->k1, k->k2, unit0, data, nunits);
}
void xts_decrypt_avx2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k->k1, k->k2, unit0, data, nunits);
}

}  // namespace warpvol::simd::serpent
