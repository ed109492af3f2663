// Serpent rounds and the XTS driver as templates over a vector wrapper V of 32-bit lanes. Included by the
// serpent_xts_<isa>.cpp files (each defines its V in an unnamed namespace, so every instantiation has internal
// linkage and no code built with wider ISA flags can leak into another file), by serpent_key.cpp (a one-lane
// scalar V) and by the tests (an emulated 16-lane V that runs the AVX-512 shape of the code on any CPU).
//
// What V provides (all static, V has a member `v`):
//   kBlocks                        blocks per vector in memory layout (lanes / 4)
//   kTernlog                       true: S-boxes as 3-input operations (V::tern<imm>), else Osvik's gates
//   load(p) / store(p, x)          kBlocks consecutive 16-byte blocks, unaligned
//   set1(w)                        w in every lane
//   operators ^ & | ~ ^= &= |=     lane-wise
//   rotl<n>(x), shl<n>(x)          lane-wise 32-bit rotate / shift
//   xor3(a, b, c)                  a ^ b ^ c
//   tern<imm>(a, b, c)             vpternlogd semantics (only with kTernlog)
//   transpose(a, b, c, d)          4x4 transpose of 32-bit words inside each 128-bit lane (an involution)
//   mul_xk<k>(t)                   every 128-bit lane (an XTS tweak, little-endian) times x^k, 1 <= k <= 8
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/crypto/simd/serpent_sboxes.h"

namespace warpvol::simd::serpent {

template <class V>
struct Kernel {
  template <int S>
  static SERPENT_INLINE void sbox(V& a, V& b, V& c, V& d) {
    if constexpr (V::kTernlog) {
      if constexpr (S == 0) sbox0_tl(a, b, c, d);
      else if constexpr (S == 1) sbox1_tl(a, b, c, d);
      else if constexpr (S == 2) sbox2_tl(a, b, c, d);
      else if constexpr (S == 3) sbox3_tl(a, b, c, d);
      else if constexpr (S == 4) sbox4_tl(a, b, c, d);
      else if constexpr (S == 5) sbox5_tl(a, b, c, d);
      else if constexpr (S == 6) sbox6_tl(a, b, c, d);
      else sbox7_tl(a, b, c, d);
    } else {
      if constexpr (S == 0) sbox0_gates(a, b, c, d);
      else if constexpr (S == 1) sbox1_gates(a, b, c, d);
      else if constexpr (S == 2) sbox2_gates(a, b, c, d);
      else if constexpr (S == 3) sbox3_gates(a, b, c, d);
      else if constexpr (S == 4) sbox4_gates(a, b, c, d);
      else if constexpr (S == 5) sbox5_gates(a, b, c, d);
      else if constexpr (S == 6) sbox6_gates(a, b, c, d);
      else sbox7_gates(a, b, c, d);
    }
  }
  template <int S>
  static SERPENT_INLINE void ibox(V& a, V& b, V& c, V& d) {
    if constexpr (V::kTernlog) {
      if constexpr (S == 0) ibox0_tl(a, b, c, d);
      else if constexpr (S == 1) ibox1_tl(a, b, c, d);
      else if constexpr (S == 2) ibox2_tl(a, b, c, d);
      else if constexpr (S == 3) ibox3_tl(a, b, c, d);
      else if constexpr (S == 4) ibox4_tl(a, b, c, d);
      else if constexpr (S == 5) ibox5_tl(a, b, c, d);
      else if constexpr (S == 6) ibox6_tl(a, b, c, d);
      else ibox7_tl(a, b, c, d);
    } else {
      if constexpr (S == 0) ibox0_gates(a, b, c, d);
      else if constexpr (S == 1) ibox1_gates(a, b, c, d);
      else if constexpr (S == 2) ibox2_gates(a, b, c, d);
      else if constexpr (S == 3) ibox3_gates(a, b, c, d);
      else if constexpr (S == 4) ibox4_gates(a, b, c, d);
      else if constexpr (S == 5) ibox5_gates(a, b, c, d);
      else if constexpr (S == 6) ibox6_gates(a, b, c, d);
      else ibox7_gates(a, b, c, d);
    }
  }

