// Device side of the CUDA engine: the five ciphers as register-resident block functions over shared-memory tables,
// the compile-time shared-memory plan, and the fused XTS kernel template.
//
// Kernel shape (one launch covers many 256 KiB chunks; a persistent grid of one or more CTAs per SM):
//  * A warp's work item ("tile") is p.tile consecutive data units: 32 for large launches, fewer for small ones so
//    that every resident warp gets work (GpuEngine::grid_for). Lane t first computes the tweak T = E_K2(unit t) of
//    every layer once (one block cipher call per unit and layer: ~3% of the work with 32-unit tiles).
//  * Then for each unit u of the tile, lane j processes block j: it takes T_u from lane u by shuffle, forms
//    T_u * alpha^j in registers (a funnel shift and a carry-less fold of the j overflow bits), loads its 16 bytes
//    (the warp reads the unit's 512 bytes coalesced), applies every layer of the chain in registers and stores once.
//  * Round keys are kernel parameters (constant bank operands); tables live in shared memory, laid out so that a
//    lookup costs one PRMT: the byte index goes to bits 8..15 of the address and the lane's bank offset to bits 0..7
//    (each table entry replicated once per bank, "R=32"), or 16 times ("R=16", two lanes per bank), or plain.
//  * The replication of each table group is chosen at compile time per kernel so that all tables of the chain (and
//    of both chains, for re-encryption) fit in 227 KB, trading the least-used lookups first.
#pragma once
#ifdef WV_HOST_EMULATION
#include "gpu/host_emulation.h"
#else
#include <cuda_runtime.h>
#endif

#include <cstdint>

#include "gpu/kernel_api.h"

