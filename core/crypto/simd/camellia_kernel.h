// Byte-sliced Camellia-256 and its XTS driver as templates over a vector wrapper V made of kLanes 128-bit lanes.
// Included by camellia_xts_<isa>.cpp (each V in an unnamed namespace, so nothing compiled with wider ISA flags
// leaks into other code) and by the tests (an emulated 4-lane GFNI vector).
//
// Layout: a batch is kLanes groups of 16 blocks; lane g of vector i holds block i of group g. A 16x16 byte
// transpose inside every lane turns that into 16 planes: lane g of plane j holds byte j of the 16 blocks of group
// g. Camellia is big-endian, so planes 0..7 are D1 (plane 0 its most significant byte) and planes 8..15 are D2.
//
// What V provides (static): kLanes; loadg(ptrs, i) / storeg(ptrs, i, x) (16 bytes at ptrs[g] + 16 i in lane g);
// operators ^ & |; bcast(b) (b in every byte); shl1b / shr7b (every byte shifted left by 1 / right by 7);
// unpacklo8 / unpackhi8 (punpcklbw / punpckhbw semantics per lane); sbox<s, kD2>(x) (Camellia S-box s = 1..4 on
// every byte; see below for kD2); to_d2_order / from_d2_order (see below); mul_x(t) (every lane, an XTS tweak,
// times x).
//
// Block order of D2: with AES-NI the S-box output comes back permuted by ShiftRows (aesenclast) or InvShiftRows
// (aesdeclast) inside each lane, i.e. the blocks of a plane are permuted. Instead of undoing that with a shuffle
// before every S-box, D2's planes are kept in ShiftRows order (to_d2_order after loading, from_d2_order before
// storing): F(D1) uses aesenclast (sbox<s, false>), whose output is then in D2's order, and F(D2) uses aesdeclast
// (sbox<s, true>), whose output is back in D1's order. FL/FL^-1 and the key XORs do not depend on the order. With
// GFNI nothing is permuted and to_d2_order / from_d2_order are no-ops.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/crypto/simd/camellia_xts.h"

#ifndef CAMELLIA_INLINE
#define CAMELLIA_INLINE inline __attribute__((always_inline))
#endif

namespace warpvol::simd::camellia {

template <class V>
struct Kernel {
  // In-lane 16x16 byte transpose. One stage interleaves register k with k + 8 (punpcklbw/punpckhbw into 2k and
  // 2k + 1): element (register r, byte c) moves to (r << 1 | c >> 3, c << 1 | r >> 3) mod 16, i.e. the 8-bit
  // string r:c rotates left by one. Four stages rotate by four: r and c swap. (An involution.)
  static CAMELLIA_INLINE void transpose(V (&x)[16]) {
    for (int stage = 0; stage < 4; ++stage) {
      V y[16];
      _Pragma("GCC unroll 8") for (int k = 0; k < 8; ++k) {
        y[2 * k] = V::unpacklo8(x[k], x[k + 8]);
        y[2 * k + 1] = V::unpackhi8(x[k], x[k + 8]);
      }
      _Pragma("GCC unroll 16") for (int k = 0; k < 16; ++k) x[k] = y[k];
    }
  }

