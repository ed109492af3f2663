// V128: the vector wrapper that the Serpent, Twofish and Camellia XTS kernels (serpent_kernel.h, twofish_kernel.h,
// camellia_kernel.h) are written against, for SSE (one 16-byte block per register). Include only from
// *_aesni.cpp files. A cipher's file derives its V from VecSse<V> and adds what only that cipher needs; D is the
// derived type, so every operation returns it.
#pragma once
#include <emmintrin.h>

#include <cstdint>

#ifndef WARPVOL_SIMD_INLINE
#define WARPVOL_SIMD_INLINE inline __attribute__((always_inline))
#endif

namespace warpvol::simd {

template <class D>
struct VecSse {
  __m128i v;
  static constexpr int kBlocks = 1;  // 16-byte blocks (128-bit lanes) per register
  static constexpr int kLanes = 1;
  static constexpr bool kTernlog = false;  // no three-input logic instruction

  static WARPVOL_SIMD_INLINE D make(__m128i x) { return D{x}; }
  static WARPVOL_SIMD_INLINE D load(const uint8_t* p) {
    return make(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static WARPVOL_SIMD_INLINE void store(uint8_t* p, D x) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), x.v); }
  // Block i of each lane's buffer (lane l: p[l] + 16 * i).
  template <class P>
  static WARPVOL_SIMD_INLINE D loadg(const P (&p)[1], int i) {
    return make(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p[0] + 16 * i)));
  }
  static WARPVOL_SIMD_INLINE void storeg(uint8_t* const (&p)[1], int i, D x) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[0] + 16 * i), x.v);
  }
  static WARPVOL_SIMD_INLINE D set1(uint32_t w) { return make(_mm_set1_epi32(int(w))); }
  static WARPVOL_SIMD_INLINE D bcast(uint8_t b) { return make(_mm_set1_epi8(char(b))); }

  friend WARPVOL_SIMD_INLINE D operator^(D a, D b) { return make(_mm_xor_si128(a.v, b.v)); }
  friend WARPVOL_SIMD_INLINE D operator&(D a, D b) { return make(_mm_and_si128(a.v, b.v)); }
  friend WARPVOL_SIMD_INLINE D operator|(D a, D b) { return make(_mm_or_si128(a.v, b.v)); }
  friend WARPVOL_SIMD_INLINE D operator~(D a) { return make(_mm_xor_si128(a.v, _mm_set1_epi32(-1))); }
  friend WARPVOL_SIMD_INLINE D operator+(D a, D b) { return make(_mm_add_epi32(a.v, b.v)); }  // 32-bit lanes
  WARPVOL_SIMD_INLINE D& operator^=(D b) { v = _mm_xor_si128(v, b.v); return static_cast<D&>(*this); }
  WARPVOL_SIMD_INLINE D& operator&=(D b) { v = _mm_and_si128(v, b.v); return static_cast<D&>(*this); }
  WARPVOL_SIMD_INLINE D& operator|=(D b) { v = _mm_or_si128(v, b.v); return static_cast<D&>(*this); }
  static WARPVOL_SIMD_INLINE D xor3(D a, D b, D c) { return make(_mm_xor_si128(a.v, _mm_xor_si128(b.v, c.v))); }

  // 32-bit lanes
  template <int n>
  static WARPVOL_SIMD_INLINE D rotl(D a) {
    return make(_mm_or_si128(_mm_slli_epi32(a.v, n), _mm_srli_epi32(a.v, 32 - n)));
  }
  template <int n>
  static WARPVOL_SIMD_INLINE D shl(D a) { return make(_mm_slli_epi32(a.v, n)); }
  // 4 x 4 transpose of 32-bit words: four blocks become four word planes.
  static WARPVOL_SIMD_INLINE void transpose(D& a, D& b, D& c, D& d) {
    const __m128i t0 = _mm_unpacklo_epi32(a.v, b.v), t1 = _mm_unpackhi_epi32(a.v, b.v);
    const __m128i t2 = _mm_unpacklo_epi32(c.v, d.v), t3 = _mm_unpackhi_epi32(c.v, d.v);
    a.v = _mm_unpacklo_epi64(t0, t2);
    b.v = _mm_unpackhi_epi64(t0, t2);
    c.v = _mm_unpacklo_epi64(t1, t3);
    d.v = _mm_unpackhi_epi64(t1, t3);
  }

  // 8-bit lanes
  static WARPVOL_SIMD_INLINE D shl1b(D a) { return make(_mm_add_epi8(a.v, a.v)); }
  static WARPVOL_SIMD_INLINE D shr7b(D a) { return make(_mm_and_si128(_mm_srli_epi16(a.v, 7), _mm_set1_epi8(1))); }
  static WARPVOL_SIMD_INLINE D unpacklo8(D a, D b) { return make(_mm_unpacklo_epi8(a.v, b.v)); }
  static WARPVOL_SIMD_INLINE D unpackhi8(D a, D b) { return make(_mm_unpackhi_epi8(a.v, b.v)); }

  // XTS tweak t * x^k per 128-bit lane: shift left by k; the k bits leaving the top are reduced by 0x87 (carry-less
  // c*0x87 = c ^ c<<1 ^ c<<2 ^ c<<7, exact for k <= 56) into the low qword, the bits leaving the low qword enter
  // the high one.
  template <int k>
  static WARPVOL_SIMD_INLINE D mul_xk(D t) {
    const __m128i out = _mm_shuffle_epi32(_mm_srli_epi64(t.v, 64 - k), 0x4E);  // [hi>>(64-k), lo>>(64-k)]
    const __m128i red = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi64(out, 1), _mm_slli_epi64(out, 2)),
                                      _mm_slli_epi64(out, 7));
    const __m128i lomask = _mm_set_epi64x(0, -1);
    return make(_mm_xor_si128(_mm_slli_epi64(t.v, k), _mm_xor_si128(out, _mm_and_si128(red, lomask))));
  }
  static WARPVOL_SIMD_INLINE D mul_x(D t) { return mul_xk<1>(t); }
};

}  // namespace warpvol::simd