namespace warpvol::gpu::dev {

using Cid = CipherId;  // Aes, Serpent, Twofish, Camellia, Kuznyechik

template <Cid C, bool Enc>
struct Layer {
  static constexpr Cid cipher = C;
  static constexpr bool enc = Enc;
};
template <class... L>
struct Layers {
  static constexpr int n = sizeof...(L);
};

// ------------------------------------------------------------------ basic operations
template <unsigned IMM>
__device__ __forceinline__ uint32_t wv_lop3(uint32_t a, uint32_t b, uint32_t c) {
#ifdef WV_HOST_EMULATION
  uint32_t r = 0;
  for (int i = 0; i < 8; ++i)
    if (IMM >> i & 1) r |= (i & 4 ? a : ~a) & (i & 2 ? b : ~b) & (i & 1 ? c : ~c);
  return r;
#else
  uint32_t r;
  asm("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(c), "n"(IMM));
  return r;
#endif
}
__device__ __forceinline__ uint32_t rotl(uint32_t x, int n) { return __funnelshift_l(x, x, n); }
__device__ __forceinline__ uint32_t rotr(uint32_t x, int n) { return __funnelshift_r(x, x, n); }
__device__ __forceinline__ uint32_t bswap(uint32_t x) { return __byte_perm(x, 0, 0x0123); }
__device__ __forceinline__ uint32_t xor3(uint32_t a, uint32_t b, uint32_t c) { return a ^ b ^ c; }
__device__ __forceinline__ uint4 operator^(uint4 a, uint4 b) {
  return make_uint4(a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w);
}
// Output byte n taken from byte n of the n-th argument.
__device__ __forceinline__ uint32_t merge_bytes(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  return __byte_perm(__byte_perm(a, b, 0x3250), __byte_perm(c, d, 0x7210), 0x7610);
}

// T * x^s in GF(2^128), XTS little-endian convention, 0 <= s < 32.
__device__ __forceinline__ uint4 mul_alpha_pow(uint4 t, uint32_t s) {
  const uint32_t c = __funnelshift_l(t.w, 0u, s);  // the s bits shifted out of bit 127
  uint4 r;
  r.w = __funnelshift_l(t.z, t.w, s);
  r.z = __funnelshift_l(t.y, t.z, s);
  r.y = __funnelshift_l(t.x, t.y, s);
  r.x = t.x << s;
  r.x ^= xor3(c, c << 1, c << 2) ^ (c << 7);
  r.y ^= (c >> 30) ^ (c >> 25);
  return r;
}

// ------------------------------------------------------------------ shared-memory plan
enum Group : int {
  G_TE = 0,    // AES encryption T-tables (4 tables)
  G_TD = 1,    // AES decryption T-tables (4)
  G_ISB = 2,   // AES inverse S-box (1 table)
  G_CAM = 3,   // Camellia SP tables (4)
  G_KT = 4,    // Kuznyechik LS tables (16 x 256 x 16 bytes, interleaved: kuz_look)
  G_KTI = 5,   // Kuznyechik L^-1 S^-1 tables (the same layout)
  G_KS8 = 6,   // Kuznyechik S << 8 (1 table, plain)
  G_KSI = 7,   // Kuznyechik S^-1 (1 table, plain)
  G_TF = 8,    // Twofish layer l: data key tables at G_TF + 2l, tweak key tables at G_TF + 2l + 1
  G_COUNT = G_TF + 2 * kMaxLayers
};

constexpr unsigned kSmemBudget = 227 * 1024;

struct Plan {
  int R[G_COUNT] = {};         // replication per group (0 = unused); fixed groups have R = 1
  unsigned off[G_COUNT] = {};  // byte offset in shared memory
  unsigned total = 0;
};

__host__ __device__ constexpr bool group_is4(int g) { return g == G_TE || g == G_TD || g == G_CAM || g >= G_TF; }
__host__ __device__ constexpr bool group_is1(int g) { return g == G_ISB; }
__host__ __device__ constexpr unsigned group_bytes(int g, int R) {
  if (R == 0) return 0;
  if (group_is4(g)) return R == 32 ? 131072u : R == 16 ? 65536u : 4096u;
  if (group_is1(g)) return R == 32 ? 32768u : R == 16 ? 16384u : 1024u;
  if (g == G_KT || g == G_KTI) return 65536u;
  return 1024u;  // G_KS8, G_KSI
}
__host__ __device__ constexpr double conflict_factor(int R) { return R == 32 ? 1.0 : R == 16 ? 2.0 : 3.5; }

// MaxR caps the replication (the ablation's seed design uses plain tables: MaxR = 1).
template <class LL, int MaxR = 32>
struct PlanOf;

template <int MaxR, class... L>
struct PlanOf<Layers<L...>, MaxR> {
  static constexpr Plan make() {
    Plan p{};
    double w[G_COUNT] = {};
    constexpr Cid cs[] = {L::cipher...};
    constexpr bool es[] = {L::enc...};
    for (int l = 0; l < int(sizeof...(L)); ++l) {
      switch (cs[l]) {
        case Cid::Aes:
          if (es[l]) {
            w[G_TE] += 224;
          } else {
            w[G_TD] += 208;
            w[G_ISB] += 16;
            p.R[G_TD] = p.R[G_ISB] = 32;
          }
          w[G_TE] += 7;  // tweak
          p.R[G_TE] = 32;
          break;
        case Cid::Camellia:
          w[G_CAM] += 198;
          p.R[G_CAM] = 32;
          break;
        case Cid::Twofish:
          w[G_TF + 2 * l] += 128;
          w[G_TF + 2 * l + 1] += 4;
          p.R[G_TF + 2 * l] = p.R[G_TF + 2 * l + 1] = 32;
          break;
        case Cid::Kuznyechik:
          p.R[G_KT] = 1;
          if (!es[l]) p.R[G_KTI] = p.R[G_KS8] = p.R[G_KSI] = 1;
          break;
        case Cid::Serpent:
          break;
      }
    }
    for (int g = 0; g < G_COUNT; ++g)
      if (p.R[g] > MaxR) p.R[g] = MaxR;
    // Greedy: while over budget, take the downgrade that costs the fewest extra wavefronts per byte saved.
    for (;;) {
      unsigned total = 0;
      for (int g = 0; g < G_COUNT; ++g) total += group_bytes(g, p.R[g]);
      if (total <= kSmemBudget) break;
      int bg = -1, br = 0;
      double best = 1e300;
      for (int g = 0; g < G_COUNT; ++g) {
        if (!(group_is4(g) || group_is1(g)) || p.R[g] <= 1) continue;
        for (int r : {16, 1}) {
          if (r >= p.R[g]) continue;
          double cost = w[g] * (conflict_factor(r) - conflict_factor(p.R[g])) /
                        double(group_bytes(g, p.R[g]) - group_bytes(g, r));
          if (cost < best) {
            best = cost;
            bg = g;
            br = r;
          }
        }
      }
      if (bg < 0) break;  // cannot shrink further (static_assert below catches it)
      p.R[bg] = br;
    }
    unsigned off = 0;
    for (int g = 0; g < G_COUNT; ++g) {
      p.off[g] = off;
      off += group_bytes(g, p.R[g]);
    }
    p.total = off;
    return p;
  }
  static constexpr Plan plan = make();
  static_assert(plan.total <= kSmemBudget, "tables do not fit in shared memory");
};

#ifndef WV_HOST_EMULATION
extern __shared__ __align__(16) unsigned char wv_smem[];
#endif

// Per-thread lane selectors for the PRMT addressing (byte 0 of the address).
struct Lane {
  uint32_t sel32;  // lane * 4
  uint32_t sel16;  // (lane & 15) * 4
};

template <int R>
__device__ __forceinline__ uint32_t sel_of(const Lane& ln) {
  return R == 32 ? ln.sel32 : ln.sel16;
}

// Entry of table T (0..3) of a 4-table group at byte K of x.
template <class PL, int G, int T, int K>
__device__ __forceinline__ uint32_t look4(uint32_t x, const Lane& ln) {
  constexpr int R = PL::plan.R[G];
  constexpr unsigned OFF = PL::plan.off[G];
  if constexpr (R == 32) {
    const uint32_t a = __byte_perm(x, ln.sel32, 0x5504 | (K << 4));
    return *reinterpret_cast<const uint32_t*>(wv_smem + OFF + (T >> 1) * 65536 + (T & 1) * 128 + a);
  } else if constexpr (R == 16) {
    const uint32_t a = __byte_perm(x, ln.sel16, 0x5504 | (K << 4));
    return *reinterpret_cast<const uint32_t*>(wv_smem + OFF + T * 64 + a);
  } else {
    const uint32_t a = ((x >> (8 * K)) & 255u) << 2;
    return *reinterpret_cast<const uint32_t*>(wv_smem + OFF + T * 1024 + a);
  }
}
// Entry of a 1-table group at byte K of x.
template <class PL, int G, int K>
__device__ __forceinline__ uint32_t look1(uint32_t x, const Lane& ln) {
  constexpr int R = PL::plan.R[G];
  constexpr unsigned OFF = PL::plan.off[G];
  const uint32_t idx = (x >> (8 * K)) & 255u;
  uint32_t a;
  if constexpr (R == 32)
    a = (idx << 7) | ln.sel32;
  else if constexpr (R == 16)
    a = (idx << 6) | ln.sel16;
  else
    a = idx << 2;
  return *reinterpret_cast<const uint32_t*>(wv_smem + OFF + a);
}
// The source word of word i of a replicated group (R = 16 or 32): runs of R equal words.
template <int G, int R>
__device__ __forceinline__ unsigned replica_source(unsigned i) {
  if constexpr (group_is4(G) && R == 32) {
    // two regions (tables 0,1 and 2,3) of 256 rows x 64 words: [T_even x32 | T_odd x32]
    const unsigned region = i >> 14, row = (i >> 6) & 255, t = region * 2 + ((i >> 5) & 1);
    return t * 256 + row;
  } else if constexpr (group_is4(G)) {
    // 256 rows x 64 words: [T0 x16 | T1 x16 | T2 x16 | T3 x16]
    const unsigned row = i >> 6, t = (i >> 4) & 3;
    return t * 256 + row;
  } else {
    return i >> (R == 32 ? 5 : 4);  // the 1-byte entries, four to a word
  }
}

// Fill one group of the plan from its global source (cooperative; caller syncs). Every launch pays this in each
// block before any data is touched (docs/perf/design-figures.md, "GPU kernels"): a replicated group's runs of equal
// words are written four words at a time, one 16-byte store from one load, unrolled so that several loads are in
// flight before the first store waits for its value.
template <class PL, int G>
__device__ __forceinline__ void fill_group(const uint32_t* __restrict__ src) {
  constexpr int R = PL::plan.R[G];
  constexpr unsigned words = group_bytes(G, R) / 4;
  uint32_t* dst = reinterpret_cast<uint32_t*>(wv_smem + PL::plan.off[G]);
  if constexpr ((group_is4(G) || group_is1(G)) && R > 1) {
    static_assert(words % 4 == 0 && R % 4 == 0, "a 16-byte store must stay inside one run of equal words");
    uint4* d4 = reinterpret_cast<uint4*>(dst);
#pragma unroll 4
    for (unsigned j = threadIdx.x; j < words / 4; j += blockDim.x) {
      const uint32_t v = __ldg(src + replica_source<G, R>(j * 4));
      d4[j] = make_uint4(v, v, v, v);
    }
  } else {
    const uint4* s4 = reinterpret_cast<const uint4*>(src);
    uint4* d4 = reinterpret_cast<uint4*>(dst);
    for (unsigned i = threadIdx.x; i < words / 4; i += blockDim.x) d4[i] = __ldg(s4 + i);
  }
}

// ------------------------------------------------------------------ AES
template <class PL>
__device__ __forceinline__ uint4 aes_enc(uint4 in, const uint32_t* __restrict__ k, const Lane& ln) {
  constexpr int G = G_TE;
  uint32_t x0 = in.x ^ k[0], x1 = in.y ^ k[1], x2 = in.z ^ k[2], x3 = in.w ^ k[3];
#pragma unroll
  for (int r = 1; r < 14; ++r) {
    const uint32_t t0 = look4<PL, G, 0, 0>(x0, ln) ^ look4<PL, G, 1, 1>(x1, ln) ^ look4<PL, G, 2, 2>(x2, ln) ^
                        look4<PL, G, 3, 3>(x3, ln) ^ k[4 * r];
    const uint32_t t1 = look4<PL, G, 0, 0>(x1, ln) ^ look4<PL, G, 1, 1>(x2, ln) ^ look4<PL, G, 2, 2>(x3, ln) ^
                        look4<PL, G, 3, 3>(x0, ln) ^ k[4 * r + 1];
    const uint32_t t2 = look4<PL, G, 0, 0>(x2, ln) ^ look4<PL, G, 1, 1>(x3, ln) ^ look4<PL, G, 2, 2>(x0, ln) ^
                        look4<PL, G, 3, 3>(x1, ln) ^ k[4 * r + 2];
    const uint32_t t3 = look4<PL, G, 0, 0>(x3, ln) ^ look4<PL, G, 1, 1>(x0, ln) ^ look4<PL, G, 2, 2>(x1, ln) ^
                        look4<PL, G, 3, 3>(x2, ln) ^ k[4 * r + 3];
    x0 = t0;
    x1 = t1;
    x2 = t2;
    x3 = t3;
  }
  // Last round: S[x] sits in byte 0 of Te3, byte 1 of Te0, byte 2 of Te1, byte 3 of Te2.
  uint4 o;
  o.x = merge_bytes(look4<PL, G, 3, 0>(x0, ln), look4<PL, G, 0, 1>(x1, ln), look4<PL, G, 1, 2>(x2, ln),
                    look4<PL, G, 2, 3>(x3, ln)) ^ k[56];
  o.y = merge_bytes(look4<PL, G, 3, 0>(x1, ln), look4<PL, G, 0, 1>(x2, ln), look4<PL, G, 1, 2>(x3, ln),
                    look4<PL, G, 2, 3>(x0, ln)) ^ k[57];
  o.z = merge_bytes(look4<PL, G, 3, 0>(x2, ln), look4<PL, G, 0, 1>(x3, ln), look4<PL, G, 1, 2>(x0, ln),
                    look4<PL, G, 2, 3>(x1, ln)) ^ k[58];
  o.w = merge_bytes(look4<PL, G, 3, 0>(x3, ln), look4<PL, G, 0, 1>(x0, ln), look4<PL, G, 1, 2>(x1, ln),
                    look4<PL, G, 2, 3>(x2, ln)) ^ k[59];
  return o;
}

template <class PL>
__device__ __forceinline__ uint4 aes_dec(uint4 in, const uint32_t* __restrict__ k, const Lane& ln) {
  constexpr int G = G_TD;
  uint32_t x0 = in.x ^ k[0], x1 = in.y ^ k[1], x2 = in.z ^ k[2], x3 = in.w ^ k[3];
#pragma unroll
  for (int r = 1; r < 14; ++r) {
    const uint32_t t0 = look4<PL, G, 0, 0>(x0, ln) ^ look4<PL, G, 1, 1>(x3, ln) ^ look4<PL, G, 2, 2>(x2, ln) ^
                        look4<PL, G, 3, 3>(x1, ln) ^ k[4 * r];
    const uint32_t t1 = look4<PL, G, 0, 0>(x1, ln) ^ look4<PL, G, 1, 1>(x0, ln) ^ look4<PL, G, 2, 2>(x3, ln) ^
                        look4<PL, G, 3, 3>(x2, ln) ^ k[4 * r + 1];
    const uint32_t t2 = look4<PL, G, 0, 0>(x2, ln) ^ look4<PL, G, 1, 1>(x1, ln) ^ look4<PL, G, 2, 2>(x0, ln) ^
                        look4<PL, G, 3, 3>(x3, ln) ^ k[4 * r + 2];
    const uint32_t t3 = look4<PL, G, 0, 0>(x3, ln) ^ look4<PL, G, 1, 1>(x2, ln) ^ look4<PL, G, 2, 2>(x1, ln) ^
                        look4<PL, G, 3, 3>(x0, ln) ^ k[4 * r + 3];
    x0 = t0;
    x1 = t1;
    x2 = t2;
    x3 = t3;
  }
  uint4 o;
  o.x = merge_bytes(look1<PL, G_ISB, 0>(x0, ln), look1<PL, G_ISB, 1>(x3, ln), look1<PL, G_ISB, 2>(x2, ln),
                    look1<PL, G_ISB, 3>(x1, ln)) ^ k[56];
  o.y = merge_bytes(look1<PL, G_ISB, 0>(x1, ln), look1<PL, G_ISB, 1>(x0, ln), look1<PL, G_ISB, 2>(x3, ln),
                    look1<PL, G_ISB, 3>(x2, ln)) ^ k[57];
  o.z = merge_bytes(look1<PL, G_ISB, 0>(x2, ln), look1<PL, G_ISB, 1>(x1, ln), look1<PL, G_ISB, 2>(x0, ln),
                    look1<PL, G_ISB, 3>(x3, ln)) ^ k[58];
  o.w = merge_bytes(look1<PL, G_ISB, 0>(x3, ln), look1<PL, G_ISB, 1>(x2, ln), look1<PL, G_ISB, 2>(x1, ln),
                    look1<PL, G_ISB, 3>(x0, ln)) ^ k[59];
  return o;
}

// ------------------------------------------------------------------ Serpent
#define WV_SBOX_FN __device__ __forceinline__
#include "gpu/serpent_sbox.inc"
#undef WV_SBOX_FN

__device__ __forceinline__ void serpent_lt(uint32_t& x0, uint32_t& x1, uint32_t& x2, uint32_t& x3) {
  x0 = rotl(x0, 13);
  x2 = rotl(x2, 3);
  x1 = xor3(x1, x0, x2);
  x3 = xor3(x3, x2, x0 << 3);
  x1 = rotl(x1, 1);
  x3 = rotl(x3, 7);
  x0 = xor3(x0, x1, x3);
  x2 = xor3(x2, x3, x1 << 7);
  x0 = rotl(x0, 5);
  x2 = rotl(x2, 22);
}
__device__ __forceinline__ void serpent_ilt(uint32_t& x0, uint32_t& x1, uint32_t& x2, uint32_t& x3) {
  x2 = rotr(x2, 22);
  x0 = rotr(x0, 5);
  x2 = xor3(x2, x3, x1 << 7);
  x0 = xor3(x0, x1, x3);
  x3 = rotr(x3, 7);
  x1 = rotr(x1, 1);
  x3 = xor3(x3, x2, x0 << 3);
  x1 = xor3(x1, x0, x2);
  x2 = rotr(x2, 3);
  x0 = rotr(x0, 13);
}
template <int S>
__device__ __forceinline__ void serpent_sb(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
  if constexpr (S == 0) sb0(a, b, c, d);
  else if constexpr (S == 1) sb1(a, b, c, d);
  else if constexpr (S == 2) sb2(a, b, c, d);
  else if constexpr (S == 3) sb3(a, b, c, d);
  else if constexpr (S == 4) sb4(a, b, c, d);
  else if constexpr (S == 5) sb5(a, b, c, d);
  else if constexpr (S == 6) sb6(a, b, c, d);
  else sb7(a, b, c, d);
}
template <int S>
__device__ __forceinline__ void serpent_ib(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
  if constexpr (S == 0) ib0(a, b, c, d);
  else if constexpr (S == 1) ib1(a, b, c, d);
  else if constexpr (S == 2) ib2(a, b, c, d);
  else if constexpr (S == 3) ib3(a, b, c, d);
  else if constexpr (S == 4) ib4(a, b, c, d);
  else if constexpr (S == 5) ib5(a, b, c, d);
  else if constexpr (S == 6) ib6(a, b, c, d);
  else ib7(a, b, c, d);
}
template <int R>
__device__ __forceinline__ void serpent_enc_rounds(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d,
                                                   const uint32_t* __restrict__ k) {
  if constexpr (R < 32) {
    a ^= k[4 * R];
    b ^= k[4 * R + 1];
    c ^= k[4 * R + 2];
    d ^= k[4 * R + 3];
    serpent_sb<R % 8>(a, b, c, d);
    if constexpr (R < 31) serpent_lt(a, b, c, d);
    serpent_enc_rounds<R + 1>(a, b, c, d, k);
  }
}
template <int R>
__device__ __forceinline__ void serpent_dec_rounds(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d,
                                                   const uint32_t* __restrict__ k) {
  if constexpr (R >= 0) {
    if constexpr (R < 31) serpent_ilt(a, b, c, d);
    serpent_ib<R % 8>(a, b, c, d);
    a ^= k[4 * R];
    b ^= k[4 * R + 1];
    c ^= k[4 * R + 2];
    d ^= k[4 * R + 3];
    serpent_dec_rounds<R - 1>(a, b, c, d, k);
  }
}
__device__ __forceinline__ uint4 serpent_enc(uint4 in, const uint32_t* __restrict__ k) {
  uint32_t a = in.x, b = in.y, c = in.z, d = in.w;
  serpent_enc_rounds<0>(a, b, c, d, k);
  return make_uint4(a ^ k[128], b ^ k[129], c ^ k[130], d ^ k[131]);
}
__device__ __forceinline__ uint4 serpent_dec(uint4 in, const uint32_t* __restrict__ k) {
  uint32_t a = in.x ^ k[128], b = in.y ^ k[129], c = in.z ^ k[130], d = in.w ^ k[131];
  serpent_dec_rounds<31>(a, b, c, d, k);
  return make_uint4(a, b, c, d);
}

// ------------------------------------------------------------------ Twofish
template <class PL, int G>
__device__ __forceinline__ void tf_f(uint32_t a, uint32_t b, uint32_t k0, uint32_t k1, uint32_t& f0, uint32_t& f1,
                                     const Lane& ln) {
  const uint32_t t0 = look4<PL, G, 0, 0>(a, ln) ^ look4<PL, G, 1, 1>(a, ln) ^ look4<PL, G, 2, 2>(a, ln) ^
                      look4<PL, G, 3, 3>(a, ln);
  // g(rotl(b, 8)): byte 0 of the rotated word is byte 3 of b, and so on.
  const uint32_t t1 = look4<PL, G, 0, 3>(b, ln) ^ look4<PL, G, 1, 0>(b, ln) ^ look4<PL, G, 2, 1>(b, ln) ^
                      look4<PL, G, 3, 2>(b, ln);
  f0 = t0 + t1 + k0;
  f1 = t0 + 2 * t1 + k1;
}
template <class PL, int G>
__device__ __forceinline__ uint4 tf_enc(uint4 in, const uint32_t* __restrict__ k, const Lane& ln) {
  uint32_t a = in.x ^ k[0], b = in.y ^ k[1], c = in.z ^ k[2], d = in.w ^ k[3];
#pragma unroll
  for (int r = 0; r < 16; r += 2) {
    uint32_t f0, f1;
    tf_f<PL, G>(a, b, k[2 * r + 8], k[2 * r + 9], f0, f1, ln);
    c = rotr(c ^ f0, 1);
    d = rotl(d, 1) ^ f1;
    tf_f<PL, G>(c, d, k[2 * r + 10], k[2 * r + 11], f0, f1, ln);
    a = rotr(a ^ f0, 1);
    b = rotl(b, 1) ^ f1;
  }
  return make_uint4(c ^ k[4], d ^ k[5], a ^ k[6], b ^ k[7]);
}
template <class PL, int G>
__device__ __forceinline__ uint4 tf_dec(uint4 in, const uint32_t* __restrict__ k, const Lane& ln) {
  uint32_t a = in.x ^ k[4], b = in.y ^ k[5], c = in.z ^ k[6], d = in.w ^ k[7];
#pragma unroll
  for (int r = 15; r > 0; r -= 2) {
    uint32_t f0, f1;
    tf_f<PL, G>(a, b, k[2 * r + 8], k[2 * r + 9], f0, f1, ln);
    c = rotl(c, 1) ^ f0;
    d = rotr(d ^ f1, 1);
    tf_f<PL, G>(c, d, k[2 * r + 6], k[2 * r + 7], f0, f1, ln);
    a = rotl(a, 1) ^ f0;
    b = rotr(b ^ f1, 1);
  }
  return make_uint4(c ^ k[0], d ^ k[1], a ^ k[2], b ^ k[3]);
}

// ------------------------------------------------------------------ Camellia (same code both directions)
template <class PL>
__device__ __forceinline__ void cam_f(uint32_t xl, uint32_t xr, uint32_t kl, uint32_t kr, uint32_t& ol,
                                      uint32_t& orr, const Lane& ln) {
  constexpr int G = G_CAM;
  const uint32_t a = xl ^ kl, b = xr ^ kr;
  const uint32_t q = look4<PL, G, 0, 3>(a, ln) ^ look4<PL, G, 1, 2>(a, ln) ^ look4<PL, G, 2, 1>(a, ln) ^
                     look4<PL, G, 3, 0>(a, ln);
  const uint32_t p = look4<PL, G, 1, 3>(b, ln) ^ look4<PL, G, 2, 2>(b, ln) ^ look4<PL, G, 3, 1>(b, ln) ^
                     look4<PL, G, 0, 0>(b, ln);
  ol = xor3(ol, q, p);
  orr = xor3(orr, q, rotr(q, 8)) ^ p;
}
template <class PL>
__device__ __forceinline__ uint4 cam_crypt(uint4 in, const uint32_t* __restrict__ w, const Lane& ln) {
  uint32_t d0 = bswap(in.x) ^ w[0], d1 = bswap(in.y) ^ w[1], d2 = bswap(in.z) ^ w[2], d3 = bswap(in.w) ^ w[3];
#pragma unroll
  for (int blk = 0; blk < 4; ++blk) {
    const int p = 4 + 16 * blk;
#pragma unroll
    for (int i = 0; i < 12; i += 4) {
      cam_f<PL>(d0, d1, w[p + i], w[p + i + 1], d2, d3, ln);
      cam_f<PL>(d2, d3, w[p + i + 2], w[p + i + 3], d0, d1, ln);
    }
    if (blk < 3) {
      const int q = p + 12;
      d1 ^= rotl(d0 & w[q], 1);
      d0 ^= d1 | w[q + 1];
      d2 ^= d3 | w[q + 3];
      d3 ^= rotl(d2 & w[q + 2], 1);
    }
  }
  return make_uint4(bswap(d2 ^ w[64]), bswap(d3 ^ w[65]), bswap(d0 ^ w[66]), bswap(d1 ^ w[67]));
}

// ------------------------------------------------------------------ Kuznyechik
// A round is 16 lookups of 16-byte entries, one per table I (0..15) at byte I of the state: shared-memory bound. A
// warp's 16-byte load takes at least 4 wavefronts, 8 lanes each, one per quad of banks (the 16-byte columns of a
// 128-byte row); lanes of a quarter-warp on the same quad take one wavefront each. Were every lane to read one table
// at a random entry, the busiest of the 8 quads would have 2.6 of the 8 lanes on average (balls into bins), and a
// load would take 2.6 times its minimum. So the tables are interleaved, row x = [T0[x] .. T15[x]] (256 bytes),
// which puts table I in quad I & 7 of every row, and at its j-th load of each half of the round (h = 0: tables
// 0..7, 1: 8..15) lane l reads table ((l ^ j) & 7) + 8h: the 8 lanes of a quarter-warp read 8 different quads
// whatever their bytes. The XOR of a round's 16 entries does not depend on the order in which a lane reads them.
struct KuzQuads {
  uint32_t q;  // (lane & 7) << 4
  __device__ __forceinline__ explicit KuzQuads(const Lane& ln) : q((ln.sel32 << 2) & 0x70u) {}
  // The quad of the lane's j-th load in a half, << 4: also the PRMT selector that moves byte ((l ^ j) & 7) of
  // {w1:w0} (or {w3:w2}) into bits 8..15, where it indexes the 256-byte rows. (One XOR per load rather than eight
  // registers held through the rounds: the cascades' kernels are short of registers.)
  __device__ __forceinline__ uint32_t s(int j) const { return q ^ (uint32_t(j) << 4); }
};
// The byte offset in the interleaved tables of entry x (bits 8..15 of t) in quad s: x * 256 + s.
__device__ __forceinline__ uint32_t kuz_row(uint32_t t, uint32_t s) { return (t & 0xff00u) | s; }
template <class PL, int G>
__device__ __forceinline__ uint4 kuz_look(int h, uint32_t at) {
  return *reinterpret_cast<const uint4*>(wv_smem + PL::plan.off[G] + h * 128 + at);
}
// acc ^= every table of group G at its byte of the state (w0..w3).
template <class PL, int G>
__device__ __forceinline__ void kuz_acc(uint4& acc, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3,
                                        const KuzQuads& q) {
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const uint32_t t = __byte_perm(h ? w2 : w0, h ? w3 : w1, q.s(j));
      acc = acc ^ kuz_look<PL, G>(h, kuz_row(t, q.s(j)));
    }
}
template <class PL>
__device__ __forceinline__ uint4 kuz_enc(uint4 x, const uint32_t* __restrict__ k, const Lane& ln) {
  const KuzQuads q(ln);
#pragma unroll
  for (int r = 0; r < 9; ++r) {
    uint4 acc = make_uint4(0, 0, 0, 0);
    kuz_acc<PL, G_KT>(acc, x.x ^ k[4 * r], x.y ^ k[4 * r + 1], x.z ^ k[4 * r + 2], x.w ^ k[4 * r + 3], q);
    x = acc;
  }
  return make_uint4(x.x ^ k[36], x.y ^ k[37], x.z ^ k[38], x.w ^ k[39]);
}
// The first decryption round: acc ^= L^-1 S^-1 table I at S[byte I], i.e. L^-1 of the state's byte I alone.
template <class PL>
__device__ __forceinline__ void kuz_acc_s(uint4& acc, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3,
                                          const KuzQuads& q) {
  constexpr unsigned KS = PL::plan.off[G_KS8];
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const uint32_t t = __byte_perm(h ? w2 : w0, h ? w3 : w1, q.s(j));
      const uint32_t s8 = *reinterpret_cast<const uint32_t*>(wv_smem + KS + ((t >> 6) & 0x3fcu));  // S[b] << 8
      acc = acc ^ kuz_look<PL, G_KTI>(h, s8 | q.s(j));
    }
}
template <class PL>
__device__ __forceinline__ uint4 kuz_dec(uint4 x, const uint32_t* __restrict__ k, const Lane& ln) {
  const KuzQuads q(ln);
  uint4 y = make_uint4(0, 0, 0, 0);
  kuz_acc_s<PL>(y, x.x ^ k[0], x.y ^ k[1], x.z ^ k[2], x.w ^ k[3], q);
#pragma unroll
  for (int r = 1; r <= 8; ++r) {
    uint4 acc = make_uint4(k[4 * r], k[4 * r + 1], k[4 * r + 2], k[4 * r + 3]);
    kuz_acc<PL, G_KTI>(acc, y.x, y.y, y.z, y.w, q);
    y = acc;
  }
  uint4 o;
  o.x = merge_bytes(look1<PL, G_KSI, 0>(y.x, ln), look1<PL, G_KSI, 1>(y.x, ln), look1<PL, G_KSI, 2>(y.x, ln),
                    look1<PL, G_KSI, 3>(y.x, ln)) ^ k[36];
  o.y = merge_bytes(look1<PL, G_KSI, 0>(y.y, ln), look1<PL, G_KSI, 1>(y.y, ln), look1<PL, G_KSI, 2>(y.y, ln),
                    look1<PL, G_KSI, 3>(y.y, ln)) ^ k[37];
  o.z = merge_bytes(look1<PL, G_KSI, 0>(y.z, ln), look1<PL, G_KSI, 1>(y.z, ln), look1<PL, G_KSI, 2>(y.z, ln),
                    look1<PL, G_KSI, 3>(y.z, ln)) ^ k[38];
  o.w = merge_bytes(look1<PL, G_KSI, 0>(y.w, ln), look1<PL, G_KSI, 1>(y.w, ln), look1<PL, G_KSI, 2>(y.w, ln),
                    look1<PL, G_KSI, 3>(y.w, ln)) ^ k[39];
  return o;
}

