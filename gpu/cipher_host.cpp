// Host key schedules, key-independent tables and reference block functions for the CUDA kernels (see the header).
// Written from the cipher specifications (FIPS-197, Serpent AES submission, RFC 3713; Twofish's key schedule and
// Kuznyechik's pi and L come from core); checked against Crypto++ and the VeraCrypt known-answer vectors by
// tests/xts/test_gpu_engine.cpp.
#include "gpu/cipher_host.h"

#include <cstring>
#include <stdexcept>

#include "core/crypto/kuznyechik.h"
#include "core/crypto/simd/twofish_xts.h"
#include "core/util/secure.h"

namespace warpvol::gpu::host {
namespace {

inline uint32_t rotl32(uint32_t x, int n) { return n == 0 ? x : (x << n) | (x >> (32 - n)); }
inline uint32_t rotr32(uint32_t x, int n) { return n == 0 ? x : (x >> n) | (x << (32 - n)); }
inline uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | uint32_t(p[3]) << 24; }
inline void st_le32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
  p[2] = uint8_t(v >> 16);
  p[3] = uint8_t(v >> 24);
}
inline uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | p[1] << 16 | p[2] << 8 | p[3]; }
inline uint64_t be64(const uint8_t* p) { return uint64_t(be32(p)) << 32 | be32(p + 4); }
inline void st_be64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (56 - 8 * i));
}

// GF(2^8) multiplication modulo the polynomial `poly` (with the x^8 bit).
inline uint8_t gf_mul(uint8_t a, uint8_t b, unsigned poly) {
  unsigned r = 0, x = a;
  while (b) {
    if (b & 1) r ^= x;
    x <<= 1;
    if (x & 0x100) x ^= poly;
    b >>= 1;
  }
  return uint8_t(r);
}

// ---------------------------------------------------------------- Serpent S-boxes (bitslice order)
const uint8_t kSerpentS[8][16] = {
    {3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12}, {15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4},
    {8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2}, {0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14},
    {1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13}, {15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1},
    {7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0}, {1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6},
};

void serpent_sbox(const uint8_t* S, uint32_t x[4]) {
  uint32_t y[4] = {0, 0, 0, 0};
  for (int b = 0; b < 32; ++b) {
    unsigned n = ((x[0] >> b) & 1) | ((x[1] >> b) & 1) << 1 | ((x[2] >> b) & 1) << 2 | ((x[3] >> b) & 1) << 3;
    unsigned o = S[n];
    for (int j = 0; j < 4; ++j) y[j] |= uint32_t((o >> j) & 1) << b;
  }
  for (int j = 0; j < 4; ++j) x[j] = y[j];
}

// ---------------------------------------------------------------- Camellia
const uint8_t kCamSbox1[256] = {
    112, 130, 44,  236, 179, 39,  192, 229, 228, 133, 87,  53,  234, 12,  174, 65,  35,  239, 107, 147, 69,  25,
    165, 33,  237, 14,  79,  78,  29,  101, 146, 189, 134, 184, 175, 143, 124, 235, 31,  206, 62,  48,  220, 95,
    94,  197, 11,  26,  166, 225, 57,  202, 213, 71,  93,  61,  217, 1,   90,  214, 81,  86,  108, 77,  139, 13,
    154, 102, 251, 204, 176, 45,  116, 18,  43,  32,  240, 177, 132, 153, 223, 76,  203, 194, 52,  126, 118, 5,
    109, 183, 169, 49,  209, 23,  4,   215, 20,  88,  58,  97,  222, 27,  17,  28,  50,  15,  156, 22,  83,  24,
    242, 34,  254, 68,  207, 178, 195, 181, 122, 145, 36,  8,   232, 168, 96,  252, 105, 80,  170, 208, 160, 125,
    161, 137, 98,  151, 84,  91,  30,  149, 224, 255, 100, 210, 16,  196, 0,   72,  163, 247, 117, 219, 138, 3,
    230, 218, 9,   63,  221, 148, 135, 92,  131, 2,   205, 74,  144, 51,  115, 103, 246, 243, 157, 127, 191, 226,
    82,  155, 216, 38,  200, 55,  198, 59,  129, 150, 111, 75,  19,  190, 99,  46,  233, 121, 167, 140, 159, 110,
    188, 142, 41,  245, 249, 182, 47,  253, 180, 89,  120, 152, 6,   106, 231, 70,  113, 186, 212, 37,  171, 66,
    136, 162, 141, 250, 114, 7,   185, 85,  248, 238, 172, 10,  54,  73,  42,  104, 60,  56,  241, 164, 64,  40,
    211, 123, 187, 201, 67,  193, 21,  227, 173, 244, 119, 199, 128, 158};

