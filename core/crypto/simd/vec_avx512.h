// V512: the vector wrapper that the Serpent, Twofish and Camellia XTS kernels (serpent_kernel.h, twofish_kernel.h,
// camellia_kernel.h) are written against, for AVX-512 (four 16-byte blocks per register, one per 128-bit lane).
// Include only from *_avx512.cpp files. A cipher's file derives its V from VecAvx512<V> and adds what only that
// cipher needs; D is the derived type, so every operation returns it.
#pragma once
#include <immintrin.h>

#include <cstdint>

#ifndef WARPVOL_SIMD_INLINE
#define WARPVOL_SIMD_INLINE inline __attribute__((always_inline))
#endif

namespace warpvol::simd {

template <class D>
struct VecAvx512 {
  __m512i v;
  static constexpr int kBlocks = 4;  // 16-byte blocks (128-bit lanes) per register
  static constexpr int kLanes = 4;
  static constexpr bool kTernlog = true;  // vpternlogd: any function of three inputs in one instruction

  static WARPVOL_SIMD_INLINE D make(__m512i x) { return D{x}; }
  static WARPVOL_SIMD_INLINE D load(const uint8_t* p) { return make(_mm512_loadu_si512(p)); }
  static WARPVOL_SIMD_INLINE void store(uint8_t* p, D x) { _mm512_storeu_si512(p, x.v); }
  // Block i of each lane's buffer (lane l: p[l] + 16 * i).
  template <class P>
  static WARPVOL_SIMD_INLINE D loadg(const P (&p)[4], int i) {
    __m512i r = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p[0] + 16 * i)));
    r = _mm512_inserti32x4(r, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[1] + 16 * i)), 1);
    r = _mm512_inserti32x4(r, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[2] + 16 * i)), 2);
    r = _mm512_inserti32x4(r, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[3] + 16 * i)), 3);
    return make(r);
  }
  static WARPVOL_SIMD_INLINE void storeg(uint8_t* const (&p)[4], int i, D x) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[0] + 16 * i), _mm512_castsi512_si128(x.v));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[1] + 16 * i), _mm512_extracti32x4_epi32(x.v, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[2] + 16 * i), _mm512_extracti32x4_epi32(x.v, 2));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[3] + 16 * i), _mm512_extracti32x4_epi32(x.v, 3));
  }
  static WARPVOL_SIMD_INLINE D set1(uint32_t w) { return make(_mm512_set1_epi32(int(w))); }
  static WARPVOL_SIMD_INLINE D bcast(uint8_t b) { return make(_mm512_set1_epi8(char(b))); }

  friend WARPVOL_SIMD_INLINE D operator^(D a, D b) { return make(_mm512_xor_si512(a.v, b.v)); }
  friend WARPVOL_SIMD_INLINE D operator&(D a, D b) { return make(_mm512_and_si512(a.v, b.v)); }
  friend WARPVOL_SIMD_INLINE D operator|(D a, D b) { return make(_mm512_or_si512(a.v, b.v)); }
  friend WARPVOL_SIMD_INLINE D operator~(D a) { return make(_mm512_ternarylogic_epi32(a.v, a.v, a.v, 0x55)); }
  friend WARPVOL_SIMD_INLINE D operator+(D a, D b) { return make(_mm512_add_epi32(a.v, b.v)); }  // 32-bit lanes
  WARPVOL_SIMD_INLINE D& operator^=(D b) { v = _mm512_xor_si512(v, b.v); return static_cast<D&>(*this); }
  WARPVOL_SIMD_INLINE D& operator&=(D b) { v = _mm512_and_si512(v, b.v); return static_cast<D&>(*this); }
  WARPVOL_SIMD_INLINE D& operator|=(D b) { v = _mm512_or_si512(v, b.v); return static_cast<D&>(*this); }
  static WARPVOL_SIMD_INLINE D xor3(D a, D b, D c) { return make(_mm512_ternarylogic_epi32(a.v, b.v, c.v, 0x96)); }
  template <int imm>
  static WARPVOL_SIMD_INLINE D tern(D a, D b, D c) { return make(_mm512_ternarylogic_epi32(a.v, b.v, c.v, imm)); }

  // 32-bit lanes
  template <int n>
  static WARPVOL_SIMD_INLINE D rotl(D a) { return make(_mm512_rol_epi32(a.v, n)); }
  template <int n>
  static WARPVOL_SIMD_INLINE D shl(D a) { return make(_mm512_slli_epi32(a.v, n)); }
  // Byte j of each 32-bit lane, zero-extended.
  template <int j>
  static WARPVOL_SIMD_INLINE D byte(D a) {
    if constexpr (j == 0) return make(_mm512_and_si512(a.v, _mm512_set1_epi32(0xff)));
    else if constexpr (j == 3) return make(_mm512_srli_epi32(a.v, 24));
    else {
      const __m512i sel = _mm512_set1_epi32(int(0x80808000u | j));
      return make(_mm512_shuffle_epi8(
          a.v, _mm512_add_epi32(sel, _mm512_set_epi32(60, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0))));
    }
  }
  // table[idx] per 32-bit lane.
  static WARPVOL_SIMD_INLINE D gather(const uint32_t* table, D idx) {
    return make(_mm512_i32gather_epi32(idx.v, reinterpret_cast<const int*>(table), 4));
  }
  // 4 x 4 transpose of 32-bit words within each 128-bit lane: four blocks become four word planes.
  static WARPVOL_SIMD_INLINE void transpose(D& a, D& b, D& c, D& d) {
    const __m512i t0 = _mm512_unpacklo_epi32(a.v, b.v), t1 = _mm512_unpackhi_epi32(a.v, b.v);
    const __m512i t2 = _mm512_unpacklo_epi32(c.v, d.v), t3 = _mm512_unpackhi_epi32(c.v, d.v);
    a.v = _mm512_unpacklo_epi64(t0, t2);
    b.v = _mm512_unpackhi_epi64(t0, t2);
    c.v = _mm512_unpacklo_epi64(t1, t3);
    d.v = _mm512_unpackhi_epi64(t1, t3);
  }

  // 8-bit lanes
  static WARPVOL_SIMD_INLINE D shl1b(D a) { return make(_mm512_add_epi8(a.v, a.v)); }
  static WARPVOL_SIMD_INLINE D shr7b(D a) {
    return make(_mm512_and_si512(_mm512_srli_epi16(a.v, 7), _mm512_set1_epi8(1)));
  }
  static WARPVOL_SIMD_INLINE D unpacklo8(D a, D b) { return make(_mm512_unpacklo_epi8(a.v, b.v)); }
  static WARPVOL_SIMD_INLINE D unpackhi8(D a, D b) { return make(_mm512_unpackhi_epi8(a.v, b.v)); }

  // XTS tweak t * x^k per 128-bit lane (see vec_sse.h); the reduction's three-way XOR is one vpternlogq and only
  // the low qwords (mask 0x55) take it.
  template <int k>
  static WARPVOL_SIMD_INLINE D mul_xk(D t) {
    const __m512i out = _mm512_shuffle_epi32(_mm512_srli_epi64(t.v, 64 - k), _MM_PERM_BADC);
    const __m512i red = _mm512_ternarylogic_epi64(_mm512_slli_epi64(out, 1), _mm512_slli_epi64(out, 2),
                                                  _mm512_slli_epi64(out, 7), 0x96);
    const __m512i r = _mm512_mask_xor_epi64(out, 0x55, out, red);
    return make(_mm512_xor_si512(_mm512_slli_epi64(t.v, k), r));
  }
  static WARPVOL_SIMD_INLINE D mul_x(D t) { return mul_xk<1>(t); }
};

}  // namespace warpvol::simd