// ------------------------------------------------------------------ dispatch per layer
// Block function of layer L (index Idx in the kernel) in its direction, with its data key.
template <class PL, class L, int Idx>
__device__ __forceinline__ uint4 layer_crypt(uint4 x, const LayerKey& key, const Lane& ln) {
  if constexpr (L::cipher == Cid::Aes) {
    if constexpr (L::enc) return aes_enc<PL>(x, key.k1, ln);
    else return aes_dec<PL>(x, key.k1, ln);
  } else if constexpr (L::cipher == Cid::Serpent) {
    if constexpr (L::enc) return serpent_enc(x, key.k1);
    else return serpent_dec(x, key.k1);
  } else if constexpr (L::cipher == Cid::Twofish) {
    if constexpr (L::enc) return tf_enc<PL, G_TF + 2 * Idx>(x, key.k1, ln);
    else return tf_dec<PL, G_TF + 2 * Idx>(x, key.k1, ln);
  } else if constexpr (L::cipher == Cid::Camellia) {
    return cam_crypt<PL>(x, key.k1, ln);
  } else {
    if constexpr (L::enc) return kuz_enc<PL>(x, key.k1, ln);
    else return kuz_dec<PL>(x, key.k1, ln);
  }
}
// E_K2 of layer L (always encryption, tweak key tables for Twofish).
template <class PL, class L, int Idx>
__device__ __forceinline__ uint4 layer_tweak(uint4 x, const LayerKey& key, const Lane& ln) {
  if constexpr (L::cipher == Cid::Aes) return aes_enc<PL>(x, key.k2, ln);
  else if constexpr (L::cipher == Cid::Serpent) return serpent_enc(x, key.k2);
  else if constexpr (L::cipher == Cid::Twofish) return tf_enc<PL, G_TF + 2 * Idx + 1>(x, key.k2, ln);
  else if constexpr (L::cipher == Cid::Camellia) return cam_crypt<PL>(x, key.k2, ln);
  else return kuz_enc<PL>(x, key.k2, ln);
}

