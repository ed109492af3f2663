// AES-256-XTS with AVX-512 + VAES + VPCLMULQDQ: four blocks per zmm, one or two whole 512-byte data units (8 or 16
// zmm) in flight, rounds interleaved across them so the VAESENC latency is hidden. Why intrinsics of our own and
// not Crypto++/OpenSSL: see aes_xts.h (Crypto++ ~1.85 GB/s, OpenSSL 3.0 ~8.3 GB/s per core on Zen 5 at 512-byte
// units; the target is >= 12 GB/s).
//
// Tweaks: T0 = E_K2(LE64(unit) || 0^8) for four units at once (one zmm). Within a unit, zmm i lane k holds
// T0 * x^(4i+k), computed directly from T0 (no serial chain): for s = 4i+k <= 31,
//   T*x^s = (T << s per 64-bit half) ^ (carry out of the low half, into the high half)
//           ^ clmul(carry out of the high half, 0x87)
// where a carry has at most 31 bits, so the product with 0x87 fits in 38 bits and needs no second reduction.
// The tweak is folded into the last round key (AESENCLAST(x, rk14 ^ T) = AESENCLAST(x, rk14) ^ T).
// GCC 12 warns falsely inside its own AVX-512 headers (`__m512i __Y = __Y;`, GCC PR 105593, fixed in 12.3/13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "core/crypto/simd/aes_xts.h"

namespace warpvol::simd::aes {

namespace {

struct alignas(64) ShiftTable {
  uint64_t shl[8][8];
  uint64_t shr[8][8];
};

constexpr ShiftTable make_shift_table() {
  ShiftTable t{};
  for (int i = 0; i < 8; ++i)
    for (int q = 0; q < 8; ++q) {
      const uint64_t s = 4 * i + q / 2;  // exponent of x for lane q/2 of zmm i
      t.shl[i][q] = s;
      t.shr[i][q] = 64 - s;  // 64 for s = 0: VPSRLVQ yields 0
    }
  return t;
}

alignas(64) constexpr ShiftTable kShifts = make_shift_table();

inline __m512i load_shift(const uint64_t* p) { return _mm512_load_si512(p); }

// Lane k of the result = T * x^(4i+k), T broadcast to all four lanes of t.
inline __m512i tweak_vec(__m512i t, int i, __m512i poly) {
  const __m512i c = _mm512_srlv_epi64(t, load_shift(kShifts.shr[i]));
  const __m512i r = _mm512_clmulepi64_epi128(c, poly, 0x01);  // high-half carry * 0x87, in the low half
  const __m512i l = _mm512_bslli_epi128(c, 8);                // low-half carry into the high half
  return _mm512_ternarylogic_epi64(_mm512_sllv_epi64(t, load_shift(kShifts.shl[i])), r, l, 0x96);
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

// kU whole data units at p (consecutive), with their initial tweaks at tw0[0..kU).
template <bool kEnc, int kU>
inline void process_units(const __m512i* rk, const __m128i* tw0, uint8_t* p, __m512i poly) {
  constexpr int kN = 8 * kU;
  __m512i tw[kN], x[kN];
#pragma GCC unroll 16
  for (int u = 0; u < kU; ++u) {
    const __m512i t = _mm512_broadcast_i32x4(_mm_load_si128(tw0 + u));
#pragma GCC unroll 16
    for (int i = 0; i < 8; ++i) tw[8 * u + i] = tweak_vec(t, i, poly);
  }
#pragma GCC unroll 16
  for (int i = 0; i < kN; ++i)
    x[i] = _mm512_ternarylogic_epi64(_mm512_loadu_si512(p + 64 * i), tw[i], rk[0], 0x96);
#pragma GCC unroll 16
  for (int r = 1; r < 14; ++r) {
    const __m512i k = rk[r];
#pragma GCC unroll 16
    for (int i = 0; i < kN; ++i) x[i] = round<kEnc>(x[i], k);
  }
#pragma GCC unroll 16
  for (int i = 0; i < kN; ++i)
    _mm512_storeu_si512(p + 64 * i, last_round<kEnc>(x[i], _mm512_xor_si512(rk[14], tw[i])));
}

template <bool kEnc>
inline void xts(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                size_t nunits) {
  if (nunits == 0) return;
  __m512i rk[15], tk[15];
  for (int r = 0; r < 15; ++r) {
    rk[r] = bcast_key(kEnc ? k1->enc[r] : k1->dec[r]);
    tk[r] = bcast_key(k2->enc[r]);
  }
  const __m512i poly = _mm512_set1_epi64(0x87);
  alignas(64) __m128i tw0[4];
  __m512i next = initial_tweaks(tk, unit0);
  for (size_t u = 0; u < nunits; u += 4) {
    _mm512_store_si512(tw0, next);
    // The next four tweaks do not depend on this group: start them now so they overlap with its rounds.
    if (nunits - u > 4) next = initial_tweaks(tk, unit0 + u + 4);
    uint8_t* p = data + u * 512;
    const size_t n = nunits - u < 4 ? nunits - u : 4;
    if (n == 4) {
      process_units<kEnc, 2>(rk, tw0, p, poly);
      process_units<kEnc, 2>(rk, tw0 + 2, p + 1024, poly);
    } else {
      for (size_t j = 0; j < n; ++j) process_units<kEnc, 1>(rk, tw0 + j, p + 512 * j, poly);
    }
  }
  // Wipe the stored initial tweaks (functions of K2); compiler spills are not scrubbed.
  _mm512_store_si512(tw0, _mm512_setzero_si512());
  __asm__ __volatile__("" : : "m"(tw0) : "memory");
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
