// Serpent-XTS, SSE2: 4 blocks per register set (one block per xmm in memory layout), 2 sets per batch. Registered
// at the AES-NI level (the lowest SIMD level of the dispatcher); it uses nothing beyond SSE2. See serpent_xts.h.
#include <emmintrin.h>

#include "core/crypto/simd/serpent_kernel.h"
#include "core/crypto/simd/serpent_xts.h"

namespace warpvol::simd::serpent {

namespace {

struct V128 {
  __m128i v;
  static constexpr int kBlocks = 1;
  static constexpr bool kTernlog = false;
  static SERPENT_INLINE V128 load(const uint8_t* p) { return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))}; }
  static SERPENT_INLINE void store(uint8_t* p, V128 x) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), x.v); }
  static SERPENT_INLINE V128 set1(uint32_t w) { return {_mm_set1_epi32(int(w))}; }
  friend SERPENT_INLINE V128 operator^(V128 a, V128 b) { return {_mm_xor_si128(a.v, b.v)}; }
  friend SERPENT_INLINE V128 operator&(V128 a, V128 b) { return {_mm_and_si128(a.v, b.v)}; }
  friend SERPENT_INLINE V128 operator|(V128 a, V128 b) { return {_mm_or_si128(a.v, b.v)}; }
  friend SERPENT_INLINE V128 operator~(V128 a) { return {_mm_xor_si128(a.v, _mm_set1_epi32(-1))}; }
  SERPENT_INLINE V128& operator^=(V128 b) { v = _mm_xor_si128(v, b.v); return *this; }
  SERPENT_INLINE V128& operator&=(V128 b) { v = _mm_and_si128(v, b.v); return *this; }
  SERPENT_INLINE V128& operator|=(V128 b) { v = _mm_or_si128(v, b.v); return *this; }
  template <int n>
  static SERPENT_INLINE V128 rotl(V128 a) { return {_mm_or_si128(_mm_slli_epi32(a.v, n), _mm_srli_epi32(a.v, 32 - n))}; }
  template <int n>
  static SERPENT_INLINE V128 shl(V128 a) { return {_mm_slli_epi32(a.v, n)}; }
  static SERPENT_INLINE V128 xor3(V128 a, V128 b, V128 c) { return {_mm_xor_si128(a.v, _mm_xor_si128(b.v, c.v))}; }
  static SERPENT_INLINE void transpose(V128& a, V128& b, V128& c, V128& d) {
    const __m128i t0 = _mm_unpacklo_epi32(a.v, b.v), t1 = _mm_unpackhi_epi32(a.v, b.v);
    const __m128i t2 = _mm_unpacklo_epi32(c.v, d.v), t3 = _mm_unpackhi_epi32(c.v, d.v);
    a.v = _mm_unpacklo_epi64(t0, t2);
    b.v = _mm_unpackhi_epi64(t0, t2);
    c.v = _mm_unpacklo_epi64(t1, t3);
    d.v = _mm_unpackhi_epi64(t1, t3);
  }
  // t * x^k per 128-bit lane: shift left by k; the k bits leaving the top are reduced by 0x87 (carry-less
  // c*0x87 = c ^ c<<1 ^ c<<2 ^ c<<7, exact for k <= 56) into the low qword, the bits leaving the low qword
  // enter the high one.
  template <int k>
  static SERPENT_INLINE V128 mul_xk(V128 t) {
    const __m128i out = _mm_shuffle_epi32(_mm_srli_epi64(t.v, 64 - k), 0x4E);  // [hi>>(64-k), lo>>(64-k)]
    const __m128i red = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi64(out, 1), _mm_slli_epi64(out, 2)),
                                      _mm_slli_epi64(out, 7));
    const __m128i lomask = _mm_set_epi64x(0, -1);
    return {_mm_xor_si128(_mm_slli_epi64(t.v, k), _mm_xor_si128(out, _mm_and_si128(red, lomask)))};
  }
};

using X = Xts<V128, 2>;

}  // namespace

void xts_encrypt_sse2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k->k1, k->k2, unit0, data, nunits);
}
void xts_decrypt_sse2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k->k1, k->k2, unit0, data, nunits);
}

}  // namespace warpvol::simd::serpent
