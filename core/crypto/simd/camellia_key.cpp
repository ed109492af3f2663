// Camellia-256 key schedule (RFC 3713) and a scalar one-block pass over a schedule. Portable flags.
#include <cstring>

#include "core/crypto/simd/camellia_consts.h"
#include "core/crypto/simd/camellia_xts.h"

namespace warpvol::simd::camellia {

namespace {

uint8_t rotl8(uint8_t x, int n) { return uint8_t((x << n) | (x >> (8 - n))); }
uint8_t sbox(int s, uint8_t x) {
  switch (s) {
    case 1: return kSbox1[x];
    case 2: return rotl8(kSbox1[x], 1);
    case 3: return rotl8(kSbox1[x], 7);
    default: return kSbox1[rotl8(x, 1)];
  }
}

uint64_t f(uint64_t in, uint64_t k) {
  const uint64_t x = in ^ k;
  static constexpr int kWhich[8] = {1, 2, 3, 4, 2, 3, 4, 1};
  uint8_t t[9];
  for (int i = 1; i <= 8; ++i) t[i] = sbox(kWhich[i - 1], uint8_t(x >> (64 - 8 * i)));
  const uint8_t y[8] = {
      uint8_t(t[1] ^ t[3] ^ t[4] ^ t[6] ^ t[7] ^ t[8]), uint8_t(t[1] ^ t[2] ^ t[4] ^ t[5] ^ t[7] ^ t[8]),
      uint8_t(t[1] ^ t[2] ^ t[3] ^ t[5] ^ t[6] ^ t[8]), uint8_t(t[2] ^ t[3] ^ t[4] ^ t[5] ^ t[6] ^ t[7]),
      uint8_t(t[1] ^ t[2] ^ t[6] ^ t[7] ^ t[8]),        uint8_t(t[2] ^ t[3] ^ t[5] ^ t[7] ^ t[8]),
      uint8_t(t[3] ^ t[4] ^ t[5] ^ t[6] ^ t[8]),        uint8_t(t[1] ^ t[4] ^ t[5] ^ t[6] ^ t[7])};
  uint64_t out = 0;
  for (int i = 0; i < 8; ++i) out = out << 8 | y[i];
  return out;
}

uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

uint64_t fl(uint64_t in, uint64_t ke) {
  uint32_t x1 = uint32_t(in >> 32), x2 = uint32_t(in);
  const uint32_t k1 = uint32_t(ke >> 32), k2 = uint32_t(ke);
  x2 ^= rotl32(x1 & k1, 1);
  x1 ^= (x2 | k2);
  return uint64_t(x1) << 32 | x2;
}

uint64_t flinv(uint64_t in, uint64_t ke) {
  uint32_t y1 = uint32_t(in >> 32), y2 = uint32_t(in);
  const uint32_t k1 = uint32_t(ke >> 32), k2 = uint32_t(ke);
  y1 ^= (y2 | k2);
  y2 ^= rotl32(y1 & k1, 1);
  return uint64_t(y1) << 32 | y2;
}

uint64_t load_be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}
void store_be64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (56 - 8 * i));
}

// 128-bit value (hi, lo) rotated left by n (0 <= n < 128); returns the (hi, lo) halves.
void rotl128(uint64_t hi, uint64_t lo, int n, uint64_t* oh, uint64_t* ol) {
  if (n >= 64) {
    const uint64_t t = hi;
    hi = lo;
    lo = t;
    n -= 64;
  }
  if (n == 0) {
    *oh = hi, *ol = lo;
    return;
  }
  *oh = (hi << n) | (lo >> (64 - n));
  *ol = (lo << n) | (hi >> (64 - n));
}

}  // namespace