inline uint8_t rotl8(uint8_t x, int n) { return uint8_t((x << n) | (x >> (8 - n))); }
inline uint8_t cam_s1(uint8_t x) { return kCamSbox1[x]; }
inline uint8_t cam_s2(uint8_t x) { return rotl8(kCamSbox1[x], 1); }
inline uint8_t cam_s3(uint8_t x) { return rotl8(kCamSbox1[x], 7); }
inline uint8_t cam_s4(uint8_t x) { return kCamSbox1[rotl8(x, 1)]; }

// Plain RFC 3713 F-function on 64-bit halves (used by the key schedule; the block functions use the SP tables).
uint64_t cam_F(uint64_t in, uint64_t k) {
  uint64_t x = in ^ k;
  uint8_t t[8];
  for (int i = 0; i < 8; ++i) t[i] = uint8_t(x >> (56 - 8 * i));
  uint8_t y1 = cam_s1(t[0]), y2 = cam_s2(t[1]), y3 = cam_s3(t[2]), y4 = cam_s4(t[3]);
  uint8_t y5 = cam_s2(t[4]), y6 = cam_s3(t[5]), y7 = cam_s4(t[6]), y8 = cam_s1(t[7]);
  uint8_t z[8];
  z[0] = y1 ^ y3 ^ y4 ^ y6 ^ y7 ^ y8;
  z[1] = y1 ^ y2 ^ y4 ^ y5 ^ y7 ^ y8;
  z[2] = y1 ^ y2 ^ y3 ^ y5 ^ y6 ^ y8;
  z[3] = y2 ^ y3 ^ y4 ^ y5 ^ y6 ^ y7;
  z[4] = y1 ^ y2 ^ y6 ^ y7 ^ y8;
  z[5] = y2 ^ y3 ^ y5 ^ y7 ^ y8;
  z[6] = y3 ^ y4 ^ y5 ^ y6 ^ y8;
  z[7] = y1 ^ y4 ^ y5 ^ y6 ^ y7;
  uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r = r << 8 | z[i];
  return r;
}

struct U128 {
  uint64_t hi, lo;
};
U128 rotl128(U128 v, int n) {
  n &= 127;
  if (n >= 64) {
    std::swap(v.hi, v.lo);
    n -= 64;
  }
  if (n == 0) return v;
  return {v.hi << n | v.lo >> (64 - n), v.lo << n | v.hi >> (64 - n)};
}

