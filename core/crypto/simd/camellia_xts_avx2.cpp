// Camellia-XTS with AVX2 + VAES: 32 blocks (one data unit: blocks 0..15 in lane 0, 16..31 in lane 1) per batch,
// S-boxes as nibble-table affine maps (vpshufb) around 256-bit vaesenclast/vaesdeclast. Uses no GFNI.
// See camellia_xts.h.
#include <immintrin.h>

#include "core/crypto/simd/camellia_consts.h"
#include "core/crypto/simd/camellia_kernel.h"

namespace warpvol::simd::camellia {

namespace {

struct V256 {
  __m256i v;
  static constexpr int kLanes = 2;
  template <class P>
  static CAMELLIA_INLINE V256 loadg(const P (&p)[2], int i) {
    return {_mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p[0] + 16 * i))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[1] + 16 * i)), 1)};
  }
  static CAMELLIA_INLINE void storeg(uint8_t* const (&p)[2], int i, V256 x) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[0] + 16 * i), _mm256_castsi256_si128(x.v));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[1] + 16 * i), _mm256_extracti128_si256(x.v, 1));
  }
  friend CAMELLIA_INLINE V256 operator^(V256 a, V256 b) { return {_mm256_xor_si256(a.v, b.v)}; }
  friend CAMELLIA_INLINE V256 operator&(V256 a, V256 b) { return {_mm256_and_si256(a.v, b.v)}; }
  friend CAMELLIA_INLINE V256 operator|(V256 a, V256 b) { return {_mm256_or_si256(a.v, b.v)}; }
  static CAMELLIA_INLINE V256 bcast(uint8_t b) { return {_mm256_set1_epi8(char(b))}; }
  static CAMELLIA_INLINE V256 shl1b(V256 a) { return {_mm256_add_epi8(a.v, a.v)}; }
  static CAMELLIA_INLINE V256 shr7b(V256 a) {
    return {_mm256_and_si256(_mm256_srli_epi16(a.v, 7), _mm256_set1_epi8(1))};
  }
  static CAMELLIA_INLINE V256 unpacklo8(V256 a, V256 b) { return {_mm256_unpacklo_epi8(a.v, b.v)}; }
  static CAMELLIA_INLINE V256 unpackhi8(V256 a, V256 b) { return {_mm256_unpackhi_epi8(a.v, b.v)}; }
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
  static CAMELLIA_INLINE V256 mul_x(V256 t) {  // t * x per lane (see serpent_xts_aesni.cpp, k = 1)
    const __m256i out = _mm256_shuffle_epi32(_mm256_srli_epi64(t.v, 63), 0x4E);
    const __m256i red = _mm256_xor_si256(_mm256_xor_si256(_mm256_slli_epi64(out, 1), _mm256_slli_epi64(out, 2)),
                                         _mm256_slli_epi64(out, 7));
    return {_mm256_xor_si256(_mm256_slli_epi64(t.v, 1),
                             _mm256_xor_si256(out, _mm256_and_si256(red, _mm256_set_epi64x(0, -1, 0, -1))))};
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
