// Twofish-XTS, AVX2: 8 blocks per register set word-sliced across the 32-bit lanes of 4 ymm, 2 sets per batch; each
// of the 8 table lookups of a round is one vpgatherdd over the 4 KiB of MDS-combined S-box tables. See
// twofish_xts.h; which of this and the scalar kernel is registered is decided in twofish_impls.cpp.
#include <immintrin.h>

#include "core/crypto/simd/twofish_kernel.h"

namespace warpvol::simd::twofish {

namespace {

struct V256 {
  __m256i v;
  static constexpr int kBlocks = 2;
  static TWOFISH_INLINE V256 load(const uint8_t* p) { return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))}; }
  static TWOFISH_INLINE void store(uint8_t* p, V256 x) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x.v); }
  static TWOFISH_INLINE V256 set1(uint32_t w) { return {_mm256_set1_epi32(int(w))}; }
  friend TWOFISH_INLINE V256 operator^(V256 a, V256 b) { return {_mm256_xor_si256(a.v, b.v)}; }
  friend TWOFISH_INLINE V256 operator+(V256 a, V256 b) { return {_mm256_add_epi32(a.v, b.v)}; }
  template <int n>
  static TWOFISH_INLINE V256 rotl(V256 a) {
    return {_mm256_or_si256(_mm256_slli_epi32(a.v, n), _mm256_srli_epi32(a.v, 32 - n))};
  }
  template <int j>
  static TWOFISH_INLINE V256 byte(V256 a) {
    if constexpr (j == 0) return {_mm256_and_si256(a.v, _mm256_set1_epi32(0xff))};
    else if constexpr (j == 3) return {_mm256_srli_epi32(a.v, 24)};
    else {
      const __m256i sel = _mm256_set1_epi32(int(0x80808000u | j));  // byte j of each dword, zero-extended
      return {_mm256_shuffle_epi8(a.v, _mm256_add_epi32(sel, _mm256_set_epi32(28, 24, 20, 16, 12, 8, 4, 0)))};
    }
  }
  static TWOFISH_INLINE V256 gather(const uint32_t* table, V256 idx) {
    return {_mm256_i32gather_epi32(reinterpret_cast<const int*>(table), idx.v, 4)};
  }
  static TWOFISH_INLINE void transpose(V256& a, V256& b, V256& c, V256& d) {
    const __m256i t0 = _mm256_unpacklo_epi32(a.v, b.v), t1 = _mm256_unpackhi_epi32(a.v, b.v);
    const __m256i t2 = _mm256_unpacklo_epi32(c.v, d.v), t3 = _mm256_unpackhi_epi32(c.v, d.v);
    a.v = _mm256_unpacklo_epi64(t0, t2);
    b.v = _mm256_unpackhi_epi64(t0, t2);
    c.v = _mm256_unpacklo_epi64(t1, t3);
    d.v = _mm256_unpackhi_epi64(t1, t3);
  }
  // t * x^k per 128-bit lane (see serpent_xts_aesni.cpp)
  template <int k>
  static TWOFISH_INLINE V256 mul_xk(V256 t) {
    const __m256i out = _mm256_shuffle_epi32(_mm256_srli_epi64(t.v, 64 - k), 0x4E);
    const __m256i red = _mm256_xor_si256(_mm256_xor_si256(_mm256_slli_epi64(out, 1), _mm256_slli_epi64(out, 2)),
                                         _mm256_slli_epi64(out, 7));
    const __m256i lomask = _mm256_set_epi64x(0, -1, 0, -1);
    return {_mm256_xor_si256(_mm256_slli_epi64(t.v, k), _mm256_xor_si256(out, _mm256_and_si256(red, lomask)))};
  }
};

using X = Xts<V256, 2>;

}  // namespace

void xts_encrypt_avx2(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k, unit0, data, nunits);
}
void xts_decrypt_avx2(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k, unit0, data, nunits);
}

}  // namespace warpvol::simd::twofish
