// AES-256-XTS with AVX-512 + VAES + VPCLMULQDQ: four blocks per zmm, a whole 512-byte data unit (8 zmm) per round
// loop with the rounds interleaved across the 8 independent states, the next unit's tweaks and loads overlapping
// in the out-of-order window, and the initial tweaks E_K2(unit) of four units encrypted together in one zmm.
// Why intrinsics of our own and not Crypto++/OpenSSL: see aes_xts.h.
//
// Tuning (on an Intel Xeon where a zmm VAESENC issues 1/cycle, i.e. the AES-256 ceiling is 64 B / 14 cycles): one
// unit per round loop beats two (16 zmm in flight), and forming the tweaks with carry-less multiplies and byte
// shifts (port 5 on Intel) beats 64-bit variable shifts, which share port 0 with VAESENC
// (docs/perf/design-figures.md, "AES-XTS").
//
// Tweaks: zmm i lane k of a unit holds T0 * x^(4i+k). zmm 0 and 1 come straight from T0 (broadcast to all lanes):
//   T*x^s = T.lo*x^s ^ ((T.hi*x^s) mod x^64) << 64 ^ ((T.hi*x^s) div x^64) * 0x87      (s <= 7, carry-less)
// and zmm i (i >= 2) = zmm (i-2) * x^8: a one-byte shift left of each lane plus the reduction of the byte that
// falls out (clmul with 0x87, at most 15 bits). The tweak is folded into the last round key:
// AESENCLAST(x, rk14 ^ T) = AESENCLAST(x, rk14) ^ T (likewise AESDECLAST).
//
// GCC 12 warns falsely inside its own AVX-512 headers (`__m512i __Y = __Y;`, GCC PR 105593, fixed in 12.3/13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "core/crypto/simd/aes_xts.h"

namespace warpvol::simd::aes {

namespace {

// x^(4i+k) in the low qword of lane k, for zmm i = 0, 1.
alignas(64) constexpr uint64_t kXPow[2][8] = {{1, 0, 2, 0, 4, 0, 8, 0}, {16, 0, 32, 0, 64, 0, 128, 0}};

// Lane k of the result = T * x^(4i+k) for i = 0 or 1, T broadcast to all four lanes of t.
inline __m512i tweak_vec(__m512i t, int i, __m512i poly) {
  const __m512i xs = _mm512_load_si512(kXPow[i]);
  const __m512i a = _mm512_clmulepi64_epi128(t, xs, 0x00);    // T.lo * x^s (128 bits)
  const __m512i b = _mm512_clmulepi64_epi128(t, xs, 0x01);    // T.hi * x^s (128 bits)
  const __m512i r = _mm512_clmulepi64_epi128(b, poly, 0x01);  // what passes bit 127, reduced
  return _mm512_ternarylogic_epi64(a, _mm512_bslli_epi128(b, 8), r, 0x96);
}

// Each lane times x^8.
inline __m512i mul_x8(__m512i v, __m512i poly) {
  const __m512i c = _mm512_bsrli_epi128(v, 15);
  return _mm512_xor_si512(_mm512_bslli_epi128(v, 1), _mm512_clmulepi64_epi128(c, poly, 0x00));
}

// The eight tweak vectors of one unit from its initial tweak t (broadcast).
inline void unit_tweaks(__m512i t, __m512i poly, __m512i* tw) {
  tw[0] = tweak_vec(t, 0, poly);
  tw[1] = tweak_vec(t, 1, poly);
#pragma GCC unroll 8
  for (int i = 2; i < 8; ++i) tw[i] = mul_x8(tw[i - 2], poly);
}

inline __m512i bcast_key(const uint8_t* k) {
  return _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(k)));
}

template <bool kEnc>
inline __m512i round(__m512i x, __m512i k) {
  if constexpr (kEnc) return _mm512_aesenc_epi128(x, k);
  else return _mm512_aesdec_epi128(x, k);
}

