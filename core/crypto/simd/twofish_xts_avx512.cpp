// Twofish-XTS, AVX-512: 16 blocks per register set word-sliced across the 32-bit lanes of 4 zmm, 2 sets (one whole
// data unit) per batch; each table lookup is one 16-lane vpgatherdd. See twofish_xts.h and twofish_impls.cpp.
// GCC 12 warns falsely inside its own AVX-512 headers (_mm512_undefined_epi32, GCC bug 105593, fixed in 12.3).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "core/crypto/simd/twofish_kernel.h"

namespace warpvol::simd::twofish {

namespace {

struct V512 {
  __m512i v;
  static constexpr int kBlocks = 4;
  static TWOFISH_INLINE V512 load(const uint8_t* p) { return {_mm512_loadu_si512(p)}; }
  static TWOFISH_INLINE void store(uint8_t* p, V512 x) { _mm512_storeu_si512(p, x.v); }
  static TWOFISH_INLINE V512 set1(uint32_t w) { return {_mm512_set1_epi32(int(w))}; }
  friend TWOFISH_INLINE V512 operator^(V512 a, V512 b) { return {_mm512_xor_si512(a.v, b.v)}; }
  friend TWOFISH_INLINE V512 operator+(V512 a, V512 b) { return {_mm512_add_epi32(a.v, b.v)}; }
  template <int n>
  static TWOFISH_INLINE V512 rotl(V512 a) { return {_mm512_rol_epi32(a.v, n)}; }
  template <int j>
  static TWOFISH_INLINE V512 byte(V512 a) {
    if constexpr (j == 0) return {_mm512_and_si512(a.v, _mm512_set1_epi32(0xff))};
    else if constexpr (j == 3) return {_mm512_srli_epi32(a.v, 24)};
    else {
      const __m512i sel = _mm512_set1_epi32(int(0x80808000u | j));  // byte j of each dword, zero-extended
      return {_mm512_shuffle_epi8(
          a.v, _mm512_add_epi32(sel, _mm512_set_epi32(60, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0)))};
    }
  }
  static TWOFISH_INLINE V512 gather(const uint32_t* table, V512 idx) {
    return {_mm512_i32gather_epi32(idx.v, reinterpret_cast<const int*>(table), 4)};
  }
  static TWOFISH_INLINE void transpose(V512& a, V512& b, V512& c, V512& d) {
    const __m512i t0 = _mm512_unpacklo_epi32(a.v, b.v), t1 = _mm512_unpackhi_epi32(a.v, b.v);
    const __m512i t2 = _mm512_unpacklo_epi32(c.v, d.v), t3 = _mm512_unpackhi_epi32(c.v, d.v);
    a.v = _mm512_unpacklo_epi64(t0, t2);
    b.v = _mm512_unpackhi_epi64(t0, t2);
    c.v = _mm512_unpacklo_epi64(t1, t3);
    d.v = _mm512_unpackhi_epi64(t1, t3);
  }
  template <int k>  // t * x^k per 128-bit lane (see serpent_xts_aesni.cpp)
  static TWOFISH_INLINE V512 mul_xk(V512 t) {
    const __m512i out = _mm512_shuffle_epi32(_mm512_srli_epi64(t.v, 64 - k), _MM_PERM_BADC);
    const __m512i red = _mm512_ternarylogic_epi64(_mm512_slli_epi64(out, 1), _mm512_slli_epi64(out, 2),
                                                  _mm512_slli_epi64(out, 7), 0x96);
    const __m512i r = _mm512_mask_xor_epi64(out, 0x55, out, red);
    return {_mm512_xor_si512(_mm512_slli_epi64(t.v, k), r)};
  }
};

using X = Xts<V512, 2>;

}  // namespace

void xts_encrypt_avx512(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k, unit0, data, nunits);
}
void xts_decrypt_avx512(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k, unit0, data, nunits);
}

}  // namespace warpvol::simd::twofish
