// Serpent-XTS, AVX-512: 16 blocks per register set (four blocks per zmm in memory layout), 2 sets = one whole
// 512-byte data unit per batch. S-boxes as vpternlogd circuits (8-9 per S-box, serpent_sboxes.h), rotates as
// vprold, the LT's three-way XORs as one vpternlogd each. See serpent_xts.h.
// GCC 12 warns falsely inside its own AVX-512 headers (_mm512_undefined_epi32, GCC bug 105593, fixed in 12.3).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "core/crypto/simd/serpent_kernel.h"
#include "core/crypto/simd/serpent_xts.h"

namespace warpvol::simd::serpent {

namespace {

struct V512 {
  __m512i v;
  static constexpr int kBlocks = 4;
  static constexpr bool kTernlog = true;
  static SERPENT_INLINE V512 load(const uint8_t* p) { return {_mm512_loadu_si512(p)}; }
  static SERPENT_INLINE void store(uint8_t* p, V512 x) { _mm512_storeu_si512(p, x.v); }
  static SERPENT_INLINE V512 set1(uint32_t w) { return {_mm512_set1_epi32(int(w))}; }
  friend SERPENT_INLINE V512 operator^(V512 a, V512 b) { return {_mm512_xor_si512(a.v, b.v)}; }
  friend SERPENT_INLINE V512 operator&(V512 a, V512 b) { return {_mm512_and_si512(a.v, b.v)}; }
  friend SERPENT_INLINE V512 operator|(V512 a, V512 b) { return {_mm512_or_si512(a.v, b.v)}; }
  friend SERPENT_INLINE V512 operator~(V512 a) { return {_mm512_ternarylogic_epi32(a.v, a.v, a.v, 0x55)}; }
  SERPENT_INLINE V512& operator^=(V512 b) { v = _mm512_xor_si512(v, b.v); return *this; }
  SERPENT_INLINE V512& operator&=(V512 b) { v = _mm512_and_si512(v, b.v); return *this; }
  SERPENT_INLINE V512& operator|=(V512 b) { v = _mm512_or_si512(v, b.v); return *this; }
  template <int n>
  static SERPENT_INLINE V512 rotl(V512 a) { return {_mm512_rol_epi32(a.v, n)}; }
  template <int n>
  static SERPENT_INLINE V512 shl(V512 a) { return {_mm512_slli_epi32(a.v, n)}; }
  static SERPENT_INLINE V512 xor3(V512 a, V512 b, V512 c) { return {_mm512_ternarylogic_epi32(a.v, b.v, c.v, 0x96)}; }
  template <int imm>
  static SERPENT_INLINE V512 tern(V512 a, V512 b, V512 c) { return {_mm512_ternarylogic_epi32(a.v, b.v, c.v, imm)}; }
  static SERPENT_INLINE void transpose(V512& a, V512& b, V512& c, V512& d) {
    const __m512i t0 = _mm512_unpacklo_epi32(a.v, b.v), t1 = _mm512_unpackhi_epi32(a.v, b.v);
    const __m512i t2 = _mm512_unpacklo_epi32(c.v, d.v), t3 = _mm512_unpackhi_epi32(c.v, d.v);
    a.v = _mm512_unpacklo_epi64(t0, t2);
    b.v = _mm512_unpackhi_epi64(t0, t2);
    c.v = _mm512_unpacklo_epi64(t1, t3);
    d.v = _mm512_unpackhi_epi64(t1, t3);
  }
  template <int k>  // see serpent_xts_aesni.cpp
  static SERPENT_INLINE V512 mul_xk(V512 t) {
    const __m512i out = _mm512_shuffle_epi32(_mm512_srli_epi64(t.v, 64 - k), _MM_PERM_BADC);
    const __m512i red = _mm512_ternarylogic_epi64(_mm512_slli_epi64(out, 1), _mm512_slli_epi64(out, 2),
                                                  _mm512_slli_epi64(out, 7), 0x96);
    // lanes 0, 2, 4, 6 (low qwords) take out ^ red, the high qwords out alone
    const __m512i r = _mm512_mask_xor_epi64(out, 0x55, out, red);
    return {_mm512_xor_si512(_mm512_slli_epi64(t.v, k), r)};
  }
};

using X = Xts<V512, 2>;

}  // namespace

void xts_encrypt_avx512(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k->k1, k->k2, unit0, data, nunits);
}
void xts_decrypt_avx512(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k->k1, k->k2, unit0, data, nunits);
}

}  // namespace warpvol::simd::serpent
