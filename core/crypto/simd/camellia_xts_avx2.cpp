// Camellia-XTS with AVX2 + VAES: 32 blocks (one data unit: blocks 0..15 in lane 0, 16..31 in lane 1) per batch,
// S-boxes as nibble-table affine maps (vpshufb) around 256-bit vaesenclast/vaesdeclast. Uses no GFNI.
// See camellia_xts.h.
#include <immintrin.h>

#include "core/crypto/simd/camellia_consts.h"
#include "core/crypto/simd/camellia_kernel.h"
#include "core/crypto/simd/vec_avx2.h"

namespace warpvol::simd::camellia {

namespace {

struct V256 : VecAvx2<V256> {
  static CAMELLIA_INLINE __m256i table(const uint8_t* t) {
    return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(t)));
  }
  static CAMELLIA_INLINE __m256i affine(__m256i x, const uint8_t* lo, const uint8_t* hi) {
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    return _mm256_xor_si256(_mm256_shuffle_epi8(table(lo), _mm256_and_si256(x, m4)),
                            _mm256_shuffle_epi8(table(hi), _mm256_and_si256(_mm256_srli_epi16(x, 4), m4)));
  }
  // S-box s on every byte; the result comes back permuted by ShiftRows (vaesenclast, !kD2) or InvShiftRows
  // (vaesdeclast, kD2) inside each lane; see camellia_kernel.h.
  template <int s, bool kD2>
  static CAMELLIA_INLINE V256 sbox(V256 x) {
    if constexpr (!kD2) {
      const __m256i z = _mm256_aesenclast_epi128(affine(x.v, kPreLo[s - 1], kPreHi[s - 1]), _mm256_setzero_si256());
      return {affine(z, kPostLo[s - 1], kPostHi[s - 1])};
    } else {
      const __m256i z =
          _mm256_aesdeclast_epi128(affine(x.v, kDecPreLo[s - 1], kDecPreHi[s - 1]), _mm256_setzero_si256());
      return {affine(z, kDecPostLo[s - 1], kDecPostHi[s - 1])};
    }
  }
  // Block i of a D2 plane <- block ShiftRows[i] within each lane (vpshufb gather indices), and back.
  static CAMELLIA_INLINE V256 to_d2_order(V256 x) {
    return {_mm256_shuffle_epi8(x.v, _mm256_setr_epi8(0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11, 0, 5, 10,
                                                      15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11))};
  }
  static CAMELLIA_INLINE V256 from_d2_order(V256 x) {
    return {_mm256_shuffle_epi8(x.v, _mm256_setr_epi8(0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3, 0, 13, 10,
                                                      7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3))};
  }
};

using X = Xts<V256>;

}  // namespace

void xts_encrypt_avx2(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k, unit0, data, nunits);
}
void xts_decrypt_avx2(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k, unit0, data, nunits);
}

}  // namespace warpvol::simd::camellia
