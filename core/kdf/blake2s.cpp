// PBKDF2-HMAC-BLAKE2s-256 (RFC 7693 compression; why it is written here: blake2s.h). The portable path computes one
// chain at a time with the same fixed-layout iteration the AVX2 lanes use.
#include "core/kdf/blake2s.h"

#include <cstring>

#include "core/crypto/cpu_features.h"
#include "core/util/bytes.h"
#include "core/util/secure.h"

namespace warpvol::blake2s {

namespace {

using detail::kIv;
using detail::kSigma;

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

// h = F(h, m, t, last) (RFC 7693 section 3.2), t < 2^32 here.
void compress(uint32_t h[8], const uint32_t m[16], uint32_t t, bool last) {
  uint32_t v[16];
  for (int i = 0; i < 8; ++i) v[i] = h[i];
  for (int i = 0; i < 8; ++i) v[8 + i] = kIv[i];
  v[12] ^= t;
  if (last) v[14] = ~v[14];
  auto g = [&v](int a, int b, int c, int d, uint32_t x, uint32_t y) {
    v[a] = v[a] + v[b] + x;
    v[d] = rotr(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = rotr(v[b] ^ v[c], 12);
    v[a] = v[a] + v[b] + y;
    v[d] = rotr(v[d] ^ v[a], 8);
    v[c] = v[c] + v[d];
    v[b] = rotr(v[b] ^ v[c], 7);
  };
  for (const auto& s : kSigma) {
    g(0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[8 + i];
  secure_wipe(v, sizeof v);
}

// Unkeyed BLAKE2s-256 over a stream; the last block is held back until final() (it is compressed with the flag).
struct Hasher {
  uint32_t h[8];
  uint8_t buf[64];
  size_t buf_len = 0;
  uint32_t t = 0;

  Hasher() {
    std::memcpy(h, kIv, sizeof h);
    h[0] ^= 0x01010000u ^ 32u;  // parameter block: digest 32 bytes, no key, fanout 1, depth 1
  }
  void block(const uint8_t* p, bool last) {
    uint32_t m[16];
    for (int i = 0; i < 16; ++i) m[i] = load_le32(p + 4 * i);
    compress(h, m, t, last);
    secure_wipe(m, sizeof m);
  }
  void update(const uint8_t* p, size_t n) {
    while (n) {
      if (buf_len == 64) {  // more input follows: the buffered block is not the last one
        t += 64;
        block(buf, false);
        buf_len = 0;
      }
      const size_t take = n < 64 - buf_len ? n : 64 - buf_len;
      std::memcpy(buf + buf_len, p, take);
      buf_len += take;
      p += take;
      n -= take;
    }
  }
  void final(uint32_t out[8]) {
    t += uint32_t(buf_len);
    std::memset(buf + buf_len, 0, 64 - buf_len);
    block(buf, true);
    std::memcpy(out, h, 32);
  }
  ~Hasher() { secure_wipe(this, sizeof *this); }
};

void words_to_bytes(const uint32_t w[8], uint8_t* out) {
  for (int i = 0; i < 8; ++i) store_le32(out + 4 * i, w[i]);
}

// The portable iterations: the same two fixed compressions per iteration as the lanes.
bool iterate_scalar(const uint32_t istate[8], const uint32_t ostate[8], uint32_t u[8], uint32_t acc[8],
                    uint32_t iterations, const std::atomic<bool>* cancel) {
  uint32_t m[16] = {}, h[8];
  std::memcpy(m, u, 32);
  bool ok = true;
  for (uint32_t i = 1; i < iterations; ++i) {
    if (pbkdf2_cancelled(cancel, i)) {
      ok = false;
      break;
    }
    std::memcpy(h, istate, sizeof h);
    compress(h, m, detail::kIterationBytes, true);
    std::memcpy(m, h, 32);
    std::memcpy(h, ostate, sizeof h);
    compress(h, m, detail::kIterationBytes, true);
    std::memcpy(m, h, 32);
    for (int w = 0; w < 8; ++w) acc[w] ^= h[w];
  }
  std::memcpy(u, m, 32);
  secure_wipe(m, sizeof m);
  secure_wipe(h, sizeof h);
  return ok;
}

// One 8-lane pass costs about two scalar chains (docs/perf/design-figures.md, "BLAKE2s and SHA-2 PBKDF2").
constexpr size_t kLanesWorthAvx2 = 3;

}  // namespace

size_t lane_width() { return active_isa() >= IsaLevel::Avx2 ? 8 : 1; }

double lane_pass_cost() { return active_isa() >= IsaLevel::Avx2 ? 2.0 : 1.0; }

bool pbkdf2_hmac_lanes(const uint8_t* pw, size_t pw_len, const Pbkdf2Block* lanes, size_t n,
                       uint32_t iterations, const std::atomic<bool>* cancel) {
  // HMAC key block; the chaining values after the ipad and opad blocks are shared by every lane.
  uint8_t k[64] = {};
  if (pw_len > 64) {
    Hasher kh;
    kh.update(pw, pw_len);
    uint32_t d[8];
    kh.final(d);
    words_to_bytes(d, k);
    secure_wipe(d, sizeof d);
  } else if (pw_len) {
    std::memcpy(k, pw, pw_len);
  }
  uint8_t pad[64];
  Hasher inner, outer;
  for (int i = 0; i < 64; ++i) pad[i] = k[i] ^ 0x36;
  inner.update(pad, 64);
  for (int i = 0; i < 64; ++i) pad[i] = k[i] ^ 0x5c;
  outer.update(pad, 64);
  secure_wipe(k, sizeof k);
  secure_wipe(pad, sizeof pad);
  // The key block stays buffered (it may be the last one); for the iterations it is compressed as a non-last block.
  uint32_t istate[8], ostate[8];
  {
    Hasher i2 = inner, o2 = outer;
    i2.t = o2.t = 64;
    i2.block(i2.buf, false);
    o2.block(o2.buf, false);
    std::memcpy(istate, i2.h, 32);
    std::memcpy(ostate, o2.h, 32);
  }

  const size_t width = lane_width();
  bool ok = true;
  for (size_t first = 0; first < n && ok; first += width) {
    const size_t count = n - first < width ? n - first : width;
    uint32_t u[8][8], acc[8][8];
    for (size_t l = 0; l < count; ++l) {  // U_1 = HMAC(salt || INT(block)), the ordinary way
      const Pbkdf2Block& ln = lanes[first + l];
      uint8_t idx[4];
      store_be32(idx, ln.block_index);
      Hasher h = inner;
      h.update(ln.salt, ln.salt_len);
      h.update(idx, 4);
      uint32_t d[8];
      h.final(d);
      uint8_t db[32];
      words_to_bytes(d, db);
      Hasher o = outer;
      o.update(db, 32);
      o.final(u[l]);
      std::memcpy(acc[l], u[l], 32);
      secure_wipe(d, sizeof d);
      secure_wipe(db, sizeof db);
    }
    if (count >= kLanesWorthAvx2) {
      ok = detail::iterate_avx2(istate, ostate, u, acc, count, iterations, cancel);
    } else {
      for (size_t l = 0; l < count && ok; ++l) ok = iterate_scalar(istate, ostate, u[l], acc[l], iterations, cancel);
    }
    for (size_t l = 0; l < count && ok; ++l) words_to_bytes(acc[l], lanes[first + l].out);
    secure_wipe(u, sizeof u);
    secure_wipe(acc, sizeof acc);
  }
  secure_wipe(istate, sizeof istate);
  secure_wipe(ostate, sizeof ostate);
  return ok;
}

}  // namespace warpvol::blake2s