template <bool kEnc>
inline __m512i last_round(__m512i x, __m512i k) {
  if constexpr (kEnc) return _mm512_aesenclast_epi128(x, k);
  else return _mm512_aesdeclast_epi128(x, k);
}

// E_K2 of units u..u+3 (mod 2^64), one per 128-bit lane.
inline __m512i initial_tweaks(const __m512i* tk, uint64_t u) {
  __m512i t = _mm512_set_epi64(0, static_cast<long long>(u + 3), 0, static_cast<long long>(u + 2), 0,
                               static_cast<long long>(u + 1), 0, static_cast<long long>(u));
  t = _mm512_xor_si512(t, tk[0]);
#pragma GCC unroll 16
  for (int r = 1; r < 14; ++r) t = _mm512_aesenc_epi128(t, tk[r]);
  return _mm512_aesenclast_epi128(t, tk[14]);
}

// Keeps tweaks and round keys in memory where the code below reads them: otherwise GCC holds all of them in
// registers across the loop and spills the AES states instead.
inline void compiler_memory_barrier() { __asm__ __volatile__("" : : : "memory"); }

// One data unit at p with initial tweak *tw0. rk: broadcast round keys in memory (one load per round, shared by
// the 8 VAESENCs); tw: scratch for the 8 tweak vectors.
template <bool kEnc>
inline void process_unit(const __m512i* rk, const __m128i* tw0, uint8_t* p, __m512i poly, __m512i* tw) {
  unit_tweaks(_mm512_broadcast_i32x4(_mm_load_si128(tw0)), poly, tw);
  compiler_memory_barrier();
  __m512i x[8];
  const __m512i k0 = rk[0];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) x[i] = _mm512_ternarylogic_epi64(_mm512_loadu_si512(p + 64 * i), tw[i], k0, 0x96);
#pragma GCC unroll 16
  for (int r = 1; r < 14; ++r) {
    const __m512i k = rk[r];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) x[i] = round<kEnc>(x[i], k);
  }
  const __m512i k14 = rk[14];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) _mm512_storeu_si512(p + 64 * i, last_round<kEnc>(x[i], _mm512_xor_si512(k14, tw[i])));
}

template <bool kEnc>
inline void xts(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                size_t nunits) {
  if (nunits == 0) return;
  alignas(64) __m512i rk[15];
  __m512i tk[15];
  for (int r = 0; r < 15; ++r) {
    rk[r] = bcast_key(kEnc ? k1->enc[r] : k1->dec[r]);
    tk[r] = bcast_key(k2->enc[r]);
  }
  const __m512i poly = _mm512_set1_epi64(0x87);
  alignas(64) __m128i tw0[4];
  alignas(64) __m512i tw[8];
  __m512i next = initial_tweaks(tk, unit0);
  for (size_t u = 0; u < nunits; u += 4) {
    _mm512_store_si512(tw0, next);
    // The next four tweaks do not depend on this group: start them now so they overlap with its rounds.
    if (nunits - u > 4) next = initial_tweaks(tk, unit0 + u + 4);
    uint8_t* p = data + u * 512;
    const size_t n = nunits - u < 4 ? nunits - u : 4;
    for (size_t j = 0; j < n; ++j) process_unit<kEnc>(rk, tw0 + j, p + 512 * j, poly, tw);
  }
  // Wipe round keys and tweaks kept on the stack (compiler spills elsewhere are not scrubbed).
  for (auto& v : rk) v = _mm512_setzero_si512();
  for (auto& v : tw) v = _mm512_setzero_si512();
  _mm512_store_si512(tw0, _mm512_setzero_si512());
  __asm__ __volatile__("" : : "m"(rk), "m"(tw), "m"(tw0) : "memory");
}

}  // namespace

void xts_encrypt_avx512(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                        size_t nunits) {
  xts<true>(k1, k2, unit0, data, nunits);
}

void xts_decrypt_avx512(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                        size_t nunits) {
  xts<false>(k1, k2, unit0, data, nunits);
}

}  // namespace warpvol::simd::aes
