// Twofish-XTS, AVX-512: 16 blocks per register set word-sliced across the 32-bit lanes of 4 zmm, 2 sets (one whole
// data unit) per batch, with two ways to compute g() (see twofish_xts.h and twofish_impls.cpp):
//   GatherG (twofish_kernel.h): each table lookup one 16-lane vpgatherdd from the 4 KiB MDS-folded tables;
//   PermuteG (below, AVX-512 VBMI + GFNI): vpermi2b looks up the keyed S-box bytes of all 64 bytes of a vector at
//   once, and the MDS multiply is two GF(2^8) affine products, byte blends and rotations. Eight vpermi2b per 16
//   words replace sixteen 16-lane gathers, whose speed varied most between machines (gpu/NOTES.md).
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

struct PermuteG {
  // Byte position p of each 32-bit lane (little-endian: p = 0 is the low byte).
  static constexpr __mmask64 kPos0 = 0x1111111111111111ull;

  // y: byte p of each lane replaced by sbox[p][that byte]. vpermi2b indexes 128 bytes (two tables) with bits 0-6;
  // with a write mask it leaves the other bytes as they were, so the four position-masked lookups chain through
  // one register: a byte is looked up exactly once, while it still holds its index. One chain per half of the
  // 256-entry tables, then bit 7 of the index picks the half.
  static TWOFISH_INLINE __m512i sbox_bytes(const TwofishKey* k, __m512i x) {
    __m512i lo = x, hi = x;
    for (int p = 0; p < 4; ++p) {
      const uint8_t* t = k->sbox[p];
      const __mmask64 m = kPos0 << p;
      lo = _mm512_mask2_permutex2var_epi8(_mm512_load_si512(t), lo, m, _mm512_load_si512(t + 64));
      hi = _mm512_mask2_permutex2var_epi8(_mm512_load_si512(t + 128), hi, m, _mm512_load_si512(t + 192));
    }
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
  }

  // The MDS product of each lane's bytes, by rotations (kMdsByRotation in twofish_xts.h): byte p of c_r * y is
  // picked by blends from y, 0xEF * y and 0x5B * y (two GF(2^8) affine products), then rotated by 8r.
  static constexpr __mmask64 positions_of(int r, uint8_t c) {
    __mmask64 m = 0;
    for (int p = 0; p < 4; ++p)
      if (kMdsByRotation[r][p] == c) m |= kPos0 << p;
    return m;
  }
  template <int r>
  static TWOFISH_INLINE __m512i times_c(__m512i y, __m512i ef, __m512i fb) {
    constexpr __mmask64 m1 = positions_of(r, 0x01), mef = positions_of(r, 0xEF), mfb = positions_of(r, 0x5B);
    static_assert((m1 | mef | mfb) == ~__mmask64(0), "MDS constants are 01, EF and 5B");
    if constexpr (mef == ~__mmask64(0)) return ef;
    else if constexpr (m1 == 0) return _mm512_mask_blend_epi8(mef, fb, ef);
    else return _mm512_mask_blend_epi8(mfb, _mm512_mask_blend_epi8(mef, y, ef), fb);
  }
  static TWOFISH_INLINE __m512i mds(__m512i y) {
    const __m512i ef = _mm512_gf2p8affine_epi64_epi8(y, _mm512_set1_epi64(int64_t(mds_mul_matrix(0xEF))), 0);
    const __m512i fb = _mm512_gf2p8affine_epi64_epi8(y, _mm512_set1_epi64(int64_t(mds_mul_matrix(0x5B))), 0);
    const __m512i z012 = _mm512_ternarylogic_epi32(times_c<0>(y, ef, fb), _mm512_rol_epi32(times_c<1>(y, ef, fb), 8),
                                                   _mm512_rol_epi32(times_c<2>(y, ef, fb), 16), 0x96);
    return _mm512_xor_si512(z012, _mm512_rol_epi32(times_c<3>(y, ef, fb), 24));
  }

  static TWOFISH_INLINE V512 g0(const TwofishKey* k, V512 x) { return {mds(sbox_bytes(k, x.v))}; }
  static TWOFISH_INLINE V512 g1(const TwofishKey* k, V512 x) {
    return {mds(sbox_bytes(k, _mm512_rol_epi32(x.v, 8)))};
  }
};

using X = Xts<V512, 2>;
using XPermute = Xts<V512, 2, PermuteG>;

}  // namespace

void xts_encrypt_avx512(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k, unit0, data, nunits);
}
void xts_decrypt_avx512(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k, unit0, data, nunits);
}

void xts_encrypt_avx512_vbmi(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  XPermute::run<true>(k, unit0, data, nunits);
}
void xts_decrypt_avx512_vbmi(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  XPermute::run<false>(k, unit0, data, nunits);
}

}  // namespace warpvol::simd::twofish