void camellia_schedule(const uint8_t key[32], uint64_t kw[4], uint64_t k[24], uint64_t ke[6]) {
  const uint64_t S1 = 0xA09E667F3BCC908BULL, S2 = 0xB67AE8584CAA73B2ULL, S3 = 0xC6EF372FE94F82BEULL,
                 S4 = 0x54FF53A5F1D36F1CULL, S5 = 0x10E527FADE682D1DULL, S6 = 0xB05688C2B3E6C1FDULL;
  U128 KL{be64(key), be64(key + 8)}, KR{be64(key + 16), be64(key + 24)};
  uint64_t D1 = KL.hi ^ KR.hi, D2 = KL.lo ^ KR.lo;
  D2 ^= cam_F(D1, S1);
  D1 ^= cam_F(D2, S2);
  D1 ^= KL.hi;
  D2 ^= KL.lo;
  D2 ^= cam_F(D1, S3);
  D1 ^= cam_F(D2, S4);
  U128 KA{D1, D2};
  D1 = KA.hi ^ KR.hi;
  D2 = KA.lo ^ KR.lo;
  D2 ^= cam_F(D1, S5);
  D1 ^= cam_F(D2, S6);
  U128 KB{D1, D2};
  auto pair = [](U128 v, int n, uint64_t& a, uint64_t& b) {
    U128 r = rotl128(v, n);
    a = r.hi;
    b = r.lo;
  };
  pair(KL, 0, kw[0], kw[1]);
  pair(KB, 0, k[0], k[1]);
  pair(KR, 15, k[2], k[3]);
  pair(KA, 15, k[4], k[5]);
  pair(KR, 30, ke[0], ke[1]);
  pair(KB, 30, k[6], k[7]);
  pair(KL, 45, k[8], k[9]);
  pair(KA, 45, k[10], k[11]);
  pair(KL, 60, ke[2], ke[3]);
  pair(KR, 60, k[12], k[13]);
  pair(KB, 60, k[14], k[15]);
  pair(KL, 77, k[16], k[17]);
  pair(KA, 77, ke[4], ke[5]);
  pair(KR, 94, k[18], k[19]);
  pair(KA, 94, k[20], k[21]);
  pair(KL, 111, k[22], k[23]);
  pair(KB, 111, kw[2], kw[3]);
}

// ---------------------------------------------------------------- Kuznyechik
// pi and the linear map L come from core/crypto/kuznyechik.h (kuznyechik::kPi, transform_l, transform_l_inv).

// ---------------------------------------------------------------- Twofish
// The key schedule is core's (core/crypto/simd/twofish_xts.h, checked there against Crypto++ and the ECB vectors):
// its 40 subkeys and MDS-folded g() tables are exactly the form the kernels consume.
inline uint32_t tf_g(const Sched& s, uint32_t x) {
  return s.tf_sbox[0][x & 255] ^ s.tf_sbox[1][(x >> 8) & 255] ^ s.tf_sbox[2][(x >> 16) & 255] ^
         s.tf_sbox[3][x >> 24];
}

void twofish_schedule(const uint8_t key[32], Sched& s) {
  simd::twofish::TwofishKey k;
  simd::twofish::expand_key(key, &k);
  std::memcpy(s.w, k.k, sizeof k.k);
  std::memcpy(s.tf_sbox, k.s, sizeof k.s);
  secure_wipe(&k, sizeof k);
}

// ---------------------------------------------------------------- AES
void aes_schedule(const uint8_t key[32], uint32_t rk[60]) {
  const Tables& T = tables();
  for (int i = 0; i < 8; ++i) rk[i] = le32(key + 4 * i);
  uint8_t rc = 1;
  for (int i = 8; i < 60; ++i) {
    uint32_t t = rk[i - 1];
    auto sub = [&](uint32_t v) {
      return uint32_t(T.aes_s[v & 255]) | uint32_t(T.aes_s[(v >> 8) & 255]) << 8 |
             uint32_t(T.aes_s[(v >> 16) & 255]) << 16 | uint32_t(T.aes_s[v >> 24]) << 24;
    };
    if (i % 8 == 0) {
      t = sub(rotr32(t, 8)) ^ rc;
      rc = gf_mul(rc, 2, 0x11B);
    } else if (i % 8 == 4) {
      t = sub(t);
    }
    rk[i] = rk[i - 8] ^ t;
  }
}