  // Linear transform and its inverse (Serpent spec, bitslice form).
  static SERPENT_INLINE void lt(V& x0, V& x1, V& x2, V& x3) {
    x0 = V::template rotl<13>(x0);
    x2 = V::template rotl<3>(x2);
    x1 = V::xor3(x1, x0, x2);
    x3 = V::xor3(x3, x2, V::template shl<3>(x0));
    x1 = V::template rotl<1>(x1);
    x3 = V::template rotl<7>(x3);
    x0 = V::xor3(x0, x1, x3);
    x2 = V::xor3(x2, x3, V::template shl<7>(x1));
    x0 = V::template rotl<5>(x0);
    x2 = V::template rotl<22>(x2);
  }
  static SERPENT_INLINE void ilt(V& x0, V& x1, V& x2, V& x3) {
    x2 = V::template rotl<32 - 22>(x2);
    x0 = V::template rotl<32 - 5>(x0);
    x2 = V::xor3(x2, x3, V::template shl<7>(x1));
    x0 = V::xor3(x0, x1, x3);
    x3 = V::template rotl<32 - 7>(x3);
    x1 = V::template rotl<32 - 1>(x1);
    x3 = V::xor3(x3, x2, V::template shl<3>(x0));
    x1 = V::xor3(x1, x0, x2);
    x2 = V::template rotl<32 - 3>(x2);
    x0 = V::template rotl<32 - 13>(x0);
  }

  // G independent register sets of 4 words each; steps are applied set by set so the out-of-order core sees G
  // independent dependency chains.
  template <int G>
  static SERPENT_INLINE void kx(V (&x)[G][4], const uint32_t* k) {
    const V k0 = V::set1(k[0]), k1 = V::set1(k[1]), k2 = V::set1(k[2]), k3 = V::set1(k[3]);
    _Pragma("GCC unroll 16")
    for (int g = 0; g < G; ++g) {
      x[g][0] ^= k0;
      x[g][1] ^= k1;
      x[g][2] ^= k2;
      x[g][3] ^= k3;
    }
  }
  template <int G, int S>
  static SERPENT_INLINE void round(V (&x)[G][4], const uint32_t* k) {
    kx<G>(x, k);
    _Pragma("GCC unroll 16")
    for (int g = 0; g < G; ++g) sbox<S>(x[g][0], x[g][1], x[g][2], x[g][3]);
    _Pragma("GCC unroll 16")
    for (int g = 0; g < G; ++g) lt(x[g][0], x[g][1], x[g][2], x[g][3]);
  }
  template <int G, int S>
  static SERPENT_INLINE void iround(V (&x)[G][4], const uint32_t* k) {
    _Pragma("GCC unroll 16")
    for (int g = 0; g < G; ++g) ilt(x[g][0], x[g][1], x[g][2], x[g][3]);
    _Pragma("GCC unroll 16")
    for (int g = 0; g < G; ++g) ibox<S>(x[g][0], x[g][1], x[g][2], x[g][3]);
    kx<G>(x, k);
  }

  // 32 rounds: K_r, S_{r mod 8}, LT (the last round: K_31, S_7, K_32). k: 132 words.
  template <int G>
  static SERPENT_INLINE void encrypt(V (&x)[G][4], const uint32_t* k) {
    _Pragma("GCC unroll 16")
    for (int i = 0; i < 3; ++i, k += 32) {
      round<G, 0>(x, k);
      round<G, 1>(x, k + 4);
      round<G, 2>(x, k + 8);
      round<G, 3>(x, k + 12);
      round<G, 4>(x, k + 16);
      round<G, 5>(x, k + 20);
      round<G, 6>(x, k + 24);
      round<G, 7>(x, k + 28);
    }
    round<G, 0>(x, k);
    round<G, 1>(x, k + 4);
    round<G, 2>(x, k + 8);
    round<G, 3>(x, k + 12);
    round<G, 4>(x, k + 16);
    round<G, 5>(x, k + 20);
    round<G, 6>(x, k + 24);
    kx<G>(x, k + 28);
    _Pragma("GCC unroll 16")
    for (int g = 0; g < G; ++g) sbox<7>(x[g][0], x[g][1], x[g][2], x[g][3]);
    kx<G>(x, k + 32);
  }
  template <int G>
  static SERPENT_INLINE void decrypt(V (&x)[G][4], const uint32_t* k) {
    kx<G>(x, k + 128);
    _Pragma("GCC unroll 16")
    for (int g = 0; g < G; ++g) ibox<7>(x[g][0], x[g][1], x[g][2], x[g][3]);
    kx<G>(x, k + 124);
    iround<G, 6>(x, k + 120);
    iround<G, 5>(x, k + 116);
    iround<G, 4>(x, k + 112);
    iround<G, 3>(x, k + 108);
    iround<G, 2>(x, k + 104);
    iround<G, 1>(x, k + 100);
    iround<G, 0>(x, k + 96);
    for (const uint32_t* b = k + 64;; b -= 32) {
      iround<G, 7>(x, b + 28);
      iround<G, 6>(x, b + 24);
      iround<G, 5>(x, b + 20);
      iround<G, 4>(x, b + 16);
      iround<G, 3>(x, b + 12);
      iround<G, 2>(x, b + 8);
      iround<G, 1>(x, b + 4);
      iround<G, 0>(x, b);
      if (b == k) break;
    }
  }
};

// XTS over whole 512-byte data units with G register sets (G * 4 * V::kBlocks blocks) per batch.
template <class V, int G>
struct Xts {
  static constexpr int kVecs = 4 * G;                    // vectors per batch
  static constexpr int kBatch = kVecs * V::kBlocks;      // blocks per batch
  static constexpr int kUnitBlocks = 32;                 // 512-byte data unit
  static_assert(kUnitBlocks % kBatch == 0, "a batch must divide a data unit");
  using K = Kernel<V>;