template <class PL, class L, int Idx>
__device__ __forceinline__ void fill_layer(const uint32_t* __restrict__ tabs, const LayerKey& key) {
  if constexpr (L::cipher == Cid::Twofish) {
    fill_group<PL, G_TF + 2 * Idx>(key.tf1);
    fill_group<PL, G_TF + 2 * Idx + 1>(key.tf2);
  }
}
template <class PL>
__device__ __forceinline__ void fill_common(const uint32_t* __restrict__ tabs) {
  if constexpr (PL::plan.R[G_TE] != 0) fill_group<PL, G_TE>(tabs + src::kAesTe);
  if constexpr (PL::plan.R[G_TD] != 0) fill_group<PL, G_TD>(tabs + src::kAesTd);
  if constexpr (PL::plan.R[G_ISB] != 0) fill_group<PL, G_ISB>(tabs + src::kAesIsb);
  if constexpr (PL::plan.R[G_CAM] != 0) fill_group<PL, G_CAM>(tabs + src::kCamSp);
  if constexpr (PL::plan.R[G_KT] != 0) fill_group<PL, G_KT>(tabs + src::kKuzT);
  if constexpr (PL::plan.R[G_KTI] != 0) fill_group<PL, G_KTI>(tabs + src::kKuzTi);
  if constexpr (PL::plan.R[G_KS8] != 0) fill_group<PL, G_KS8>(tabs + src::kKuzS8);
  if constexpr (PL::plan.R[G_KSI] != 0) fill_group<PL, G_KSI>(tabs + src::kKuzSi);
}