Tables* build_tables() {
  auto* T = new Tables;
  // AES S-box from inversion + affine map.
  for (int x = 0; x < 256; ++x) {
    uint8_t inv = 0;
    if (x)
      for (int y = 1; y < 256; ++y)
        if (gf_mul(uint8_t(x), uint8_t(y), 0x11B) == 1) inv = uint8_t(y);
    uint8_t s = inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63;
    T->aes_s[x] = s;
    T->aes_si[s] = uint8_t(x);
  }
  for (int x = 0; x < 256; ++x) {
    uint8_t s = T->aes_s[x], si = T->aes_si[x];
    uint32_t te = uint32_t(gf_mul(s, 2, 0x11B)) | uint32_t(s) << 8 | uint32_t(s) << 16 |
                  uint32_t(gf_mul(s, 3, 0x11B)) << 24;
    uint32_t td = uint32_t(gf_mul(si, 14, 0x11B)) | uint32_t(gf_mul(si, 9, 0x11B)) << 8 |
                  uint32_t(gf_mul(si, 13, 0x11B)) << 16 | uint32_t(gf_mul(si, 11, 0x11B)) << 24;
    for (int r = 0; r < 4; ++r) {
      T->aes_te[r][x] = rotl32(te, 8 * r);
      T->aes_td[r][x] = rotl32(td, 8 * r);
    }
    T->aes_isb[x] = uint32_t(si) * 0x01010101u;
  }
  // Camellia SP tables: U = SP1110[x1]^SP0222[x2]^SP3033[x3]^SP4404[x4] (big-endian byte patterns).
  for (int x = 0; x < 256; ++x) {
    uint32_t s1 = cam_s1(uint8_t(x)), s2 = cam_s2(uint8_t(x)), s3 = cam_s3(uint8_t(x)), s4 = cam_s4(uint8_t(x));
    T->cam_sp[0][x] = s1 << 24 | s1 << 16 | s1 << 8;
    T->cam_sp[1][x] = s2 << 16 | s2 << 8 | s2;
    T->cam_sp[2][x] = s3 << 24 | s3 << 8 | s3;
    T->cam_sp[3][x] = s4 << 24 | s4 << 16 | s4;
  }
  // Kuznyechik.
  for (int x = 0; x < 256; ++x) {
    T->kuz_pi[x] = kuznyechik::kPi[x];
    T->kuz_pi_inv[kuznyechik::kPi[x]] = uint8_t(x);
  }
  for (int x = 0; x < 256; ++x) {
    T->kuz_s[x] = T->kuz_pi[x];
    T->kuz_si[x] = T->kuz_pi_inv[x];
  }
  uint8_t img[256][16], img_inv[256][16];
  for (int i = 0; i < 16; ++i) {
    kuznyechik::single_byte_images(false, i, img);
    kuznyechik::single_byte_images(true, i, img_inv);
    for (int x = 0; x < 256; ++x)
      for (int k = 0; k < 4; ++k) {
        T->kuz_t[i][x][k] = le32(img[T->kuz_pi[x]] + 4 * k);
        T->kuz_ti[i][x][k] = le32(img_inv[T->kuz_pi_inv[x]] + 4 * k);
      }
  }
  return T;
}

void kuz_schedule(const uint8_t key[32], uint8_t K[10][16]) {
  const Tables& T = tables();
  std::memcpy(K[0], key, 16);
  std::memcpy(K[1], key + 16, 16);
  uint8_t a1[16], a0[16];
  std::memcpy(a1, K[0], 16);
  std::memcpy(a0, K[1], 16);
  for (int i = 0; i < 4; ++i) {
    for (int j = 1; j <= 8; ++j) {
      uint8_t C[16] = {};
      C[15] = uint8_t(8 * i + j);
      kuznyechik::transform_l(C);
      uint8_t t[16];
      for (int b = 0; b < 16; ++b) t[b] = T.kuz_pi[a1[b] ^ C[b]];
      kuznyechik::transform_l(t);
      for (int b = 0; b < 16; ++b) t[b] ^= a0[b];
      std::memcpy(a0, a1, 16);
      std::memcpy(a1, t, 16);
    }
    std::memcpy(K[2 * i + 2], a1, 16);
    std::memcpy(K[2 * i + 3], a0, 16);
  }
}