  // other ^= F(in, k) on planes (kD2: in is D2). S-boxes by byte position: s1 s2 s3 s4 s2 s3 s4 s1.
  template <bool kD2>
  static CAMELLIA_INLINE void f(const uint8_t* k, const V* in, V* other) {
    V z0 = V::template sbox<1, kD2>(in[0] ^ V::bcast(k[0]));
    V z1 = V::template sbox<2, kD2>(in[1] ^ V::bcast(k[1]));
    V z2 = V::template sbox<3, kD2>(in[2] ^ V::bcast(k[2]));
    V z3 = V::template sbox<4, kD2>(in[3] ^ V::bcast(k[3]));
    V z4 = V::template sbox<2, kD2>(in[4] ^ V::bcast(k[4]));
    V z5 = V::template sbox<3, kD2>(in[5] ^ V::bcast(k[5]));
    V z6 = V::template sbox<4, kD2>(in[6] ^ V::bcast(k[6]));
    V z7 = V::template sbox<1, kD2>(in[7] ^ V::bcast(k[7]));
    // P-function as 16 XORs; afterwards z0..z3 = y5..y8 and z4..z7 = y1..y4 (RFC 3713 numbering, checked
    // symbolically when this sequence was chosen and by every test vector).
    z0 = z0 ^ z5, z1 = z1 ^ z6, z2 = z2 ^ z7, z3 = z3 ^ z4;
    z4 = z4 ^ z2, z5 = z5 ^ z3, z6 = z6 ^ z0, z7 = z7 ^ z1;
    z0 = z0 ^ z7, z1 = z1 ^ z4, z2 = z2 ^ z5, z3 = z3 ^ z6;
    z4 = z4 ^ z3, z5 = z5 ^ z0, z6 = z6 ^ z1, z7 = z7 ^ z2;
    other[0] = other[0] ^ z4, other[1] = other[1] ^ z5, other[2] = other[2] ^ z6, other[3] = other[3] ^ z7;
    other[4] = other[4] ^ z0, other[5] = other[5] ^ z1, other[6] = other[6] ^ z2, other[7] = other[7] ^ z3;
  }

  // (t0:t1:t2:t3 big-endian 32-bit word) <<< 1, byte by byte.
  static CAMELLIA_INLINE void rotl1_word(const V (&t)[4], V (&r)[4]) {
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; ++j) r[j] = V::shl1b(t[j]) | V::shr7b(t[(j + 1) & 3]);
  }
  // FL: x2 ^= (x1 & k1) <<< 1; x1 ^= x2 | k2. Planes h[0..3] = x1, h[4..7] = x2.
  static CAMELLIA_INLINE void fl(const uint8_t* ke, V* h) {
    V t[4], r[4];
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; ++j) t[j] = h[j] & V::bcast(ke[j]);
    rotl1_word(t, r);
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; ++j) h[4 + j] = h[4 + j] ^ r[j];
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; ++j) h[j] = h[j] ^ (h[4 + j] | V::bcast(ke[4 + j]));
  }
  // FL^-1: y1 ^= y2 | k2; y2 ^= (y1 & k1) <<< 1.
  static CAMELLIA_INLINE void flinv(const uint8_t* ke, V* h) {
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; ++j) h[j] = h[j] ^ (h[4 + j] | V::bcast(ke[4 + j]));
    V t[4], r[4];
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; ++j) t[j] = h[j] & V::bcast(ke[j]);
    rotl1_word(t, r);
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; ++j) h[4 + j] = h[4 + j] ^ r[j];
  }

  // One pass (encryption or, with the reversed schedule, decryption) over the planes. Output: D2 || D1.
  static CAMELLIA_INLINE void crypt(const CamelliaSchedule* s, V (&p)[16]) {
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; ++j) {
      p[j] = p[j] ^ V::bcast(s->sk[0][j]);
      p[8 + j] = V::to_d2_order(p[8 + j] ^ V::bcast(s->sk[1][j]));
    }
    int i = 2;
    for (int part = 0; part < 4; ++part) {
      for (int r = 0; r < 3; ++r) {
        f<false>(s->sk[i++], p, p + 8);
        f<true>(s->sk[i++], p + 8, p);
      }
      if (part < 3) {
        fl(s->sk[i++], p);
        flinv(s->sk[i++], p + 8);
      }
    }
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; ++j) {
      const V d2 = V::from_d2_order(p[8 + j]) ^ V::bcast(s->sk[32][j]);
      const V d1 = p[j] ^ V::bcast(s->sk[33][j]);
      p[j] = d2;
      p[8 + j] = d1;
    }
  }
};

