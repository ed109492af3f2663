// Serpent-XTS, AVX-512: 16 blocks per register set (four blocks per zmm in memory layout), 2 sets = one whole
// 512-byte data unit per batch. S-boxes as vpternlogd circuits (8-9 per S-box, serpent_sboxes.h), rotates as
// vprold, the LT's three-way XORs as one vpternlogd each. See serpent_xts.h.
// GCC 12 warns falsely inside its own AVX-512 headers (_mm512_undefined_epi32, GCC bug 105593, fixed in 12.3).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "core/crypto/simd/serpent_kernel.h"
#include "core/crypto/simd/serpent_xts.h"
#include "core/crypto/simd/vec_avx512.h"

namespace warpvol::simd::serpent {

namespace {

struct V512 : VecAvx512<V512> {};

using X = Xts<V512, 2>;

}  // namespace

void xts_encrypt_avx512(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k->k1, k->k2, unit0, data, nunits);
}
void xts_decrypt_avx512(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k->k1, k->k2, unit0, data, nunits);
}

}  // namespace warpvol::simd::serpent
