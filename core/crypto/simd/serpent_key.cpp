// Serpent-256 key schedule and single-block functions in scalar code (portable flags). The block functions run the
// same round code as the SIMD kernels (serpent_kernel.h) on a one-lane "vector".
#include <cstring>

#include "core/crypto/simd/serpent_kernel.h"
#include "core/crypto/simd/serpent_xts.h"
#include "core/util/bytes.h"

namespace warpvol::simd::serpent {

namespace {

struct Scalar {
  uint32_t v;
  static constexpr bool kTernlog = false;
  static Scalar set1(uint32_t w) { return {w}; }
  friend Scalar operator^(Scalar a, Scalar b) { return {a.v ^ b.v}; }
  friend Scalar operator&(Scalar a, Scalar b) { return {a.v & b.v}; }
  friend Scalar operator|(Scalar a, Scalar b) { return {a.v | b.v}; }
  friend Scalar operator~(Scalar a) { return {~a.v}; }
  Scalar& operator^=(Scalar b) { v ^= b.v; return *this; }
  Scalar& operator&=(Scalar b) { v &= b.v; return *this; }
  Scalar& operator|=(Scalar b) { v |= b.v; return *this; }
  template <int n>
  static Scalar rotl(Scalar a) { return {(a.v << n) | (a.v >> (32 - n))}; }
  template <int n>
  static Scalar shl(Scalar a) { return {a.v << n}; }
  static Scalar xor3(Scalar a, Scalar b, Scalar c) { return {a.v ^ b.v ^ c.v}; }
};

template <int S>
void apply_sbox(uint32_t* w) {
  Scalar a{w[0]}, b{w[1]}, c{w[2]}, d{w[3]};
  Kernel<Scalar>::sbox<S>(a, b, c, d);
  w[0] = a.v, w[1] = b.v, w[2] = c.v, w[3] = d.v;
}

}  // namespace

void expand_key(const uint8_t* key, uint32_t* rk) {
  // Prekeys w_{-8..-1} = the key as 8 little-endian words (a 256-bit key needs no padding), then
  // w_i = (w_{i-8} ^ w_{i-5} ^ w_{i-3} ^ w_{i-1} ^ phi ^ i) <<< 11, and subkey K_i = S_{(3 - i) mod 8}(w_{4i..4i+3}).
  uint32_t w[8 + kRoundKeyWords];
  for (int i = 0; i < 8; ++i) w[i] = load_le32(key + 4 * i);
  for (int i = 0; i < kRoundKeyWords; ++i) {
    const uint32_t t = w[i] ^ w[i + 3] ^ w[i + 5] ^ w[i + 7] ^ 0x9e3779b9u ^ uint32_t(i);
    w[i + 8] = (t << 11) | (t >> 21);
  }
  for (int i = 0; i < 33; ++i) {
    uint32_t* k = w + 8 + 4 * i;
    switch ((35 - i) % 8) {
      case 0: apply_sbox<0>(k); break;
      case 1: apply_sbox<1>(k); break;
      case 2: apply_sbox<2>(k); break;
      case 3: apply_sbox<3>(k); break;
      case 4: apply_sbox<4>(k); break;
      case 5: apply_sbox<5>(k); break;
      case 6: apply_sbox<6>(k); break;
      default: apply_sbox<7>(k); break;
    }
  }
  std::memcpy(rk, w + 8, sizeof(uint32_t) * kRoundKeyWords);
  volatile uint32_t* vw = w;
  for (size_t i = 0; i < sizeof w / sizeof w[0]; ++i) vw[i] = 0;
}

void encrypt_block(const uint32_t* rk, const uint8_t* in, uint8_t* out) {
  Scalar x[1][4];
  for (int i = 0; i < 4; ++i) x[0][i].v = load_le32(in + 4 * i);
  Kernel<Scalar>::encrypt<1>(x, rk);
  for (int i = 0; i < 4; ++i) store_le32(out + 4 * i, x[0][i].v);
}

void decrypt_block(const uint32_t* rk, const uint8_t* in, uint8_t* out) {
  Scalar x[1][4];
  for (int i = 0; i < 4; ++i) x[0][i].v = load_le32(in + 4 * i);
  Kernel<Scalar>::decrypt<1>(x, rk);
  for (int i = 0; i < 4; ++i) store_le32(out + 4 * i, x[0][i].v);
}

}  // namespace warpvol::simd::serpent