template <class V>
struct Xts {
  static constexpr int L = V::kLanes;
  using K = Kernel<V>;

  // The 16 * L blocks of L groups in place (group g: 16 consecutive blocks at ptr[g]). With kXts, block i of
  // group g is XORed with tweak(g) * x^i before and after, tweak(g) being the 16 bytes at tw[g].
  template <bool kXts>
  static CAMELLIA_INLINE void batch(const CamelliaSchedule* s, uint8_t* const (&ptr)[L], const uint8_t* const (&tw)[L]) {
    V p[16], t[16];
    if constexpr (kXts) {
      V cur = V::loadg(tw, 0);
      _Pragma("GCC unroll 16") for (int i = 0; i < 16; ++i) {
        t[i] = cur;
        p[i] = V::loadg(ptr, i) ^ cur;
        cur = V::mul_x(cur);
      }
    } else {
      _Pragma("GCC unroll 16") for (int i = 0; i < 16; ++i) p[i] = V::loadg(ptr, i);
    }
    K::transpose(p);
    K::crypt(s, p);
    K::transpose(p);
    _Pragma("GCC unroll 16") for (int i = 0; i < 16; ++i) V::storeg(ptr, i, kXts ? p[i] ^ t[i] : p[i]);
  }

  template <bool kEncrypt>
  static void run(const CamelliaXtsKeys* keys, uint64_t unit0, uint8_t* data, size_t nunits) {
    const CamelliaSchedule* s = kEncrypt ? &keys->enc1 : &keys->dec1;
    constexpr int kTweakUnits = 16 * L;  // units whose first tweak one ECB batch computes
    alignas(64) uint8_t t0[16 * kTweakUnits];
    alignas(64) uint8_t gtw[16 * L];
    alignas(64) uint8_t scratch[256 * L];
    while (nunits) {
      const size_t n = nunits < size_t(kTweakUnits) ? nunits : size_t(kTweakUnits);
      std::memset(t0, 0, sizeof t0);
      for (size_t u = 0; u < n; ++u) {
        const uint64_t unit = unit0 + u;
        std::memcpy(t0 + 16 * u, &unit, 8);  // little-endian (x86)
      }
      {
        uint8_t* gp[L];
        const uint8_t* unused[L];
        for (int g = 0; g < L; ++g) gp[g] = t0 + 256 * g, unused[g] = nullptr;
        batch<false>(&keys->enc2, gp, unused);
      }
      // Each unit is two groups: blocks 0..15 with T_0, blocks 16..31 with T_16 = T_0 * x^16.
      for (size_t g0 = 0; g0 < 2 * n; g0 += L) {
        uint8_t* gp[L];
        const uint8_t* tp[L];
        for (int l = 0; l < L; ++l) {
          const size_t g = g0 + size_t(l);
          tp[l] = gtw + 16 * l;
          if (g >= 2 * n) {  // padding lane (odd unit count with 4 lanes): scratch in, scratch out
            gp[l] = scratch + 256 * l;
            std::memset(gtw + 16 * l, 0, 16);
            continue;
          }
          gp[l] = data + 256 * g;
          uint64_t lo, hi;
          std::memcpy(&lo, t0 + 16 * (g / 2), 8);
          std::memcpy(&hi, t0 + 16 * (g / 2) + 8, 8);
          if (g & 1) {  // times x^16: the 16 bits leaving the top come back reduced by 0x87 (carry-less)
            const uint64_t c = hi >> 48;
            hi = (hi << 16) | (lo >> 48);
            lo = (lo << 16) ^ c ^ (c << 1) ^ (c << 2) ^ (c << 7);
          }
          std::memcpy(gtw + 16 * l, &lo, 8);
          std::memcpy(gtw + 16 * l + 8, &hi, 8);
        }
        batch<true>(s, gp, tp);
      }
      data += 512 * n;
      unit0 += n;
      nunits -= n;
    }
  }
};

}  // namespace warpvol::simd::camellia