inline void put128(uint32_t* w, const uint8_t b[16]) {
  for (int k = 0; k < 4; ++k) w[k] = le32(b + 4 * k);
}
inline void get128(const uint32_t* w, uint8_t b[16]) {
  for (int k = 0; k < 4; ++k) st_le32(b + 4 * k, w[k]);
}

}  // namespace

const Tables& tables() {
  static const Tables* t = build_tables();
  return *t;
}

void expand_key(CipherId c, const uint8_t key[32], bool encrypt, Sched& s) {
  std::memset(&s, 0, sizeof s);
  const Tables& T = tables();
  switch (c) {
    case CipherId::Aes: {
      uint32_t rk[60];
      aes_schedule(key, rk);
      if (encrypt) {
        std::memcpy(s.w, rk, sizeof rk);
      } else {
        auto imc = [&](uint32_t v) {
          return T.aes_td[0][T.aes_s[v & 255]] ^ T.aes_td[1][T.aes_s[(v >> 8) & 255]] ^
                 T.aes_td[2][T.aes_s[(v >> 16) & 255]] ^ T.aes_td[3][T.aes_s[v >> 24]];
        };
        for (int r = 0; r <= 14; ++r)
          for (int c2 = 0; c2 < 4; ++c2) {
            uint32_t v = rk[4 * (14 - r) + c2];
            s.w[4 * r + c2] = (r == 0 || r == 14) ? v : imc(v);
          }
      }
      break;
    }
    case CipherId::Serpent: {
      uint32_t w[140];
      for (int i = 0; i < 8; ++i) w[i] = le32(key + 4 * i);
      for (int i = 0; i < 132; ++i)
        w[i + 8] = rotl32(w[i] ^ w[i + 3] ^ w[i + 5] ^ w[i + 7] ^ 0x9e3779b9u ^ uint32_t(i), 11);
      for (int i = 0; i <= 32; ++i) {
        uint32_t x[4] = {w[8 + 4 * i], w[9 + 4 * i], w[10 + 4 * i], w[11 + 4 * i]};
        serpent_sbox(kSerpentS[(32 + 3 - i) % 8], x);
        for (int k = 0; k < 4; ++k) s.w[4 * i + k] = x[k];
      }
      break;
    }
    case CipherId::Twofish:
      twofish_schedule(key, s);
      break;
    case CipherId::Camellia: {
      uint64_t kw[4], k[24], ke[6];
      camellia_schedule(key, kw, k, ke);
      uint64_t seq[34];
      int n = 0;
      if (encrypt) {
        seq[n++] = kw[0];
        seq[n++] = kw[1];
        for (int blk = 0; blk < 4; ++blk) {
          for (int i = 0; i < 6; ++i) seq[n++] = k[6 * blk + i];
          if (blk < 3) {
            seq[n++] = ke[2 * blk];
            seq[n++] = ke[2 * blk + 1];
          }
        }
        seq[n++] = kw[2];
        seq[n++] = kw[3];
      } else {
        seq[n++] = kw[2];
        seq[n++] = kw[3];
        for (int blk = 0; blk < 4; ++blk) {
          for (int i = 0; i < 6; ++i) seq[n++] = k[23 - (6 * blk + i)];
          if (blk < 3) {
            seq[n++] = ke[5 - 2 * blk];
            seq[n++] = ke[4 - 2 * blk];
          }
        }
        seq[n++] = kw[0];
        seq[n++] = kw[1];
      }
      for (int i = 0; i < 34; ++i) {
        s.w[2 * i] = uint32_t(seq[i] >> 32);
        s.w[2 * i + 1] = uint32_t(seq[i]);
      }
      break;
    }
    case CipherId::Kuznyechik: {
      uint8_t K[10][16];
      kuz_schedule(key, K);
      if (encrypt) {
        for (int i = 0; i < 10; ++i) put128(s.w + 4 * i, K[i]);
      } else {
        put128(s.w, K[9]);
        for (int i = 1; i <= 8; ++i) {
          uint8_t t[16];
          std::memcpy(t, K[9 - i], 16);
          kuznyechik::transform_l_inv(t);
          put128(s.w + 4 * i, t);
        }
        put128(s.w + 36, K[0]);
      }
      break;
    }
  }
}

