// Camellia-XTS with AES-NI on 128-bit vectors: 16 blocks per batch (half a data unit), S-boxes as nibble-table
// affine maps (pshufb) around aesenclast/aesdeclast. See camellia_xts.h.
#include <immintrin.h>

#include "core/crypto/simd/camellia_consts.h"
#include "core/crypto/simd/camellia_kernel.h"
#include "core/crypto/simd/vec_sse.h"

namespace warpvol::simd::camellia {

namespace {

struct V128 : VecSse<V128> {
  static CAMELLIA_INLINE __m128i table(const uint8_t* t) { return _mm_load_si128(reinterpret_cast<const __m128i*>(t)); }
  static CAMELLIA_INLINE __m128i affine(__m128i x, const uint8_t* lo, const uint8_t* hi) {
    const __m128i m4 = _mm_set1_epi8(0x0f);
    return _mm_xor_si128(_mm_shuffle_epi8(table(lo), _mm_and_si128(x, m4)),
                         _mm_shuffle_epi8(table(hi), _mm_and_si128(_mm_srli_epi16(x, 4), m4)));
  }
  // S-box s on every byte; the result comes back permuted by ShiftRows (aesenclast, !kD2) or InvShiftRows
  // (aesdeclast, kD2); see camellia_kernel.h.
  template <int s, bool kD2>
  static CAMELLIA_INLINE V128 sbox(V128 x) {
    if constexpr (!kD2) {
      const __m128i z = _mm_aesenclast_si128(affine(x.v, kPreLo[s - 1], kPreHi[s - 1]), _mm_setzero_si128());
      return {affine(z, kPostLo[s - 1], kPostHi[s - 1])};
    } else {
      const __m128i z = _mm_aesdeclast_si128(affine(x.v, kDecPreLo[s - 1], kDecPreHi[s - 1]), _mm_setzero_si128());
      return {affine(z, kDecPostLo[s - 1], kDecPostHi[s - 1])};
    }
  }
  // Block i of a D2 plane <- block ShiftRows[i] (vpshufb gather indices), and back.
  static CAMELLIA_INLINE V128 to_d2_order(V128 x) {
    return {_mm_shuffle_epi8(x.v, _mm_setr_epi8(0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11))};
  }
  static CAMELLIA_INLINE V128 from_d2_order(V128 x) {
    return {_mm_shuffle_epi8(x.v, _mm_setr_epi8(0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3))};
  }
};

using X = Xts<V128>;

}  // namespace

void xts_encrypt_aesni(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k, unit0, data, nunits);
}
void xts_decrypt_aesni(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k, unit0, data, nunits);
}

}  // namespace warpvol::simd::camellia
