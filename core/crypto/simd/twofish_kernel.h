// Twofish rounds and the XTS driver, as templates over a vector wrapper V of 32-bit lanes (each lane one block's
// word) and a Lookup that computes g() on such a vector. Included by twofish_xts_avx2.cpp / _avx512.cpp, each
// defining its V in an unnamed namespace (internal linkage: nothing built with wider ISA flags leaks out).
//
// What V provides (static): kBlocks (blocks per vector in memory layout), load/store (kBlocks blocks), set1,
// operators ^ and + (lane-wise 32-bit), rotl<n>, byte<j>(x) (byte j of each lane, zero-extended),
// gather(table, idx) (table[idx] per lane; only for GatherG), transpose(a, b, c, d) (4x4 of 32-bit words inside
// each 128-bit lane), mul_xk<k>(t) (each 128-bit lane, an XTS tweak, times x^k).
// What Lookup provides (static): g0(k, x) = g(x) and g1(k, x) = g(x <<< 8) per lane.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/crypto/simd/twofish_xts.h"

#ifndef TWOFISH_INLINE
#define TWOFISH_INLINE inline __attribute__((always_inline))
#endif

namespace warpvol::simd::twofish {

// g() as four gathers from the MDS-folded tables, one per byte of each lane.
template <class V>
struct GatherG {
  static TWOFISH_INLINE V g0(const TwofishKey* k, V x) {  // g(x)
    return V::gather(k->s[0], V::template byte<0>(x)) ^ V::gather(k->s[1], V::template byte<1>(x)) ^
           V::gather(k->s[2], V::template byte<2>(x)) ^ V::gather(k->s[3], V::template byte<3>(x));
  }
  static TWOFISH_INLINE V g1(const TwofishKey* k, V x) {  // g(x <<< 8): byte 3 feeds table 0, byte 0 table 1, ...
    return V::gather(k->s[0], V::template byte<3>(x)) ^ V::gather(k->s[1], V::template byte<0>(x)) ^
           V::gather(k->s[2], V::template byte<1>(x)) ^ V::gather(k->s[3], V::template byte<2>(x));
  }
};

template <class V, class Lookup = GatherG<V>>
struct Kernel {
  static TWOFISH_INLINE V g0(const TwofishKey* k, V x) { return Lookup::g0(k, x); }
  static TWOFISH_INLINE V g1(const TwofishKey* k, V x) { return Lookup::g1(k, x); }

  // One encryption round r: F from (a, b) modifies (c, d).
  template <int G>
  static TWOFISH_INLINE void enc_round(const TwofishKey* k, int r, V (&a)[G], V (&b)[G], V (&c)[G], V (&d)[G]) {
    const V k0 = V::set1(k->k[2 * r + 8]), k1 = V::set1(k->k[2 * r + 9]);
    V t0[G], t1[G];
    _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
      t0[s] = g0(k, a[s]);
      t1[s] = g1(k, b[s]);
    }
    _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
      const V f0 = t0[s] + t1[s] + k0;
      const V f1 = t0[s] + t1[s] + t1[s] + k1;
      c[s] = V::template rotl<31>(c[s] ^ f0);
      d[s] = V::template rotl<1>(d[s]) ^ f1;
    }
  }
  // Inverse of enc_round r.
  template <int G>
  static TWOFISH_INLINE void dec_round(const TwofishKey* k, int r, V (&a)[G], V (&b)[G], V (&c)[G], V (&d)[G]) {
    const V k0 = V::set1(k->k[2 * r + 8]), k1 = V::set1(k->k[2 * r + 9]);
    V t0[G], t1[G];
    _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
      t0[s] = g0(k, a[s]);
      t1[s] = g1(k, b[s]);
    }
    _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
      const V f0 = t0[s] + t1[s] + k0;
      const V f1 = t0[s] + t1[s] + t1[s] + k1;
      c[s] = V::template rotl<1>(c[s]) ^ f0;
      d[s] = V::template rotl<31>(d[s] ^ f1);
    }
  }

  // x[s][i]: word i of the blocks of set s (after the transpose).
  template <int G>
  static TWOFISH_INLINE void encrypt(const TwofishKey* k, V (&x)[4][G]) {
    _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
      for (int i = 0; i < 4; ++i) x[i][s] = x[i][s] ^ V::set1(k->k[i]);
    }
    for (int r = 0; r < 16; r += 2) {
      enc_round<G>(k, r, x[0], x[1], x[2], x[3]);
      enc_round<G>(k, r + 1, x[2], x[3], x[0], x[1]);
    }
    // Rounds alternate in place instead of swapping halves; the 16th round wrote x0, x1 from F(x2, x3). With the
    // paper's last swap undone that is R = (x2, x3, x0, x1), and C_i = R_i ^ K_(i+4).
    _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
      const V c0 = x[2][s] ^ V::set1(k->k[4]), c1 = x[3][s] ^ V::set1(k->k[5]);
      const V c2 = x[0][s] ^ V::set1(k->k[6]), c3 = x[1][s] ^ V::set1(k->k[7]);
      x[0][s] = c0, x[1][s] = c1, x[2][s] = c2, x[3][s] = c3;
    }
  }
  template <int G>
  static TWOFISH_INLINE void decrypt(const TwofishKey* k, V (&x)[4][G]) {
    _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
      const V r2 = x[0][s] ^ V::set1(k->k[4]), r3 = x[1][s] ^ V::set1(k->k[5]);
      const V r0 = x[2][s] ^ V::set1(k->k[6]), r1 = x[3][s] ^ V::set1(k->k[7]);
      x[0][s] = r0, x[1][s] = r1, x[2][s] = r2, x[3][s] = r3;
    }
    for (int r = 15; r > 0; r -= 2) {
      dec_round<G>(k, r, x[2], x[3], x[0], x[1]);
      dec_round<G>(k, r - 1, x[0], x[1], x[2], x[3]);
    }
    _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
      for (int i = 0; i < 4; ++i) x[i][s] = x[i][s] ^ V::set1(k->k[i]);
    }
  }
};

