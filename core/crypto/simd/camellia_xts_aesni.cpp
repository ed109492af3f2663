// Camellia-XTS with AES-NI on 128-bit vectors: 16 blocks per batch (half a data unit), S-boxes as nibble-table
// affine maps (pshufb) around aesenclast/aesdeclast. See camellia_xts.h.
#include <immintrin.h>

#include "core/crypto/simd/camellia_consts.h"
#include "core/crypto/simd/camellia_kernel.h"

namespace warpvol::simd::camellia {

namespace {

struct V128 {
  __m128i v;
  static constexpr int kLanes = 1;
  template <class P>
  static CAMELLIA_INLINE V128 loadg(const P (&p)[1], int i) {
    return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(p[0] + 16 * i))};
  }
  static CAMELLIA_INLINE void storeg(uint8_t* const (&p)[1], int i, V128 x) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[0] + 16 * i), x.v);
  }
  friend CAMELLIA_INLINE V128 operator^(V128 a, V128 b) { return {_mm_xor_si128(a.v, b.v)}; }
  friend CAMELLIA_INLINE V128 operator&(V128 a, V128 b) { return {_mm_and_si128(a.v, b.v)}; }
  friend CAMELLIA_INLINE V128 operator|(V128 a, V128 b) { return {_mm_or_si128(a.v, b.v)}; }
  static CAMELLIA_INLINE V128 bcast(uint8_t b) { return {_mm_set1_epi8(char(b))}; }
  static CAMELLIA_INLINE V128 shl1b(V128 a) { return {_mm_add_epi8(a.v, a.v)}; }
  static CAMELLIA_INLINE V128 shr7b(V128 a) { return {_mm_and_si128(_mm_srli_epi16(a.v, 7), _mm_set1_epi8(1))}; }
  static CAMELLIA_INLINE V128 unpacklo8(V128 a, V128 b) { return {_mm_unpacklo_epi8(a.v, b.v)}; }
  static CAMELLIA_INLINE V128 unpackhi8(V128 a, V128 b) { return {_mm_unpackhi_epi8(a.v, b.v)}; }
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
  static CAMELLIA_INLINE V128 mul_x(V128 t) {  // t * x (see serpent_xts_aesni.cpp, k = 1)
    const __m128i out = _mm_shuffle_epi32(_mm_srli_epi64(t.v, 63), 0x4E);
    const __m128i red = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi64(out, 1), _mm_slli_epi64(out, 2)),
                                      _mm_slli_epi64(out, 7));
    return {_mm_xor_si128(_mm_slli_epi64(t.v, 1),
                          _mm_xor_si128(out, _mm_and_si128(red, _mm_set_epi64x(0, -1))))};
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