void expand_key(const uint8_t* key, CamelliaSchedule* enc, CamelliaSchedule* dec) {
  constexpr uint64_t kSigma[6] = {0xA09E667F3BCC908Bull, 0xB67AE8584CAA73B2ull, 0xC6EF372FE94F82BEull,
                                  0x54FF53A5F1D36F1Cull, 0x10E527FADE682D1Dull, 0xB05688C2B3E6C1FDull};
  uint64_t kl[2] = {load_be64(key), load_be64(key + 8)};
  uint64_t kr[2] = {load_be64(key + 16), load_be64(key + 24)};
  uint64_t d1 = kl[0] ^ kr[0], d2 = kl[1] ^ kr[1];
  d2 ^= f(d1, kSigma[0]);
  d1 ^= f(d2, kSigma[1]);
  d1 ^= kl[0];
  d2 ^= kl[1];
  d2 ^= f(d1, kSigma[2]);
  d1 ^= f(d2, kSigma[3]);
  uint64_t ka[2] = {d1, d2};
  d1 = ka[0] ^ kr[0];
  d2 = ka[1] ^ kr[1];
  d2 ^= f(d1, kSigma[4]);
  d1 ^= f(d2, kSigma[5]);
  uint64_t kb[2] = {d1, d2};

  // RFC 3713 section 2.2, 256-bit key: (source, rotation) for each pair of subkeys, in the order of use.
  struct Pair {
    uint64_t* src;
    int rot;
  };
  const Pair pairs[17] = {{kl, 0},  {kb, 0},  {kr, 15}, {ka, 15}, {kr, 30}, {kb, 30},  {kl, 45},  {ka, 45}, {kl, 60},
                          {kr, 60}, {kb, 60}, {kl, 77}, {ka, 77}, {kr, 94}, {ka, 94}, {kl, 111}, {kb, 111}};
  // pairs: kw1kw2, k1k2, k3k4, k5k6, ke1ke2, k7k8, k9k10, k11k12, ke3ke4, k13k14, k15k16, k17k18, ke5ke6,
  //        k19k20, k21k22, k23k24, kw3kw4 -- exactly the order a pass uses them.
  uint64_t sk[kSubkeys];
  for (int i = 0; i < 17; ++i) rotl128(pairs[i].src[0], pairs[i].src[1], pairs[i].rot, &sk[2 * i], &sk[2 * i + 1]);
  for (int i = 0; i < kSubkeys; ++i) store_be64(enc->sk[i], sk[i]);
  // Decryption: the same pass with kw3/kw4 first, k24..k1, ke6..ke1, kw1/kw2 last.
  uint64_t ds[kSubkeys];
  ds[0] = sk[32], ds[1] = sk[33];  // kw3, kw4
  ds[32] = sk[0], ds[33] = sk[1];  // kw1, kw2
  for (int i = 2; i < 32; ++i) ds[i] = sk[33 - i];
  for (int i = 0; i < kSubkeys; ++i) store_be64(dec->sk[i], ds[i]);
  volatile uint64_t* w[] = {sk, ds};
  for (auto* p : w)
    for (int i = 0; i < kSubkeys; ++i) p[i] = 0;
  volatile uint64_t* halves[] = {kl, kr, ka, kb};
  for (auto* p : halves) {
    p[0] = 0;
    p[1] = 0;
  }
}

void crypt_block(const CamelliaSchedule* s, const uint8_t* in, uint8_t* out) {
  auto k = [&](int i) { return load_be64(s->sk[i]); };
  uint64_t d1 = load_be64(in) ^ k(0), d2 = load_be64(in + 8) ^ k(1);
  int i = 2;
  for (int block = 0; block < 4; ++block) {
    for (int r = 0; r < 3; ++r) {
      d2 ^= f(d1, k(i++));
      d1 ^= f(d2, k(i++));
    }
    if (block < 3) {
      d1 = fl(d1, k(i++));
      d2 = flinv(d2, k(i++));
    }
  }
  d2 ^= k(32);
  d1 ^= k(33);
  store_be64(out, d2);
  store_be64(out + 8, d1);
}

}  // namespace warpvol::simd::camellia