void encrypt_block(CipherId c, const Sched& s, uint8_t blk[16]) {
  const Tables& T = tables();
  switch (c) {
    case CipherId::Aes: {
      uint32_t x[4], t[4];
      for (int k = 0; k < 4; ++k) x[k] = le32(blk + 4 * k) ^ s.w[k];
      for (int r = 1; r < 14; ++r) {
        for (int k = 0; k < 4; ++k)
          t[k] = T.aes_te[0][x[k] & 255] ^ T.aes_te[1][(x[(k + 1) & 3] >> 8) & 255] ^
                 T.aes_te[2][(x[(k + 2) & 3] >> 16) & 255] ^ T.aes_te[3][x[(k + 3) & 3] >> 24] ^ s.w[4 * r + k];
        std::memcpy(x, t, sizeof t);
      }
      for (int k = 0; k < 4; ++k)
        t[k] = (uint32_t(T.aes_s[x[k] & 255]) | uint32_t(T.aes_s[(x[(k + 1) & 3] >> 8) & 255]) << 8 |
                uint32_t(T.aes_s[(x[(k + 2) & 3] >> 16) & 255]) << 16 |
                uint32_t(T.aes_s[x[(k + 3) & 3] >> 24]) << 24) ^
               s.w[56 + k];
      for (int k = 0; k < 4; ++k) st_le32(blk + 4 * k, t[k]);
      break;
    }
    case CipherId::Serpent: {
      uint32_t x[4];
      for (int k = 0; k < 4; ++k) x[k] = le32(blk + 4 * k);
      for (int r = 0; r < 32; ++r) {
        for (int k = 0; k < 4; ++k) x[k] ^= s.w[4 * r + k];
        serpent_sbox(kSerpentS[r % 8], x);
        if (r < 31) {
          x[0] = rotl32(x[0], 13);
          x[2] = rotl32(x[2], 3);
          x[1] ^= x[0] ^ x[2];
          x[3] ^= x[2] ^ (x[0] << 3);
          x[1] = rotl32(x[1], 1);
          x[3] = rotl32(x[3], 7);
          x[0] ^= x[1] ^ x[3];
          x[2] ^= x[3] ^ (x[1] << 7);
          x[0] = rotl32(x[0], 5);
          x[2] = rotl32(x[2], 22);
        }
      }
      for (int k = 0; k < 4; ++k) x[k] ^= s.w[128 + k];
      for (int k = 0; k < 4; ++k) st_le32(blk + 4 * k, x[k]);
      break;
    }
    case CipherId::Twofish: {
      uint32_t R[4];
      for (int k = 0; k < 4; ++k) R[k] = le32(blk + 4 * k) ^ s.w[k];
      for (int r = 0; r < 16; ++r) {
        uint32_t T0 = tf_g(s, R[0]), T1 = tf_g(s, rotl32(R[1], 8));
        uint32_t F0 = T0 + T1 + s.w[2 * r + 8], F1 = T0 + 2 * T1 + s.w[2 * r + 9];
        uint32_t n2 = rotr32(R[2] ^ F0, 1), n3 = rotl32(R[3], 1) ^ F1;
        R[2] = R[0];
        R[3] = R[1];
        R[0] = n2;
        R[1] = n3;
      }
      for (int k = 0; k < 4; ++k) st_le32(blk + 4 * k, R[(k + 2) & 3] ^ s.w[k + 4]);
      break;
    }
    case CipherId::Camellia: {
      // Same code for both directions (the schedule is reversed for decryption).
      auto F = [&](uint32_t xl, uint32_t xr, uint32_t kl, uint32_t kr, uint32_t& ol, uint32_t& orr) {
        uint32_t a = xl ^ kl, b = xr ^ kr;
        uint32_t q = T.cam_sp[0][a >> 24] ^ T.cam_sp[1][(a >> 16) & 255] ^ T.cam_sp[2][(a >> 8) & 255] ^
                     T.cam_sp[3][a & 255];
        uint32_t p = T.cam_sp[1][b >> 24] ^ T.cam_sp[2][(b >> 16) & 255] ^ T.cam_sp[3][(b >> 8) & 255] ^
                     T.cam_sp[0][b & 255];
        ol ^= q ^ p;
        orr ^= q ^ rotr32(q, 8) ^ p;
      };
      uint32_t d[4];
      for (int k = 0; k < 4; ++k) d[k] = be32(blk + 4 * k);
      const uint32_t* w = s.w;
      d[0] ^= w[0];
      d[1] ^= w[1];
      d[2] ^= w[2];
      d[3] ^= w[3];
      int p = 4;
      for (int blk6 = 0; blk6 < 4; ++blk6) {
        for (int i = 0; i < 6; i += 2) {
          F(d[0], d[1], w[p], w[p + 1], d[2], d[3]);
          F(d[2], d[3], w[p + 2], w[p + 3], d[0], d[1]);
          p += 4;
        }
        if (blk6 < 3) {
          // FL on (d0,d1) with ke_odd, FL^-1 on (d2,d3) with ke_even.
          d[1] ^= rotl32(d[0] & w[p], 1);
          d[0] ^= d[1] | w[p + 1];
          d[2] ^= d[3] | w[p + 3];
          d[3] ^= rotl32(d[2] & w[p + 2], 1);
          p += 4;
        }
      }
      d[2] ^= w[p];
      d[3] ^= w[p + 1];
      d[0] ^= w[p + 2];
      d[1] ^= w[p + 3];
      uint8_t out[16];
      st_be64(out, uint64_t(d[2]) << 32 | d[3]);
      st_be64(out + 8, uint64_t(d[0]) << 32 | d[1]);
      std::memcpy(blk, out, 16);
      break;
    }
    case CipherId::Kuznyechik: {
      uint8_t x[16];
      std::memcpy(x, blk, 16);
      for (int r = 0; r < 9; ++r) {
        uint8_t k[16];
        get128(s.w + 4 * r, k);
        for (int b = 0; b < 16; ++b) x[b] = T.kuz_pi[x[b] ^ k[b]];
        kuznyechik::transform_l(x);
      }
      uint8_t k[16];
      get128(s.w + 36, k);
      for (int b = 0; b < 16; ++b) blk[b] = x[b] ^ k[b];
      break;
    }
  }
}

