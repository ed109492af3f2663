// Kuznyechik (GOST R 34.12-2015, RFC 7801), hand-written: Crypto++ has no Kuznyechik. Byte order and table layout
// are described in kuznyechik.h. Encryption: x ^= K_1, then 9 times x = LS(x) ^ K_{i+1} through the 16 enc tables.
// Decryption: the L^-1 S^-1 tables with the L^-1-transformed round keys (see detail::decrypt_regs in the header).
#include "core/crypto/kuznyechik.h"

#include <emmintrin.h>

#include <cstring>

#include "core/util/secure.h"

namespace warpvol {
namespace kuznyechik {

namespace {

uint8_t linear(const uint8_t* b) {
  uint8_t x = 0;
  for (int k = 0; k < 16; ++k) x ^= gf_mul(b[k], kLinear[k]);
  return x;
}

// Tables plus the 32 key-schedule constants C_i = L(Vec128(i)).
struct Precomputed {
  Tables t;
  alignas(16) uint8_t c[32][16];
};

inline __m128i load16(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline void store16(void* p, __m128i v) { _mm_storeu_si128(static_cast<__m128i*>(p), v); }

const Precomputed& precomputed() {
  static const Precomputed* p = [] {
    auto* pc = new Precomputed;
    alignas(16) uint8_t img[256][16];
    for (int k = 0; k < 16; ++k) {
      single_byte_images(false, k, img);
      for (int v = 0; v < 256; ++v) std::memcpy(pc->t.enc[k][v], img[kPi[v]], 16);
      // Vec128(i+1): the number i+1 in the last byte (least significant last), so C_i is a row of position 15.
      if (k == 15)
        for (int i = 0; i < 32; ++i) std::memcpy(pc->c[i], img[i + 1], 16);
      single_byte_images(true, k, img);
      for (int v = 0; v < 256; ++v) std::memcpy(pc->t.dec[k][v], img[kPiInv.v[v]], 16);
    }
    return pc;
  }();
  return *p;
}

using detail::table_round;

template <int N>
inline void encrypt_n(const Tables& t, const RoundKeys& rk, const uint8_t* in, uint8_t* out) {
  __m128i x[N];
  for (int j = 0; j < N; ++j) x[j] = load16(in + 16 * j);
  detail::encrypt_regs<N>(t, rk, x);
  for (int j = 0; j < N; ++j) store16(out + 16 * j, x[j]);
}

template <int N>
inline void decrypt_n(const Tables& t, const RoundKeys& rk, const uint8_t* in, uint8_t* out) {
  __m128i x[N];
  for (int j = 0; j < N; ++j) x[j] = load16(in + 16 * j);
  detail::decrypt_regs<N>(t, rk, x);
  for (int j = 0; j < N; ++j) store16(out + 16 * j, x[j]);
}

class KuznyechikCipher final : public BlockCipher {
 public:
  explicit KuznyechikCipher(const uint8_t* key) { expand_key(key, rk_); }
  ~KuznyechikCipher() override { secure_wipe(&rk_, sizeof rk_); }
  CipherId id() const override { return CipherId::Kuznyechik; }
  void encrypt(const uint8_t* in, uint8_t* out, size_t n) const override { encrypt_blocks(rk_, in, out, n); }
  void decrypt(const uint8_t* in, uint8_t* out, size_t n) const override { decrypt_blocks(rk_, in, out, n); }

 private:
  RoundKeys rk_;
};

}  // namespace

const uint8_t* pi_inv() { return kPiInv.v; }

void transform_s(uint8_t* b) {
  for (int i = 0; i < 16; ++i) b[i] = kPi[b[i]];
}
void transform_s_inv(uint8_t* b) {
  for (int i = 0; i < 16; ++i) b[i] = kPiInv.v[b[i]];
}
void transform_r(uint8_t* b) {
  const uint8_t x = linear(b);
  std::memmove(b + 1, b, 15);
  b[0] = x;
}
void transform_r_inv(uint8_t* b) {
  // R^-1(b) = (b[1], ..., b[15], l(b[1], ..., b[15], b[0])).
  uint8_t v[16];
  std::memcpy(v, b + 1, 15);
  v[15] = b[0];
  const uint8_t x = linear(v);
  std::memmove(b, b + 1, 15);
  b[15] = x;
}
void transform_l(uint8_t* b) {
  for (int i = 0; i < 16; ++i) transform_r(b);
}
void transform_l_inv(uint8_t* b) {
  for (int i = 0; i < 16; ++i) transform_r_inv(b);
}

// L and L^-1 are linear over GF(2^8) (each R step sums products of the bytes with constants), so the image of
// y * e_k (the block with byte k = y, others 0) is y times the image of e_k, byte by byte; and multiplying by y is
// linear over GF(2): the XOR of the products by y's bits, x^i * image(e_k). So a row takes one transform and 255
// XORs, where transforming each of the 256 blocks took 16 R steps of 16 products each: on every process's first
// Kuznyechik key, milliseconds before its first byte.
void single_byte_images(bool inverse, int k, uint8_t out[256][16]) {
  uint8_t basis[8][16] = {};
  basis[0][k] = 1;
  inverse ? transform_l_inv(basis[0]) : transform_l(basis[0]);
  for (int i = 1; i < 8; ++i)
    for (int j = 0; j < 16; ++j) basis[i][j] = gf_mul(basis[i - 1][j], 2);
  std::memset(out[0], 0, 16);
  for (int y = 1; y < 256; ++y) {
    const int bit = __builtin_ctz(unsigned(y));
    for (int j = 0; j < 16; ++j) out[y][j] = out[y & (y - 1)][j] ^ basis[bit][j];
  }
}

const Tables& tables() { return precomputed().t; }

void expand_key(const uint8_t* key32, RoundKeys& rk) {
  const Precomputed& pc = precomputed();
  __m128i a1 = load16(key32), a0 = load16(key32 + 16);
  store16(rk.enc[0], a1);
  store16(rk.enc[1], a0);
  // (a1, a0) -> (LSX[C](a1) ^ a0, a1), 8 times per pair of round keys.
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 8; ++j) {
      const __m128i t = _mm_xor_si128(table_round(pc.t.enc, _mm_xor_si128(a1, load16(pc.c[8 * i + j]))), a0);
      a0 = a1;
      a1 = t;
    }
    store16(rk.enc[2 * i + 2], a1);
    store16(rk.enc[2 * i + 3], a0);
  }
  std::memcpy(rk.dec[0], rk.enc[0], 16);
  std::memcpy(rk.dec[9], rk.enc[9], 16);
  for (int i = 1; i <= 8; ++i) {
    std::memcpy(rk.dec[i], rk.enc[i], 16);
    transform_l_inv(rk.dec[i]);
  }
  secure_wipe(&a1, sizeof a1);
  secure_wipe(&a0, sizeof a0);
}

void encrypt_blocks(const RoundKeys& rk, const uint8_t* in, uint8_t* out, size_t n) {
  const Tables& t = tables();
  for (; n >= 4; n -= 4, in += 64, out += 64) encrypt_n<4>(t, rk, in, out);
  for (; n; --n, in += 16, out += 16) encrypt_n<1>(t, rk, in, out);
}

void decrypt_blocks(const RoundKeys& rk, const uint8_t* in, uint8_t* out, size_t n) {
  const Tables& t = tables();
  for (; n >= 4; n -= 4, in += 64, out += 64) decrypt_n<4>(t, rk, in, out);
  for (; n; --n, in += 16, out += 16) decrypt_n<1>(t, rk, in, out);
}

}  // namespace kuznyechik

std::unique_ptr<BlockCipher> make_kuznyechik(const uint8_t* key32) {
  return std::make_unique<kuznyechik::KuznyechikCipher>(key32);
}

}  // namespace warpvol
