// AES-256-XTS with AVX2 + VAES (256-bit) + VPCLMULQDQ: two blocks per ymm, half a data unit (8 ymm = 16 blocks)
// per round loop, four units' initial tweaks encrypted together. For CPUs with VAES but no AVX-512 (Zen 3, Intel
// client cores since Alder Lake) and as a forced level for comparisons. Why intrinsics of our own: see aes_xts.h.
//
// Tweaks: ymm i (0..15) lane k of a unit holds T0 * x^(2i+k). ymm 0..3 come straight from T0 (carry-less
// multiplies by x^s, s <= 7, as in aes_xts_avx512.cpp), ymm i >= 4 = ymm (i-4) * x^8 (byte shift + reduction).
//
// Tuning (on an Intel Xeon where ymm VAESENC issues 2/cycle on ports 0/1): every other vector op competes for the
// same three vector ports, so this path stays below the AES ceiling. Variants not kept, because they were equal or
// slower: 16 states in flight (with or without round keys as memory operands via inline asm), tweak^key
// precomputed into memory, tweaks by 64-bit variable shifts (docs/perf/design-figures.md, "AES-XTS").
#include <immintrin.h>

#include "core/crypto/simd/aes_xts.h"

namespace warpvol::simd::aes {

namespace {

// x^(2i+k) in the low qword of lane k, for ymm i = 0..3.
alignas(32) constexpr uint64_t kXPow[4][4] = {{1, 0, 2, 0}, {4, 0, 8, 0}, {16, 0, 32, 0}, {64, 0, 128, 0}};

inline __m256i tweak_vec(__m256i t, int i, __m256i poly) {
  const __m256i xs = _mm256_load_si256(reinterpret_cast<const __m256i*>(kXPow[i]));
  const __m256i a = _mm256_clmulepi64_epi128(t, xs, 0x00);    // T.lo * x^s
  const __m256i b = _mm256_clmulepi64_epi128(t, xs, 0x01);    // T.hi * x^s
  const __m256i r = _mm256_clmulepi64_epi128(b, poly, 0x01);  // what passes bit 127, reduced
  return _mm256_xor_si256(_mm256_xor_si256(a, _mm256_bslli_epi128(b, 8)), r);
}

inline __m256i mul_x8(__m256i v, __m256i poly) {
  const __m256i c = _mm256_bsrli_epi128(v, 15);
  return _mm256_xor_si256(_mm256_bslli_epi128(v, 1), _mm256_clmulepi64_epi128(c, poly, 0x00));
}

inline __m256i bcast_key(const uint8_t* k) {
  return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(k)));
}

template <bool kEnc>
inline __m256i round(__m256i x, __m256i k) {
  if constexpr (kEnc) return _mm256_aesenc_epi128(x, k);
  else return _mm256_aesdec_epi128(x, k);
}

template <bool kEnc>
inline __m256i last_round(__m256i x, __m256i k) {
  if constexpr (kEnc) return _mm256_aesenclast_epi128(x, k);
  else return _mm256_aesdeclast_epi128(x, k);
}

// E_K2 of units u..u+3 (mod 2^64) into out[0..4).
inline void initial_tweaks(const __m256i* tk, uint64_t u, __m128i* out) {
  __m256i a = _mm256_set_epi64x(0, static_cast<long long>(u + 1), 0, static_cast<long long>(u));
  __m256i b = _mm256_set_epi64x(0, static_cast<long long>(u + 3), 0, static_cast<long long>(u + 2));
  a = _mm256_xor_si256(a, tk[0]);
  b = _mm256_xor_si256(b, tk[0]);
#pragma GCC unroll 16
  for (int r = 1; r < 14; ++r) {
    a = _mm256_aesenc_epi128(a, tk[r]);
    b = _mm256_aesenc_epi128(b, tk[r]);
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(out), _mm256_aesenclast_epi128(a, tk[14]));
  _mm256_store_si256(reinterpret_cast<__m256i*>(out + 2), _mm256_aesenclast_epi128(b, tk[14]));
}

// Keeps the tweaks in memory: otherwise GCC holds them in registers and spills the AES states every round.
inline void compiler_memory_barrier() { __asm__ __volatile__("" : : : "memory"); }

// One unit at p with initial tweak *tw0; tw: scratch for its 16 tweak vectors.
template <bool kEnc>
inline void process_unit(const __m256i* rk, const __m128i* tw0, uint8_t* p, __m256i poly, __m256i* tw) {
  const __m256i t = _mm256_broadcastsi128_si256(_mm_load_si128(tw0));
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) tw[i] = tweak_vec(t, i, poly);
#pragma GCC unroll 16
  for (int i = 4; i < 16; ++i) tw[i] = mul_x8(tw[i - 4], poly);
  compiler_memory_barrier();
#pragma GCC unroll 1
  for (int h = 0; h < 16; h += 8) {
    __m256i x[8];
    const __m256i k0 = rk[0];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
      x[i] = _mm256_xor_si256(
          _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * (h + i))), tw[h + i]), k0);
#pragma GCC unroll 16
    for (int r = 1; r < 14; ++r) {
      const __m256i k = rk[r];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) x[i] = round<kEnc>(x[i], k);
    }
    const __m256i k14 = rk[14];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 32 * (h + i)),
                          last_round<kEnc>(x[i], _mm256_xor_si256(k14, tw[h + i])));
  }
}

template <bool kEnc>
inline void xts(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                size_t nunits) {
  if (nunits == 0) return;
  alignas(32) __m256i rk[15], tk[15];
  for (int r = 0; r < 15; ++r) {
    rk[r] = bcast_key(kEnc ? k1->enc[r] : k1->dec[r]);
    tk[r] = bcast_key(k2->enc[r]);
  }
  const __m256i poly = _mm256_set1_epi64x(0x87);
  alignas(32) __m128i tw0[4];
  alignas(32) __m256i tw[16];
  for (size_t u = 0; u < nunits; u += 4) {
    initial_tweaks(tk, unit0 + u, tw0);
    const size_t n = nunits - u < 4 ? nunits - u : 4;
    for (size_t j = 0; j < n; ++j) process_unit<kEnc>(rk, tw0 + j, data + (u + j) * 512, poly, tw);
  }
  // Wipe round keys and tweaks kept on the stack (compiler spills elsewhere are not scrubbed).
  for (auto& v : rk) v = _mm256_setzero_si256();
  for (auto& v : tk) v = _mm256_setzero_si256();
  for (auto& v : tw) v = _mm256_setzero_si256();
  for (auto& v : tw0) v = _mm_setzero_si128();
  __asm__ __volatile__("" : : "m"(rk), "m"(tk), "m"(tw), "m"(tw0) : "memory");
}

}  // namespace

void xts_encrypt_avx2(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                      size_t nunits) {
  xts<true>(k1, k2, unit0, data, nunits);
}

void xts_decrypt_avx2(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                      size_t nunits) {
  xts<false>(k1, k2, unit0, data, nunits);
}

}  // namespace warpvol::simd::aes