// XTS over whole 512-byte data units with G register sets (G * 4 * V::kBlocks blocks) per batch.
template <class V, int G, class Lookup = GatherG<V>>
struct Xts {
  static constexpr int kBatch = 4 * G * V::kBlocks;  // blocks per batch
  static_assert(32 % kBatch == 0, "a batch must divide a data unit");
  using K = Kernel<V, Lookup>;

  static TWOFISH_INLINE void load_set(const uint8_t* q, V (&x)[4][G]) {
    _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
      for (int i = 0; i < 4; ++i) x[i][s] = V::load(q + (4 * s + i) * V::kBlocks * 16);
      V::transpose(x[0][s], x[1][s], x[2][s], x[3][s]);
    }
  }

  static TWOFISH_INLINE void ecb_encrypt_batch(const TwofishKey* k, uint8_t* p) {
    V x[4][G];
    load_set(p, x);
    K::template encrypt<G>(k, x);
    _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
      V::transpose(x[0][s], x[1][s], x[2][s], x[3][s]);
      for (int i = 0; i < 4; ++i) V::store(p + (4 * s + i) * V::kBlocks * 16, x[i][s]);
    }
  }

  template <bool kEncrypt>
  static TWOFISH_INLINE void unit(const TwofishKey* k, const uint8_t* t0, uint8_t* p) {
    alignas(64) uint8_t first[16 * V::kBlocks];
    uint64_t lo, hi;
    std::memcpy(&lo, t0, 8);
    std::memcpy(&hi, t0 + 8, 8);
    for (int j = 0; j < V::kBlocks; ++j) {
      std::memcpy(first + 16 * j, &lo, 8);
      std::memcpy(first + 16 * j + 8, &hi, 8);
      const uint64_t carry = hi >> 63;
      hi = (hi << 1) | (lo >> 63);
      lo = (lo << 1) ^ (carry * 0x87);
    }
    V t = V::load(first);
    for (int b = 0; b < 32; b += kBatch) {
      uint8_t* q = p + 16 * b;
      V x[4][G], tw[G][4];
      _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
        for (int i = 0; i < 4; ++i) {
          tw[s][i] = t;
          x[i][s] = V::load(q + (4 * s + i) * V::kBlocks * 16) ^ t;
          t = V::template mul_xk<V::kBlocks>(t);
        }
        V::transpose(x[0][s], x[1][s], x[2][s], x[3][s]);
      }
      if constexpr (kEncrypt)
        K::template encrypt<G>(k, x);
      else
        K::template decrypt<G>(k, x);
      _Pragma("GCC unroll 8") for (int s = 0; s < G; ++s) {
        V::transpose(x[0][s], x[1][s], x[2][s], x[3][s]);
        for (int i = 0; i < 4; ++i) V::store(q + (4 * s + i) * V::kBlocks * 16, x[i][s] ^ tw[s][i]);
      }
    }
  }

  template <bool kEncrypt>
  static void run(const TwofishXtsKeys* keys, uint64_t unit0, uint8_t* data, size_t nunits) {
    alignas(64) uint8_t t0[16 * kBatch];
    while (nunits) {
      const size_t n = nunits < size_t(kBatch) ? nunits : size_t(kBatch);
      std::memset(t0, 0, sizeof t0);
      for (size_t u = 0; u < n; ++u) {
        const uint64_t unit = unit0 + u;
        std::memcpy(t0 + 16 * u, &unit, 8);  // little-endian (x86)
      }
      ecb_encrypt_batch(&keys->k2, t0);
      for (size_t u = 0; u < n; ++u) unit<kEncrypt>(&keys->k1, t0 + 16 * u, data + 512 * u);
      data += 512 * n;
      unit0 += n;
      nunits -= n;
    }
  }
};

}  // namespace warpvol::simd::twofish
