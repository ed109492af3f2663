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
    for (int k = 0; k < 16; ++k) {
      for (int v = 0; v < 256; ++v) {
        uint8_t b[16] = {};
        b[k] = kPi[v];
        transform_l(b);
        std::memcpy(pc->t.enc[k][v], b, 16);
        uint8_t d[16] = {};
        d[k] = kPiInv.v[v];
        transform_l_inv(d);
        std::memcpy(pc->t.dec[k][v], d, 16);
      }
    }
    for (int i = 0; i < 32; ++i) {
      uint8_t b[16] = {};
      b[15] = static_cast<uint8_t>(i + 1);  // Vec128(i+1): the number i+1, least significant byte last
      transform_l(b);
      std::memcpy(pc->c[i], b, 16);
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
