// Twofish-256 key schedule (from the Twofish paper, Schneier et al. 1998) producing the MDS-combined S-box tables,
// and single-block functions over them. Portable flags.
#include <cstring>

#include "core/crypto/simd/twofish_xts.h"
#include "core/util/bytes.h"

namespace warpvol::simd::twofish {

namespace {

// The 4-bit permutations t0..t3 defining q0 and q1 (paper, section 4.3.5).
constexpr uint8_t kQt[2][4][16] = {
    {{0x8, 0x1, 0x7, 0xD, 0x6, 0xF, 0x3, 0x2, 0x0, 0xB, 0x5, 0x9, 0xE, 0xC, 0xA, 0x4},
     {0xE, 0xC, 0xB, 0x8, 0x1, 0x2, 0x3, 0x5, 0xF, 0x4, 0xA, 0x6, 0x7, 0x0, 0x9, 0xD},
     {0xB, 0xA, 0x5, 0xE, 0x6, 0xD, 0x9, 0x0, 0xC, 0x8, 0xF, 0x3, 0x2, 0x4, 0x7, 0x1},
     {0xD, 0x7, 0xF, 0x4, 0x1, 0x2, 0x6, 0xE, 0x9, 0xB, 0x3, 0x0, 0x8, 0x5, 0xC, 0xA}},
    {{0x2, 0x8, 0xB, 0xD, 0xF, 0x7, 0x6, 0xE, 0x3, 0x1, 0x9, 0x4, 0x0, 0xA, 0xC, 0x5},
     {0x1, 0xE, 0x2, 0xB, 0x4, 0xC, 0x3, 0x7, 0x6, 0xD, 0xA, 0x5, 0xF, 0x9, 0x0, 0x8},
     {0x4, 0xC, 0x7, 0x5, 0x1, 0x6, 0x9, 0xA, 0x0, 0xE, 0xD, 0x8, 0x2, 0xB, 0x3, 0xF},
     {0xB, 0x9, 0x5, 0x1, 0xC, 0x3, 0xD, 0xE, 0x6, 0x4, 0x7, 0xF, 0x2, 0x0, 0x8, 0xA}}};

constexpr uint8_t ror4(uint8_t x) { return uint8_t(((x >> 1) | (x << 3)) & 15); }

constexpr uint8_t q_eval(int which, uint8_t x) {
  const auto& t = kQt[which];
  uint8_t a = x >> 4, b = x & 15;
  uint8_t a1 = a ^ b, b1 = uint8_t(a ^ ror4(b) ^ ((8 * a) & 15));
  uint8_t a2 = t[0][a1], b2 = t[1][b1];
  uint8_t a3 = a2 ^ b2, b3 = uint8_t(a2 ^ ror4(b2) ^ ((8 * a2) & 15));
  return uint8_t(t[3][b3] << 4 | t[2][a3]);
}

struct QTables {
  uint8_t q[2][256];
  constexpr QTables() : q{} {
    for (int w = 0; w < 2; ++w)
      for (int x = 0; x < 256; ++x) q[w][x] = q_eval(w, uint8_t(x));
  }
};
constexpr QTables kQ;
static_assert(kQ.q[0][0] == 0xA9 && kQ.q[1][0] == 0x75, "q0/q1 as in the Twofish paper's tables");

// Multiplication in GF(2^8) modulo the given polynomial (MDS: 0x169, RS: 0x14D).
constexpr uint8_t gf_mul(uint8_t a, uint8_t b, unsigned poly) {
  unsigned r = 0, x = a;
  for (int i = 0; i < 8; ++i) {
    if ((b >> i) & 1) r ^= x;
    x <<= 1;
    if (x & 0x100) x ^= poly;
  }
  return uint8_t(r);
}

constexpr uint8_t kMds[4][4] = {
    {0x01, 0xEF, 0x5B, 0x5B}, {0x5B, 0xEF, 0xEF, 0x01}, {0xEF, 0x5B, 0x01, 0xEF}, {0xEF, 0x01, 0xEF, 0x5B}};
constexpr uint8_t kRs[4][8] = {{0x01, 0xA4, 0x55, 0x87, 0x5A, 0x58, 0xDB, 0x9E},
                               {0xA4, 0x56, 0x82, 0xF3, 0x1E, 0xC6, 0x68, 0xE5},
                               {0x02, 0xA1, 0xFC, 0xC1, 0x47, 0xAE, 0x3D, 0x19},
                               {0xA4, 0x55, 0x87, 0x5A, 0x58, 0xDB, 0x9E, 0x03}};

uint32_t mds_column(int j, uint8_t y) {
  uint32_t z = 0;
  for (int i = 0; i < 4; ++i) z |= uint32_t(gf_mul(kMds[i][j], y, 0x169)) << (8 * i);
  return z;
}

uint8_t byte_of(uint32_t w, int j) { return uint8_t(w >> (8 * j)); }

// The keyed S-box of byte position j of h(X, L) for a 256-bit key (k = 4), before the MDS multiply.
uint8_t keyed_sbox(int j, uint8_t x, const uint32_t* L) {
  const auto& q = kQ.q;
  // stage 4 -> 3
  static constexpr int s3[4] = {1, 0, 0, 1};
  static constexpr int s2[4] = {1, 1, 0, 0};
  static constexpr int s1[4] = {0, 1, 0, 1};  // q applied before XOR with L1
  static constexpr int s0[4] = {0, 0, 1, 1};  // q applied before XOR with L0
  static constexpr int sf[4] = {1, 0, 1, 0};  // final q
  uint8_t y = q[s3[j]][x] ^ byte_of(L[3], j);
  y = q[s2[j]][y] ^ byte_of(L[2], j);
  y = q[s1[j]][y] ^ byte_of(L[1], j);
  y = q[s0[j]][y] ^ byte_of(L[0], j);
  return q[sf[j]][y];
}

uint32_t h(uint32_t x, const uint32_t* L) {
  uint32_t z = 0;
  for (int j = 0; j < 4; ++j) z ^= mds_column(j, keyed_sbox(j, byte_of(x, j), L));
  return z;
}

uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

uint32_t g(const TwofishKey* k, uint32_t x) {
  return k->s[0][x & 0xff] ^ k->s[1][(x >> 8) & 0xff] ^ k->s[2][(x >> 16) & 0xff] ^ k->s[3][x >> 24];
}

}  // namespace

void expand_key(const uint8_t* key, TwofishKey* out) {
  uint32_t m[8], me[4], mo[4], s[4];
  for (int i = 0; i < 8; ++i) m[i] = load_le32(key + 4 * i);
  for (int i = 0; i < 4; ++i) {
    me[i] = m[2 * i];
    mo[i] = m[2 * i + 1];
    uint32_t w = 0;  // S_i = RS * key bytes 8i..8i+7 (mod 0x14D)
    for (int r = 0; r < 4; ++r) {
      uint8_t acc = 0;
      for (int c = 0; c < 8; ++c) acc ^= gf_mul(kRs[r][c], key[8 * i + c], 0x14D);
      w |= uint32_t(acc) << (8 * r);
    }
    s[i] = w;
  }
  // g uses h(X, S) with the list (S_3, S_2, S_1, S_0).
  const uint32_t sl[4] = {s[3], s[2], s[1], s[0]};
  for (int j = 0; j < 4; ++j)
    for (int x = 0; x < 256; ++x) {
      out->sbox[j][x] = keyed_sbox(j, uint8_t(x), sl);
      out->s[j][x] = mds_column(j, out->sbox[j][x]);
    }
  constexpr uint32_t rho = 0x01010101;
  for (int i = 0; i < 20; ++i) {
    const uint32_t a = h(uint32_t(2 * i) * rho, me);
    const uint32_t b = rotl(h(uint32_t(2 * i + 1) * rho, mo), 8);
    out->k[2 * i] = a + b;
    out->k[2 * i + 1] = rotl(a + 2 * b, 9);
  }
  volatile uint32_t* wipe[] = {m, me, mo, s};
  for (auto* p : wipe)
    for (int i = 0; i < 4; ++i) p[i] = 0;
  volatile uint32_t* mm = m;
  for (int i = 4; i < 8; ++i) mm[i] = 0;
}

void encrypt_block(const TwofishKey* k, const uint8_t* in, uint8_t* out) {
  uint32_t r[4];
  for (int i = 0; i < 4; ++i) r[i] = load_le32(in + 4 * i) ^ k->k[i];
  for (int rd = 0; rd < 16; ++rd) {
    const uint32_t t0 = g(k, r[0]), t1 = g(k, rotl(r[1], 8));
    r[2] = rotr(r[2] ^ (t0 + t1 + k->k[2 * rd + 8]), 1);
    r[3] = rotl(r[3], 1) ^ (t0 + 2 * t1 + k->k[2 * rd + 9]);
    if (rd != 15) {
      uint32_t a = r[0], b = r[1];
      r[0] = r[2], r[1] = r[3], r[2] = a, r[3] = b;
    }
  }
  // No swap after the 16th round (the paper's output whitening "undoes the last swap"): C_i = R_i ^ K_{i+4}.
  for (int i = 0; i < 4; ++i) store_le32(out + 4 * i, r[i] ^ k->k[i + 4]);
}

void decrypt_block(const TwofishKey* k, const uint8_t* in, uint8_t* out) {
  uint32_t r[4];
  for (int i = 0; i < 4; ++i) r[i] = load_le32(in + 4 * i) ^ k->k[i + 4];
  for (int rd = 15; rd >= 0; --rd) {
    const uint32_t t0 = g(k, r[0]), t1 = g(k, rotl(r[1], 8));
    r[2] = rotl(r[2], 1) ^ (t0 + t1 + k->k[2 * rd + 8]);
    r[3] = rotr(r[3] ^ (t0 + 2 * t1 + k->k[2 * rd + 9]), 1);
    if (rd != 0) {
      uint32_t a = r[0], b = r[1];
      r[0] = r[2], r[1] = r[3], r[2] = a, r[3] = b;
    }
  }
  for (int i = 0; i < 4; ++i) store_le32(out + 4 * i, r[i] ^ k->k[i]);
}

}  // namespace warpvol::simd::twofish
