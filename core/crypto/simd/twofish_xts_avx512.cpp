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
#include "core/crypto/simd/vec_avx512.h"

namespace warpvol::simd::twofish {

namespace {

struct V512 : VecAvx512<V512> {};

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
