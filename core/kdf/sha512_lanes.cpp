// PBKDF2-HMAC-SHA-512 in SIMD lanes (why it is written here: sha512_lanes.h). The HMAC key schedule and each
// chain's first iteration (salt || block index, any length) go through OpenSSL's SHA-512; the fixed-layout
// iterations 2..n through the lanes.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "core/kdf/sha512_lanes.h"

#include <openssl/sha.h>

#include <cstring>

#include "core/crypto/cpu_features.h"
#include "core/util/bytes.h"
#include "core/util/secure.h"

namespace warpvol::sha512 {

namespace detail {
const uint64_t kK[80] = {
    0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc, 0x3956c25bf348b538,
    0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118, 0xd807aa98a3030242, 0x12835b0145706fbe,
    0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2, 0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235,
    0xc19bf174cf692694, 0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
    0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5, 0x983e5152ee66dfab,
    0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4, 0xc6e00bf33da88fc2, 0xd5a79147930aa725,
    0x06ca6351e003826f, 0x142929670a0e6e70, 0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed,
    0x53380d139d95b3df, 0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
    0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30, 0xd192e819d6ef5218,
    0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8, 0x19a4c116b8d2d0c8, 0x1e376c085141ab53,
    0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8, 0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373,
    0x682e6ff3d6b2b8a3, 0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
    0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b, 0xca273eceea26619c,
    0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178, 0x06f067aa72176fba, 0x0a637dc5a2c898a6,
    0x113f9804bef90dae, 0x1b710b35131c471b, 0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc,
    0x431d67c49c100d4c, 0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817};
}  // namespace detail

namespace {

void words_to_bytes(const uint64_t w[8], uint8_t* out) {
  for (int i = 0; i < 8; ++i) store_be64(out + 8 * i, w[i]);
}

}  // namespace

size_t lane_width() {
  const IsaLevel isa = active_isa();
  return isa >= IsaLevel::Avx512 ? 8 : isa >= IsaLevel::Avx2 ? 4 : 1;
}

double lane_pass_cost() {
  const IsaLevel isa = active_isa();
  return isa >= IsaLevel::Avx512 ? 1.8 : isa >= IsaLevel::Avx2 ? 2.5 : 1.0;
}

bool pbkdf2_hmac_lanes(const uint8_t* pw, size_t pw_len, const Pbkdf2Block* lanes, size_t n, uint32_t iterations,
                       const std::atomic<bool>* cancel) {
  const size_t width = lane_width();
  // Below this many chains a pass of the lanes costs more than the chains one by one (without lanes, width 1 is
  // always below it: every chain takes the scalar path below).
  const size_t worth = size_t(lane_pass_cost()) + 1;
  // HMAC key block; the chaining values after the ipad and opad blocks are shared by every lane.
  uint8_t k[128] = {};
  SHA512_CTX ictx, octx;
  if (pw_len > sizeof k) {
    SHA512_Init(&ictx);
    SHA512_Update(&ictx, pw, pw_len);
    SHA512_Final(k, &ictx);
  } else if (pw_len) {
    std::memcpy(k, pw, pw_len);
  }
  uint8_t pad[128];
  for (size_t i = 0; i < sizeof pad; ++i) pad[i] = k[i] ^ 0x36;
  SHA512_Init(&ictx);
  SHA512_Update(&ictx, pad, sizeof pad);
  for (size_t i = 0; i < sizeof pad; ++i) pad[i] = k[i] ^ 0x5c;
  SHA512_Init(&octx);
  SHA512_Update(&octx, pad, sizeof pad);
  secure_wipe(k, sizeof k);
  secure_wipe(pad, sizeof pad);
  uint64_t istate[8], ostate[8];
  std::memcpy(istate, ictx.h, sizeof istate);
  std::memcpy(ostate, octx.h, sizeof ostate);

  bool ok = true;
  for (size_t first = 0; first < n && ok; first += width) {
    const size_t count = n - first < width ? n - first : width;
    if (count < worth) {  // a few chains (the last ones, or all without lanes): cheaper on the scalar path
      for (size_t l = 0; l < count && ok; ++l) {
        const Pbkdf2Block& ln = lanes[first + l];
        ok = pbkdf2_block_cancellable(PrfId::Sha512, pw, pw_len, ln.salt, ln.salt_len, iterations, ln.block_index,
                                      ln.out, cancel);
      }
      continue;
    }
    uint64_t u[8][8], acc[8][8];
    for (size_t l = 0; l < count; ++l) {  // U_1 = HMAC(salt || INT(block)), the ordinary way
      const Pbkdf2Block& ln = lanes[first + l];
      uint8_t idx[4], d[64];
      store_be32(idx, ln.block_index);
      SHA512_CTX c = ictx;
      SHA512_Update(&c, ln.salt, ln.salt_len);
      SHA512_Update(&c, idx, 4);
      SHA512_Final(d, &c);
      c = octx;
      SHA512_Update(&c, d, sizeof d);
      SHA512_Final(d, &c);
      for (int w = 0; w < 8; ++w) u[l][w] = acc[l][w] = load_be64(d + 8 * w);
      secure_wipe(d, sizeof d);
      secure_wipe(&c, sizeof c);
    }
    ok = width == 8 ? detail::iterate_avx512(istate, ostate, u, acc, count, iterations, cancel)
                    : detail::iterate_avx2(istate, ostate, u, acc, count, iterations, cancel);
    for (size_t l = 0; l < count && ok; ++l) words_to_bytes(acc[l], lanes[first + l].out);
    secure_wipe(u, sizeof u);
    secure_wipe(acc, sizeof acc);
  }
  secure_wipe(istate, sizeof istate);
  secure_wipe(ostate, sizeof ostate);
  secure_wipe(&ictx, sizeof ictx);
  secure_wipe(&octx, sizeof octx);
  return ok;
}

}  // namespace warpvol::sha512