template <int NL>
struct Params {
  uint4* data;
  unsigned long long unit0;
  unsigned long long nunits;
  const uint32_t* tabs;
  unsigned tile;  // data units per warp work item, 1..kUnitsPerTile
  LayerKey key[NL];
};

// Compile-time loops over the layer list.
template <class LL>
struct LayerOps;
template <class... L>
struct LayerOps<Layers<L...>> {
  template <class PL, int NL>
  static __device__ __forceinline__ void fill(const Params<NL>& p) {
    fill_common<PL>(p.tabs);
    fill_each<PL, NL, 0, L...>(p);
  }
  template <class PL, int NL, int I, class H, class... T>
  static __device__ __forceinline__ void fill_each(const Params<NL>& p) {
    fill_layer<PL, H, I>(p.tabs, p.key[I]);
    if constexpr (sizeof...(T) > 0) fill_each<PL, NL, I + 1, T...>(p);
  }
  template <class PL, int NL>
  static __device__ __forceinline__ void tweaks(uint4 (&tw)[NL], uint4 x, const Params<NL>& p, const Lane& ln) {
    tweak_each<PL, NL, 0, L...>(tw, x, p, ln);
  }
  template <class PL, int NL, int I, class H, class... T>
  static __device__ __forceinline__ void tweak_each(uint4 (&tw)[NL], uint4 x, const Params<NL>& p,
                                                    const Lane& ln) {
    tw[I] = layer_tweak<PL, H, I>(x, p.key[I], ln);
    if constexpr (sizeof...(T) > 0) tweak_each<PL, NL, I + 1, T...>(tw, x, p, ln);
  }
  // All layers on one block; tw[i] = this block's tweak of layer i.
  template <class PL, int NL>
  static __device__ __forceinline__ uint4 apply(uint4 x, const uint4 (&tw)[NL], const Params<NL>& p,
                                                const Lane& ln) {
    return apply_each<PL, NL, 0, L...>(x, tw, p, ln);
  }
  template <class PL, int NL, int I, class H, class... T>
  static __device__ __forceinline__ uint4 apply_each(uint4 x, const uint4 (&tw)[NL], const Params<NL>& p,
                                                     const Lane& ln) {
    x = layer_crypt<PL, H, I>(x ^ tw[I], p.key[I], ln) ^ tw[I];
    if constexpr (sizeof...(T) > 0) return apply_each<PL, NL, I + 1, T...>(x, tw, p, ln);
    else return x;
  }
};

