// Camellia-XTS with AVX-512 + GFNI: 64 blocks (two data units, 4 lanes of 16 blocks) per batch, each S-box one
// vgf2p8affineqb and one vgf2p8affineinvqb per plane of 64 bytes. See camellia_xts.h.
// GCC 12 warns falsely inside its own AVX-512 headers (_mm512_undefined_epi32, GCC bug 105593, fixed in 12.3).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "core/crypto/simd/camellia_consts.h"
#include "core/crypto/simd/camellia_kernel.h"

namespace warpvol::simd::camellia {

namespace {

struct V512 {
  __m512i v;
  static constexpr int kLanes = 4;
  template <class P>
  static CAMELLIA_INLINE V512 loadg(const P (&p)[4], int i) {
    __m512i r = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p[0] + 16 * i)));
    r = _mm512_inserti32x4(r, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[1] + 16 * i)), 1);
    r = _mm512_inserti32x4(r, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[2] + 16 * i)), 2);
    r = _mm512_inserti32x4(r, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[3] + 16 * i)), 3);
    return {r};
  }
  static CAMELLIA_INLINE void storeg(uint8_t* const (&p)[4], int i, V512 x) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[0] + 16 * i), _mm512_castsi512_si128(x.v));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[1] + 16 * i), _mm512_extracti32x4_epi32(x.v, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[2] + 16 * i), _mm512_extracti32x4_epi32(x.v, 2));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[3] + 16 * i), _mm512_extracti32x4_epi32(x.v, 3));
  }
  friend CAMELLIA_INLINE V512 operator^(V512 a, V512 b) { return {_mm512_xor_si512(a.v, b.v)}; }
  friend CAMELLIA_INLINE V512 operator&(V512 a, V512 b) { return {_mm512_and_si512(a.v, b.v)}; }
  friend CAMELLIA_INLINE V512 operator|(V512 a, V512 b) { return {_mm512_or_si512(a.v, b.v)}; }
  static CAMELLIA_INLINE V512 bcast(uint8_t b) { return {_mm512_set1_epi8(char(b))}; }
  static CAMELLIA_INLINE V512 shl1b(V512 a) { return {_mm512_add_epi8(a.v, a.v)}; }
  static CAMELLIA_INLINE V512 shr7b(V512 a) {
    return {_mm512_and_si512(_mm512_srli_epi16(a.v, 7), _mm512_set1_epi8(1))};
  }
  static CAMELLIA_INLINE V512 unpacklo8(V512 a, V512 b) { return {_mm512_unpacklo_epi8(a.v, b.v)}; }
  static CAMELLIA_INLINE V512 unpackhi8(V512 a, V512 b) { return {_mm512_unpackhi_epi8(a.v, b.v)}; }
  template <int s, bool kD2>  // GFNI permutes nothing: one form for both halves
  static CAMELLIA_INLINE V512 sbox(V512 x) {
    const __m512i z = _mm512_gf2p8affine_epi64_epi8(x.v, _mm512_set1_epi64(int64_t(kGfniPre[s - 1])), kGfniPreC[s - 1]);
    return {_mm512_gf2p8affineinv_epi64_epi8(z, _mm512_set1_epi64(int64_t(kGfniPost[s - 1])), kGfniPostC[s - 1])};
  }
  static CAMELLIA_INLINE V512 to_d2_order(V512 x) { return x; }
  static CAMELLIA_INLINE V512 from_d2_order(V512 x) { return x; }
  static CAMELLIA_INLINE V512 mul_x(V512 t) {  // t * x per lane (see serpent_xts_aesni.cpp, k = 1)
    const __m512i out = _mm512_shuffle_epi32(_mm512_srli_epi64(t.v, 63), _MM_PERM_BADC);
    const __m512i red = _mm512_ternarylogic_epi64(_mm512_slli_epi64(out, 1), _mm512_slli_epi64(out, 2),
                                                  _mm512_slli_epi64(out, 7), 0x96);
    return {_mm512_xor_si512(_mm512_slli_epi64(t.v, 1), _mm512_mask_xor_epi64(out, 0x55, out, red))};
  }
};

using X = Xts<V512>;

}  // namespace

void xts_encrypt_avx512(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k, unit0, data, nunits);
}
void xts_decrypt_avx512(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k, unit0, data, nunits);
}

}  // namespace warpvol::simd::camellia
