// Kuznyechik-XTS on the lookup tables of crypto/kuznyechik.h, with the tweak arithmetic fused in: 4 blocks in
// flight (their table loads overlap), tweaks kept in registers (4 independent chains advanced by x^4 with SSE2
// shifts), the first tweaks of 4 units encrypted together. Needs only SSE2 (and is compiled that way on purpose: with SSE4.1 the
// compiler turns the 64-bit lane moves of the table rounds into PEXTRQ/PINSRQ, 2 uops each on Intel). Registered at
// the AesNi level like the other ciphers' SSE paths, so it serves every CPU without the AVX-512 + GFNI + VBMI kernel
// (kuznyechik_avx512.cpp), e.g. Zen 3.
#include <emmintrin.h>

#include <memory>

#include "core/crypto/kuznyechik.h"
#include "core/crypto/simd/simd_xts.h"
#include "core/util/secure.h"

namespace warpvol::simd {

namespace {

// t * x in GF(2^128), XTS little-endian convention (see xts_mul_alpha).
inline __m128i mul_alpha(__m128i t) {
  const __m128i top = _mm_srli_epi64(t, 63);                              // lane0: bit 63, lane1: bit 127
  const __m128i swapped = _mm_shuffle_epi32(top, _MM_SHUFFLE(1, 0, 3, 2));  // lane0: bit 127, lane1: bit 63
  const __m128i carry = _mm_and_si128(_mm_sub_epi64(_mm_setzero_si128(), swapped), _mm_set_epi64x(1, 0x87));
  return _mm_xor_si128(_mm_slli_epi64(t, 1), carry);
}

// t * x^4: the four tweak registers advance independently (no serial chain through all 32 tweaks of a unit).
inline __m128i mul_x4(__m128i t) {
  const __m128i top = _mm_srli_epi64(t, 60);                              // lane0: bits 60..63, lane1: 124..127
  const __m128i swapped = _mm_shuffle_epi32(top, _MM_SHUFFLE(1, 0, 3, 2));  // lane0: bits 124..127, lane1: 60..63
  // lane0 gets (bits 124..127) * 0x87 = c ^ c<<1 ^ c<<2 ^ c<<7, lane1 gets bits 60..63 shifted in unchanged.
  const __m128i c = _mm_and_si128(swapped, _mm_set_epi64x(0, -1));
  const __m128i red = _mm_xor_si128(_mm_xor_si128(c, _mm_slli_epi64(c, 1)), _mm_xor_si128(_mm_slli_epi64(c, 2), _mm_slli_epi64(c, 7)));
  const __m128i carry = _mm_xor_si128(red, _mm_and_si128(swapped, _mm_set_epi64x(-1, 0)));
  return _mm_xor_si128(_mm_slli_epi64(t, 4), carry);
}

class KuznyechikXtsTables final : public XtsCipher {
 public:
  KuznyechikXtsTables(const uint8_t* key1, const uint8_t* key2) : t_(kuznyechik::tables()) {
    kuznyechik::expand_key(key1, k1_);
    kuznyechik::expand_key(key2, k2_);
  }
  ~KuznyechikXtsTables() override {
    secure_wipe(&k1_, sizeof k1_);
    secure_wipe(&k2_, sizeof k2_);
  }
  CipherId cipher() const override { return CipherId::Kuznyechik; }
  std::string_view impl_name() const override { return "tables-sse2"; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { run<true>(unit0, data, nunits); }
  void decrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { run<false>(unit0, data, nunits); }

 private:
  template <bool Enc>
  void run(uint64_t unit0, uint8_t* data, size_t nunits) const {
    while (nunits) {
      const size_t m = nunits < 4 ? nunits : 4;
      __m128i first[4];
      for (int u = 0; u < 4; ++u) first[u] = _mm_set_epi64x(0, static_cast<long long>(unit0 + u));
      if (m == 4)
        kuznyechik::detail::encrypt_regs<4>(t_, k2_, first);
      else
        for (size_t u = 0; u < m; ++u) kuznyechik::detail::encrypt_regs<1>(t_, k2_, first + u);
      for (size_t u = 0; u < m; ++u) {
        __m128i tw[4];
        tw[0] = first[u];
        tw[1] = mul_alpha(tw[0]);
        tw[2] = mul_alpha(tw[1]);
        tw[3] = mul_alpha(tw[2]);
        uint8_t* d = data + u * kDataUnitSize;
        for (size_t j = 0; j < kBlocksPerUnit; j += 4, d += 64) {
          __m128i x[4];
          for (int i = 0; i < 4; ++i)
            x[i] = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d + 16 * i)), tw[i]);
          if (Enc)
            kuznyechik::detail::encrypt_regs<4>(t_, k1_, x);
          else
            kuznyechik::detail::decrypt_regs<4>(t_, k1_, x);
          for (int i = 0; i < 4; ++i) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 16 * i), _mm_xor_si128(x[i], tw[i]));
            tw[i] = mul_x4(tw[i]);
          }
        }
      }
      data += m * kDataUnitSize;
      unit0 += m;
      nunits -= m;
    }
  }

  const kuznyechik::Tables& t_;
  kuznyechik::RoundKeys k1_, k2_;
};

}  // namespace

std::unique_ptr<XtsCipher> make_kuznyechik_xts_tables(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<KuznyechikXtsTables>(key1, key2);
}

}  // namespace warpvol::simd