#ifndef WV_HOST_EMULATION
__device__ __forceinline__ uint4 shfl4(uint4 v, int src) {
  return make_uint4(__shfl_sync(0xffffffffu, v.x, src), __shfl_sync(0xffffffffu, v.y, src),
                    __shfl_sync(0xffffffffu, v.z, src), __shfl_sync(0xffffffffu, v.w, src));
}

// The shipped fused kernel.
template <class LL, int THREADS>
__global__ void __launch_bounds__(THREADS) xts_kernel(const __grid_constant__ Params<LL::n> p) {
  using PL = PlanOf<LL>;
  constexpr int NL = LL::n;
  LayerOps<LL>::template fill<PL, NL>(p);
  __syncthreads();

  const uint32_t lane = threadIdx.x & 31;
  const Lane ln{lane * 4, (lane & 15) * 4};
  const unsigned long long ntiles = (p.nunits + p.tile - 1) / p.tile;
  const unsigned long long nwarps = (unsigned long long)gridDim.x * (THREADS / 32);
  for (unsigned long long tile = (unsigned long long)blockIdx.x * (THREADS / 32) + threadIdx.x / 32; tile < ntiles;
       tile += nwarps) {
    const unsigned long long ubase = tile * p.tile;
    const unsigned long long unit = p.unit0 + ubase + lane;  // lanes >= p.tile compute a tweak nobody uses
    uint4 tw[NL];
    LayerOps<LL>::template tweaks<PL, NL>(tw, make_uint4(uint32_t(unit), uint32_t(unit >> 32), 0, 0), p, ln);
    const unsigned long long left = p.nunits - ubase;
    const int cnt = left < p.tile ? int(left) : int(p.tile);
    uint4* ptr = p.data + ubase * 32 + lane;
    uint4 cur = __ldcs(ptr);
    for (int u = 0; u < cnt; ++u) {
      uint4 nxt = cur;
      if (u + 1 < cnt) nxt = __ldcs(ptr + (u + 1) * 32);
      uint4 t[NL];
#pragma unroll
      for (int l = 0; l < NL; ++l) t[l] = mul_alpha_pow(shfl4(tw[l], u), lane);
      __stcs(ptr + u * 32, LayerOps<LL>::template apply<PL, NL>(cur, t, p, ln));
      cur = nxt;
    }
  }
}

