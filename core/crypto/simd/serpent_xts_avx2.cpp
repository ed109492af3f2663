// Serpent-XTS, AVX2: 8 blocks per register set (two blocks per ymm in memory layout), 2 sets per batch. Only AVX2
// instructions are used (no GFNI/VAES), although the dispatcher's AVX2 level also implies those. See serpent_xts.h.
#include <immintrin.h>

#include "core/crypto/simd/serpent_kernel.h"
#include "core/crypto/simd/serpent_xts.h"

namespace warpvol::simd::serpent {

namespace {

struct V256 {
  __m256i v;
  static constexpr int kBlocks = 2;
  static constexpr bool kTernlog = false;
  static SERPENT_INLINE V256 load(const uint8_t* p) { return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))}; }
  static SERPENT_INLINE void store(uint8_t* p, V256 x) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x.v); }
  static SERPENT_INLINE V256 set1(uint32_t w) { return {_mm256_set1_epi32(int(w))}; }
  friend SERPENT_INLINE V256 operator^(V256 a, V256 b) { return {_mm256_xor_si256(a.v, b.v)}; }
  friend SERPENT_INLINE V256 operator&(V256 a, V256 b) { return {_mm256_and_si256(a.v, b.v)}; }
  friend SERPENT_INLINE V256 operator|(V256 a, V256 b) { return {_mm256_or_si256(a.v, b.v)}; }
  friend SERPENT_INLINE V256 operator~(V256 a) { return {_mm256_xor_si256(a.v, _mm256_set1_epi32(-1))}; }
  SERPENT_INLINE V256& operator^=(V256 b) { v = _mm256_xor_si256(v, b.v); return *this; }
  SERPENT_INLINE V256& operator&=(V256 b) { v = _mm256_and_si256(v, b.v); return *this; }
  SERPENT_INLINE V256& operator|=(V256 b) { v = _mm256_or_si256(v, b.v); return *this; }
  template <int n>
  static SERPENT_INLINE V256 rotl(V256 a) {
    return {_mm256_or_si256(_mm256_slli_epi32(a.v, n), _mm256_srli_epi32(a.v, 32 - n))};
  }
  template <int n>
  static SERPENT_INLINE V256 shl(V256 a) { return {_mm256_slli_epi32(a.v, n)}; }
  static SERPENT_INLINE V256 xor3(V256 a, V256 b, V256 c) { return {_mm256_xor_si256(a.v, _mm256_xor_si256(b.v, c.v))}; }
  static SERPENT_INLINE void transpose(V256& a, V256& b, V256& c, V256& d) {
    const __m256i t0 = _mm256_unpacklo_epi32(a.v, b.v), t1 = _mm256_unpackhi_epi32(a.v, b.v);
    const __m256i t2 = _mm256_unpacklo_epi32(c.v, d.v), t3 = _mm256_unpackhi_epi32(c.v, d.v);
    a.v = _mm256_unpacklo_epi64(t0, t2);
    b.v = _mm256_unpackhi_epi64(t0, t2);
    c.v = _mm256_unpacklo_epi64(t1, t3);
    d.v = _mm256_unpackhi_epi64(t1, t3);
  }
  template <int k>  // see serpent_xts_aesni.cpp
  static SERPENT_INLINE V256 mul_xk(V256 t) {
    const __m256i out = _mm256_shuffle_epi32(_mm256_srli_epi64(t.v, 64 - k), 0x4E);
    const __m256i red = _mm256_xor_si256(_mm256_xor_si256(_mm256_slli_epi64(out, 1), _mm256_slli_epi64(out, 2)),
                                         _mm256_slli_epi64(out, 7));
    const __m256i lomask = _mm256_set_epi64x(0, -1, 0, -1);
    return {_mm256_xor_si256(_mm256_slli_epi64(t.v, k), _mm256_xor_si256(out, _mm256_and_si256(red, lomask)))};
  }
};

using X = Xts<V256, 2>;

}  // namespace

void xts_encrypt_avx2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k->k1, k->k2, unit0, data, nunits);
}
void xts_decrypt_avx2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k->k1, k->k2, unit0, data, nunits);
}

}  // namespace warpvol::simd::serpent
