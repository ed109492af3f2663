// Twofish rounds in scalar code over N blocks held as x[word][block] (twofish_xts_scalar.cpp). Everything here is
// in an unnamed namespace on purpose: should a file with wider ISA flags ever include it, it gets its own copy, and
// the linker can never hand that copy to portable code (the one-definition rule would allow it for ordinary inline
// functions and templates). A hybrid kernel (gathers for half of each unit, this scalar code for the other half,
// rounds interleaved) was slower than this scalar code alone on Zen 3, so it was not kept
// (docs/perf/design-figures.md, "Twofish").
#pragma once
#include <cstdint>

#include "core/crypto/simd/twofish_xts.h"

namespace warpvol::simd::twofish {
namespace {

inline uint32_t scalar_rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

#define TF_G0(x) (s0[(x) & 0xff] ^ s1[((x) >> 8) & 0xff] ^ s2[((x) >> 16) & 0xff] ^ s3[(x) >> 24])
#define TF_G1(x) (s0[(x) >> 24] ^ s1[(x) & 0xff] ^ s2[((x) >> 8) & 0xff] ^ s3[((x) >> 16) & 0xff])

// Encryption round r (F from words a, b modifies c, d) or its inverse, on N blocks.
template <bool kEncrypt, int N>
inline __attribute__((always_inline)) void scalar_round(const TwofishKey* k, int r, uint32_t (&a)[N],
                                                        uint32_t (&b)[N], uint32_t (&c)[N], uint32_t (&d)[N]) {
  const uint32_t *s0 = k->s[0], *s1 = k->s[1], *s2 = k->s[2], *s3 = k->s[3];
  const uint32_t k0 = k->k[2 * r + 8], k1 = k->k[2 * r + 9];
#pragma GCC unroll 8
  for (int j = 0; j < N; ++j) {
    const uint32_t t0 = TF_G0(a[j]), t1 = TF_G1(b[j]);
    if constexpr (kEncrypt) {
      c[j] = scalar_rotl(c[j] ^ (t0 + t1 + k0), 31);
      d[j] = scalar_rotl(d[j], 1) ^ (t0 + 2 * t1 + k1);
    } else {
      c[j] = scalar_rotl(c[j], 1) ^ (t0 + t1 + k0);
      d[j] = scalar_rotl(d[j] ^ (t0 + 2 * t1 + k1), 31);
    }
  }
}

#undef TF_G0
#undef TF_G1

// Input whitening (encryption) / output whitening (decryption) and the inverse, on x[4][N]. Rounds alternate in
// place instead of swapping halves; after 16 rounds R = (x2, x3, x0, x1) in the paper's notation.
template <int N>
inline __attribute__((always_inline)) void scalar_whiten_in(const TwofishKey* k, uint32_t (&x)[4][N], bool enc) {
  for (int j = 0; j < N; ++j) {
    if (enc) {
      for (int i = 0; i < 4; ++i) x[i][j] ^= k->k[i];
    } else {
      const uint32_t r2 = x[0][j] ^ k->k[4], r3 = x[1][j] ^ k->k[5], r0 = x[2][j] ^ k->k[6], r1 = x[3][j] ^ k->k[7];
      x[0][j] = r0, x[1][j] = r1, x[2][j] = r2, x[3][j] = r3;
    }
  }
}
template <int N>
inline __attribute__((always_inline)) void scalar_whiten_out(const TwofishKey* k, uint32_t (&x)[4][N], bool enc) {
  for (int j = 0; j < N; ++j) {
    if (enc) {
      const uint32_t c0 = x[2][j] ^ k->k[4], c1 = x[3][j] ^ k->k[5], c2 = x[0][j] ^ k->k[6], c3 = x[1][j] ^ k->k[7];
      x[0][j] = c0, x[1][j] = c1, x[2][j] = c2, x[3][j] = c3;
    } else {
      for (int i = 0; i < 4; ++i) x[i][j] ^= k->k[i];
    }
  }
}

// Whole blocks: x[i][j] = word i of block j.
template <bool kEncrypt, int N>
inline __attribute__((always_inline)) void scalar_crypt(const TwofishKey* k, uint32_t (&x)[4][N]) {
  scalar_whiten_in<N>(k, x, kEncrypt);
  if constexpr (kEncrypt) {
    for (int r = 0; r < 16; r += 2) {
      scalar_round<true, N>(k, r, x[0], x[1], x[2], x[3]);
      scalar_round<true, N>(k, r + 1, x[2], x[3], x[0], x[1]);
    }
  } else {
    for (int r = 15; r > 0; r -= 2) {
      scalar_round<false, N>(k, r, x[2], x[3], x[0], x[1]);
      scalar_round<false, N>(k, r - 1, x[0], x[1], x[2], x[3]);
    }
  }
  scalar_whiten_out<N>(k, x, kEncrypt);
}

}  // namespace
}  // namespace warpvol::simd::twofish