void decrypt_block(CipherId c, const Sched& s, uint8_t blk[16]) {
  const Tables& T = tables();
  switch (c) {
    case CipherId::Aes: {
      uint32_t x[4], t[4];
      for (int k = 0; k < 4; ++k) x[k] = le32(blk + 4 * k) ^ s.w[k];
      for (int r = 1; r < 14; ++r) {
        for (int k = 0; k < 4; ++k)
          t[k] = T.aes_td[0][x[k] & 255] ^ T.aes_td[1][(x[(k + 3) & 3] >> 8) & 255] ^
                 T.aes_td[2][(x[(k + 2) & 3] >> 16) & 255] ^ T.aes_td[3][x[(k + 1) & 3] >> 24] ^ s.w[4 * r + k];
        std::memcpy(x, t, sizeof t);
      }
      for (int k = 0; k < 4; ++k)
        t[k] = (uint32_t(T.aes_si[x[k] & 255]) | uint32_t(T.aes_si[(x[(k + 3) & 3] >> 8) & 255]) << 8 |
                uint32_t(T.aes_si[(x[(k + 2) & 3] >> 16) & 255]) << 16 |
                uint32_t(T.aes_si[x[(k + 1) & 3] >> 24]) << 24) ^
               s.w[56 + k];
      for (int k = 0; k < 4; ++k) st_le32(blk + 4 * k, t[k]);
      break;
    }
    case CipherId::Serpent: {
      uint8_t inv[8][16];
      for (int i = 0; i < 8; ++i)
        for (int x = 0; x < 16; ++x) inv[i][kSerpentS[i][x]] = uint8_t(x);
      uint32_t x[4];
      for (int k = 0; k < 4; ++k) x[k] = le32(blk + 4 * k) ^ s.w[128 + k];
      for (int r = 31; r >= 0; --r) {
        if (r < 31) {
          x[2] = rotr32(x[2], 22);
          x[0] = rotr32(x[0], 5);
          x[2] ^= x[3] ^ (x[1] << 7);
          x[0] ^= x[1] ^ x[3];
          x[3] = rotr32(x[3], 7);
          x[1] = rotr32(x[1], 1);
          x[3] ^= x[2] ^ (x[0] << 3);
          x[1] ^= x[0] ^ x[2];
          x[2] = rotr32(x[2], 3);
          x[0] = rotr32(x[0], 13);
        }
        serpent_sbox(inv[r % 8], x);
        for (int k = 0; k < 4; ++k) x[k] ^= s.w[4 * r + k];
      }
      for (int k = 0; k < 4; ++k) st_le32(blk + 4 * k, x[k]);
      break;
    }
    case CipherId::Twofish: {
      uint32_t a = le32(blk) ^ s.w[4], b = le32(blk + 4) ^ s.w[5], c2 = le32(blk + 8) ^ s.w[6],
               d = le32(blk + 12) ^ s.w[7];
      for (int r = 15; r >= 0; --r) {
        uint32_t T0 = tf_g(s, a), T1 = tf_g(s, rotl32(b, 8));
        uint32_t F0 = T0 + T1 + s.w[2 * r + 8], F1 = T0 + 2 * T1 + s.w[2 * r + 9];
        c2 = rotl32(c2, 1) ^ F0;
        d = rotr32(d ^ F1, 1);
        if (r > 0) {
          std::swap(a, c2);
          std::swap(b, d);
        }
      }
      st_le32(blk, a ^ s.w[0]);
      st_le32(blk + 4, b ^ s.w[1]);
      st_le32(blk + 8, c2 ^ s.w[2]);
      st_le32(blk + 12, d ^ s.w[3]);
      break;
    }
    case CipherId::Camellia:
      encrypt_block(c, s, blk);  // decryption schedule
      break;
    case CipherId::Kuznyechik: {
      uint8_t x[16], y[16], k[16];
      get128(s.w, k);
      for (int b = 0; b < 16; ++b) x[b] = T.kuz_pi[blk[b] ^ k[b]];
      // y = XOR_i TI_i[x_i]  (= L^-1(ct ^ K10))
      auto tround = [&](const uint8_t* in, uint8_t* out, const uint32_t* key) {
        uint32_t acc[4] = {0, 0, 0, 0};
        if (key)
          for (int q = 0; q < 4; ++q) acc[q] = key[q];
        for (int i = 0; i < 16; ++i)
          for (int q = 0; q < 4; ++q) acc[q] ^= T.kuz_ti[i][in[i]][q];
        get128(acc, out);
      };
      tround(x, y, nullptr);
      for (int r = 1; r <= 8; ++r) {
        tround(y, x, s.w + 4 * r);
        std::memcpy(y, x, 16);
      }
      get128(s.w + 36, k);
      for (int b = 0; b < 16; ++b) blk[b] = T.kuz_pi_inv[y[b]] ^ k[b];
      break;
    }
  }
}

}  // namespace warpvol::gpu::host
