// V256: the vector wrapper that the Serpent, Twofish and Camellia XTS kernels (serpent_kernel.h, twofish_kernel.h,
// camellia_kernel.h) are written against, for AVX2 (two 16-byte blocks per register, one per 128-bit lane).
// Include only from *_avx2.cpp files. A cipher's file derives its V from VecAvx2<V> and adds what only that cipher
// needs; D is the derived type, so every operation returns it.
#pragma once
#include <immintrin.h>

#include <cstdint>

#ifndef WARPVOL_SIMD_INLINE
#define WARPVOL_SIMD_INLINE inline __attribute__((always_inline))
#endif

namespace warpvol::simd {

template <class D>
struct VecAvx2 {
  __m256i v;
  static constexpr int kBlocks = 2;  // 16-byte blocks (128-bit lanes) per register
  static constexpr int kLanes = 2;
  static constexpr bool kTernlog = false;  // no three-input logic instruction

  static WARPVOL_SIMD_INLINE D make(__m256i x) { return D{x}; }
  static WARPVOL_SIMD_INLINE D load(const uint8_t* p) {
    return make(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static WARPVOL_SIMD_INLINE void store(uint8_t* p, D x) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x.v); }
  // Block i of each lane's buffer (lane l: p[l] + 16 * i).
  template <class P>
  static WARPVOL_SIMD_INLINE D loadg(const P (&p)[2], int i) {
    return make(_mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p[0] + 16 * i))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[1] + 16 * i)), 1));
  }
  static WARPVOL_SIMD_INLINE void storeg(uint8_t* const (&p)[2], int i, D x) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[0] + 16 * i), _mm256_castsi256_si128(x.v));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[1] + 16 * i), _mm256_extracti128_si256(x.v, 1));
  }
  static WARPVOL_SIMD_INLINE D set1(uint32_t w) { return make(_mm256_set1_epi32(int(w))); }
  static WARPVOL_SIMD_INLINE D bcast(uint8_t b) { return make(_mm256_set1_epi8(char(b))); }

  friend WARPVOL_SIMD_INLINE D operator^(D a, D b) { return make(_mm256_xor_si256(a.v, b.v)); }
  friend WARPVOL_SIMD_INLINE D operator&(D a, D b) { return make(_mm256_and_si256(a.v, b.v)); }
  friend WARPVOL_SIMD_INLINE D operator|(D a, D b) { return make(_mm256_or_si256(a.v, b.v)); }
  friend WARPVOL_SIMD_INLINE D operator~(D a) { return make(_mm256_xor_si256(a.v, _mm256_set1_epi32(-1))); }
  friend WARPVOL_SIMD_INLINE D operator+(D a, D b) { return make(_mm256_add_epi32(a.v, b.v)); }  // 32-bit lanes
  WARPVOL_SIMD_INLINE D& operator^=(D b) { v = _mm256_xor_si256(v, b.v); return static_cast<D&>(*this); }
  WARPVOL_SIMD_INLINE D& operator&=(D b) { v = _mm256_and_si256(v, b.v); return static_cast<D&>(*this); }
  WARPVOL_SIMD_INLINE D& operator|=(D b) { v = _mm256_or_si256(v, b.v); return static_cast<D&>(*this); }
  static WARPVOL_SIMD_INLINE D xor3(D a, D b, D c) { return make(_mm256_xor_si256(a.v, _mm256_xor_si256(b.v, c.v))); }

  // 32-bit lanes
  template <int n>
  static WARPVOL_SIMD_INLINE D rotl(D a) {
    return make(_mm256_or_si256(_mm256_slli_epi32(a.v, n), _mm256_srli_epi32(a.v, 32 - n)));
  }
  template <int n>
  static WARPVOL_SIMD_INLINE D shl(D a) { return make(_mm256_slli_epi32(a.v, n)); }
  // Byte j of each 32-bit lane, zero-extended.
  template <int j>
  static WARPVOL_SIMD_INLINE D byte(D a) {
    if constexpr (j == 0) return make(_mm256_and_si256(a.v, _mm256_set1_epi32(0xff)));
    else if constexpr (j == 3) return make(_mm256_srli_epi32(a.v, 24));
    else {
      const __m256i sel = _mm256_set1_epi32(int(0x80808000u | j));
      return make(_mm256_shuffle_epi8(a.v, _mm256_add_epi32(sel, _mm256_set_epi32(28, 24, 20, 16, 12, 8, 4, 0))));
    }
  }
  // table[idx] per 32-bit lane.
  static WARPVOL_SIMD_INLINE D gather(const uint32_t* table, D idx) {
    return make(_mm256_i32gather_epi32(reinterpret_cast<const int*>(table), idx.v, 4));
  }
  // 4 x 4 transpose of 32-bit words within each 128-bit lane: four blocks become four word planes.
  static WARPVOL_SIMD_INLINE void transpose(D& a, D& b, D& c, D& d) {
    const __m256i t0 = _mm256_unpacklo_epi32(a.v, b.v), t1 = _mm256_unpackhi_epi32(a.v, b.v);
    const __m256i t2 = _mm256_unpacklo_epi32(c.v, d.v), t3 = _mm256_unpackhi_epi32(c.v, d.v);
    a.v = _mm256_unpacklo_epi64(t0, t2);
    b.v = _mm256_unpackhi_epi64(t0, t2);
    c.v = _mm256_unpacklo_epi64(t1, t3);
    d.v = _mm256_unpackhi_epi64(t1, t3);
  }

  // 8-bit lanes
  static WARPVOL_SIMD_INLINE D shl1b(D a) { return make(_mm256_add_epi8(a.v, a.v)); }
  static WARPVOL_SIMD_INLINE D shr7b(D a) {
    return make(_mm256_and_si256(_mm256_srli_epi16(a.v, 7), _mm256_set1_epi8(1)));
  }
  static WARPVOL_SIMD_INLINE D unpacklo8(D a, D b) { return make(_mm256_unpacklo_epi8(a.v, b.v)); }
  static WARPVOL_SIMD_INLINE D unpackhi8(D a, D b) { return make(_mm256_unpackhi_epi8(a.v, b.v)); }

  // XTS tweak t * x^k per 128-bit lane (see vec_sse.h).
  template <int k>
  static WARPVOL_SIMD_INLINE D mul_xk(D t) {
    const __m256i out = _mm256_shuffle_epi32(_mm256_srli_epi64(t.v, 64 - k), 0x4E);
    const __m256i red = _mm256_xor_si256(_mm256_xor_si256(_mm256_slli_epi64(out, 1), _mm256_slli_epi64(out, 2)),
                                         _mm256_slli_epi64(out, 7));
    const __m256i lomask = _mm256_set_epi64x(0, -1, 0, -1);
    return make(_mm256_xor_si256(_mm256_slli_epi64(t.v, k), _mm256_xor_si256(out, _mm256_and_si256(red, lomask))));
  }
  static WARPVOL_SIMD_INLINE D mul_x(D t) { return mul_xk<1>(t); }
};

}  // namespace warpvol::simd
