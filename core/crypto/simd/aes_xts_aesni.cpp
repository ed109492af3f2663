// AES-256-XTS with AES-NI (128-bit, SSE4.1 + PCLMULQDQ): eight blocks in flight per round loop, four units' initial
// tweaks encrypted together. The fallback for CPUs without VAES. Why our own intrinsics: see aes_xts.h.
// Tweaks of a unit: blocks 0..7 by T*x steps, blocks 8..31 as tweak(j-8) * x^8.
#include <immintrin.h>

#include "core/crypto/simd/aes_xts.h"

namespace warpvol::simd::aes {

namespace {

// T * x in GF(2^128), little-endian, reduction 0x87.
inline __m128i mul_x(__m128i t) {
  const __m128i mask = _mm_set_epi32(0, 1, 0, 0x87);
  // Sign of dword 3 (bit 127) to dword 0, sign of dword 1 (bit 63) to dword 2.
  const __m128i s = _mm_shuffle_epi32(_mm_srai_epi32(t, 31), _MM_SHUFFLE(0, 1, 0, 3));
  return _mm_xor_si128(_mm_slli_epi64(t, 1), _mm_and_si128(s, mask));
}

// T * x^8: a byte shift plus the reduction of the byte shifted out (PCLMULQDQ; byte shifts and carry-less
// multiplies issue on a different port than AESENC on Intel cores, unlike mul_x's shifts).
inline __m128i mul_x8(__m128i t) {
  const __m128i poly = _mm_set_epi64x(0, 0x87);
  return _mm_xor_si128(_mm_slli_si128(t, 1), _mm_clmulepi64_si128(_mm_srli_si128(t, 15), poly, 0x00));
}

template <bool kEnc>
inline __m128i round(__m128i x, __m128i k) {
  if constexpr (kEnc) return _mm_aesenc_si128(x, k);
  else return _mm_aesdec_si128(x, k);
}

template <bool kEnc>
inline __m128i last_round(__m128i x, __m128i k) {
  if constexpr (kEnc) return _mm_aesenclast_si128(x, k);
  else return _mm_aesdeclast_si128(x, k);
}

inline void initial_tweaks(const __m128i* tk, uint64_t u, __m128i* out) {
  __m128i t[4];
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j)
    t[j] = _mm_xor_si128(_mm_set_epi64x(0, static_cast<long long>(u + j)), tk[0]);
#pragma GCC unroll 16
  for (int r = 1; r < 14; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) t[j] = _mm_aesenc_si128(t[j], tk[r]);
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) out[j] = _mm_aesenclast_si128(t[j], tk[14]);
}

// Keeps values the compiler would otherwise hold in registers (the tweaks) in memory: with all 16 XMM registers
// needed for eight blocks in flight plus a round key, GCC otherwise keeps tweaks in registers and spills the AES
// states every round, at less than half the speed (docs/perf/design-figures.md, "AES-XTS").
inline void compiler_memory_barrier() { __asm__ __volatile__("" : : : "memory"); }

template <bool kEnc>
inline void process_unit(const __m128i* rk, __m128i t, uint8_t* p, __m128i* tw) {
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    tw[i] = t;
    t = mul_x(t);
  }
#pragma GCC unroll 24
  for (int i = 8; i < 32; ++i) tw[i] = mul_x8(tw[i - 8]);
  compiler_memory_barrier();
#pragma GCC unroll 1
  for (int h = 0; h < 32; h += 8) {
    __m128i x[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
      x[i] = _mm_xor_si128(
          _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * (h + i))), tw[h + i]), rk[0]);
#pragma GCC unroll 16
    for (int r = 1; r < 14; ++r) {
      const __m128i k = rk[r];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) x[i] = round<kEnc>(x[i], k);
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 16 * (h + i)),
                       last_round<kEnc>(x[i], _mm_xor_si128(rk[14], tw[h + i])));
  }
}

template <bool kEnc>
inline void xts(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                size_t nunits) {
  if (nunits == 0) return;
  const uint8_t(*keys)[16] = kEnc ? k1->enc : k1->dec;
  const __m128i* rk = reinterpret_cast<const __m128i*>(keys);
  const __m128i* tk = reinterpret_cast<const __m128i*>(k2->enc);
  alignas(16) __m128i tw0[4];
  alignas(16) __m128i tw[32];
  for (size_t u = 0; u < nunits; u += 4) {
    initial_tweaks(tk, unit0 + u, tw0);
    const size_t n = nunits - u < 4 ? nunits - u : 4;
    for (size_t j = 0; j < n; ++j) process_unit<kEnc>(rk, tw0[j], data + (u + j) * 512, tw);
  }
  // Wipe the tweaks kept on the stack (compiler spills elsewhere are not scrubbed).
  for (auto& v : tw) v = _mm_setzero_si128();
  for (auto& v : tw0) v = _mm_setzero_si128();
  __asm__ __volatile__("" : : "m"(tw), "m"(tw0) : "memory");
}

}  // namespace

void xts_encrypt_aesni(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                       size_t nunits) {
  xts<true>(k1, k2, unit0, data, nunits);
}

void xts_decrypt_aesni(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                       size_t nunits) {
  xts<false>(k1, k2, unit0, data, nunits);
}

}  // namespace warpvol::simd::aes