template <class LL, int THREADS>
cudaError_t launch_xts(const KernelArgs& a, int grid, cudaStream_t s) {
  Params<LL::n> p;
  p.data = a.data;
  p.unit0 = a.unit0;
  p.nunits = a.nunits;
  p.tabs = a.tables;
  p.tile = a.tile;
  for (int i = 0; i < LL::n; ++i) p.key[i] = a.keys[i];
  xts_kernel<LL, THREADS><<<grid, THREADS, PlanOf<LL>::plan.total, s>>>(p);
  return cudaGetLastError();
}

template <class LL>
struct Describe;
template <class... L>
struct Describe<Layers<L...>> {
  static void fill(KernelInfo& k) {
    const CipherId c[] = {L::cipher...};
    const bool e[] = {L::enc...};
    for (int i = 0; i < int(sizeof...(L)); ++i) {
      k.cipher[i] = c[i];
      k.enc[i] = e[i];
    }
  }
};

template <class LL, int THREADS = kThreads>
KernelInfo make_info() {
  KernelInfo k{reinterpret_cast<const void*>(&xts_kernel<LL, THREADS>), LL::n, PlanOf<LL>::plan.total, THREADS,
               &launch_xts<LL, THREADS>};
  Describe<LL>::fill(k);
  return k;
}
#endif  // !WV_HOST_EMULATION