  // kBatch blocks at p in place, no tweak (used for the tweak blocks E_K2(unit)).
  static SERPENT_INLINE void ecb_encrypt_batch(const uint32_t* rk, uint8_t* p) {
    V x[G][4];
    _Pragma("GCC unroll 16")
    for (int g = 0; g < G; ++g) {
      _Pragma("GCC unroll 16")
      for (int i = 0; i < 4; ++i) x[g][i] = V::load(p + (4 * g + i) * V::kBlocks * 16);
      V::transpose(x[g][0], x[g][1], x[g][2], x[g][3]);
    }
    K::template encrypt<G>(x, rk);
    _Pragma("GCC unroll 16")
    for (int g = 0; g < G; ++g) {
      V::transpose(x[g][0], x[g][1], x[g][2], x[g][3]);
      _Pragma("GCC unroll 16")
      for (int i = 0; i < 4; ++i) V::store(p + (4 * g + i) * V::kBlocks * 16, x[g][i]);
    }
  }

  // One data unit whose first tweak T_0 = E_K2(unit) is at t0.
  template <bool kEncrypt>
  static SERPENT_INLINE void unit(const uint32_t* rk, const uint8_t* t0, uint8_t* p) {
    // Lanes of the first tweak vector: T_0, T_0*x, ..., T_0*x^(kBlocks-1); each later vector is the previous one
    // times x^kBlocks, computed in registers.
    alignas(64) uint8_t first[16 * V::kBlocks];
    uint64_t lo, hi;
    std::memcpy(&lo, t0, 8);
    std::memcpy(&hi, t0 + 8, 8);
    _Pragma("GCC unroll 16")
    for (int j = 0; j < V::kBlocks; ++j) {
      std::memcpy(first + 16 * j, &lo, 8);
      std::memcpy(first + 16 * j + 8, &hi, 8);
      const uint64_t carry = hi >> 63;
      hi = (hi << 1) | (lo >> 63);
      lo = (lo << 1) ^ (carry * 0x87);
    }
    V t = V::load(first);
    for (int b = 0; b < kUnitBlocks; b += kBatch) {
      uint8_t* q = p + 16 * b;
      V x[G][4], tw[G][4];
      _Pragma("GCC unroll 16")
      for (int g = 0; g < G; ++g) {
        _Pragma("GCC unroll 16")
        for (int i = 0; i < 4; ++i) {
          tw[g][i] = t;
          x[g][i] = V::load(q + (4 * g + i) * V::kBlocks * 16) ^ t;
          t = V::template mul_xk<V::kBlocks>(t);
        }
        V::transpose(x[g][0], x[g][1], x[g][2], x[g][3]);
      }
      if constexpr (kEncrypt)
        K::template encrypt<G>(x, rk);
      else
        K::template decrypt<G>(x, rk);
      _Pragma("GCC unroll 16")
      for (int g = 0; g < G; ++g) {
        V::transpose(x[g][0], x[g][1], x[g][2], x[g][3]);
        _Pragma("GCC unroll 16")
        for (int i = 0; i < 4; ++i) V::store(q + (4 * g + i) * V::kBlocks * 16, x[g][i] ^ tw[g][i]);
      }
    }
  }

  template <bool kEncrypt>
  static void run(const uint32_t* k1, const uint32_t* k2, uint64_t unit0, uint8_t* data, size_t nunits) {
    alignas(64) uint8_t t0[16 * kBatch];
    while (nunits) {
      const size_t n = nunits < size_t(kBatch) ? nunits : size_t(kBatch);
      std::memset(t0, 0, sizeof t0);
      for (size_t u = 0; u < n; ++u) {
        const uint64_t unit = unit0 + u;  // wraps mod 2^64 like the portable path
        std::memcpy(t0 + 16 * u, &unit, 8);  // little-endian (x86)
      }
      ecb_encrypt_batch(k2, t0);
      for (size_t u = 0; u < n; ++u) unit<kEncrypt>(k1, t0 + 16 * u, data + 512 * u);
      data += 512 * n;
      unit0 += n;
      nunits -= n;
    }
  }
};

}  // namespace warpvol::simd::serpent