// ------------------------------------------------------------------ chains as layer lists
template <class A, class B>
struct Concat;
template <class... A, class... B>
struct Concat<Layers<A...>, Layers<B...>> {
  using type = Layers<A..., B...>;
};
template <class LL>
struct Reverse;
template <>
struct Reverse<Layers<>> {
  using type = Layers<>;
};
template <class H, class... T>
struct Reverse<Layers<H, T...>> {
  using type = typename Concat<typename Reverse<Layers<T...>>::type, Layers<H>>::type;
};
template <class LL>
struct Inverse;
template <class... L>
struct Inverse<Layers<L...>> {
  using type = typename Reverse<Layers<Layer<L::cipher, !L::enc>...>>::type;
};

template <Cid... C>
using Enc = Layers<Layer<C, true>...>;

// Encryption order of each chain (docs/format-spec.md 6.3), keyed by enumerator (never by numeric id). The engine
// checks these lists against chain_info() at start-up (KernelInfo::cipher / enc).
template <ChainId C>
struct ChainEnc;
template <> struct ChainEnc<ChainId::Aes> { using type = Enc<Cid::Aes>; };
template <> struct ChainEnc<ChainId::Serpent> { using type = Enc<Cid::Serpent>; };
template <> struct ChainEnc<ChainId::Twofish> { using type = Enc<Cid::Twofish>; };
template <> struct ChainEnc<ChainId::Camellia> { using type = Enc<Cid::Camellia>; };
template <> struct ChainEnc<ChainId::Kuznyechik> { using type = Enc<Cid::Kuznyechik>; };
template <> struct ChainEnc<ChainId::AesTwofish> { using type = Enc<Cid::Twofish, Cid::Aes>; };
template <> struct ChainEnc<ChainId::AesTwofishSerpent> { using type = Enc<Cid::Serpent, Cid::Twofish, Cid::Aes>; };
template <> struct ChainEnc<ChainId::SerpentAes> { using type = Enc<Cid::Aes, Cid::Serpent>; };
template <> struct ChainEnc<ChainId::SerpentTwofishAes> { using type = Enc<Cid::Aes, Cid::Twofish, Cid::Serpent>; };
template <> struct ChainEnc<ChainId::TwofishSerpent> { using type = Enc<Cid::Serpent, Cid::Twofish>; };
template <> struct ChainEnc<ChainId::CamelliaKuznyechik> { using type = Enc<Cid::Kuznyechik, Cid::Camellia>; };
template <> struct ChainEnc<ChainId::KuznyechikTwofish> { using type = Enc<Cid::Twofish, Cid::Kuznyechik>; };
template <> struct ChainEnc<ChainId::CamelliaSerpent> { using type = Enc<Cid::Serpent, Cid::Camellia>; };
template <> struct ChainEnc<ChainId::KuznyechikAes> { using type = Enc<Cid::Aes, Cid::Kuznyechik>; };
template <> struct ChainEnc<ChainId::KuznyechikSerpentCamellia> {
  using type = Enc<Cid::Camellia, Cid::Serpent, Cid::Kuznyechik>;
};

template <ChainId C>
using EncOf = typename ChainEnc<C>::type;
template <ChainId C>
using DecOf = typename Inverse<EncOf<C>>::type;
template <ChainId From, ChainId To>
using ReencOf = typename Concat<DecOf<From>, EncOf<To>>::type;

// Calls f.template operator()<C>() for the chain `c` (a run-time id), returns its result.
#define WV_FOR_CHAIN(c, F)                                          \
  switch (c) {                                                      \
    case ChainId::Aes: return F(ChainId::Aes);                      \
    case ChainId::Serpent: return F(ChainId::Serpent);              \
    case ChainId::Twofish: return F(ChainId::Twofish);              \
    case ChainId::Camellia: return F(ChainId::Camellia);            \
    case ChainId::Kuznyechik: return F(ChainId::Kuznyechik);        \
    case ChainId::AesTwofish: return F(ChainId::AesTwofish);        \
    case ChainId::AesTwofishSerpent: return F(ChainId::AesTwofishSerpent); \
    case ChainId::SerpentAes: return F(ChainId::SerpentAes);        \
    case ChainId::SerpentTwofishAes: return F(ChainId::SerpentTwofishAes); \
    case ChainId::TwofishSerpent: return F(ChainId::TwofishSerpent); \
    case ChainId::CamelliaKuznyechik: return F(ChainId::CamelliaKuznyechik); \
    case ChainId::KuznyechikTwofish: return F(ChainId::KuznyechikTwofish); \
    case ChainId::CamelliaSerpent: return F(ChainId::CamelliaSerpent); \
    case ChainId::KuznyechikAes: return F(ChainId::KuznyechikAes);  \
    case ChainId::KuznyechikSerpentCamellia: return F(ChainId::KuznyechikSerpentCamellia); \
  }

}  // namespace warpvol::gpu::dev
