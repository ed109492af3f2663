// Twofish-XTS in scalar code with N blocks in flight (portable flags). One block's round is a serial chain
// (byte extract -> table load -> xor -> add -> rotate) of ~15 cycles; interleaving N independent blocks fills the
// load ports and ALUs instead. Tweaks stay in general-purpose registers (two 64-bit halves, times x per block).
#include <cstring>

#include "core/crypto/simd/twofish_xts.h"

namespace warpvol::simd::twofish {

namespace {

constexpr int kLanes = 4;  // blocks in flight (measured: 4 and 8 are close; 4 keeps everything in registers)

inline uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

#define TF_G0(x) (s0[(x) & 0xff] ^ s1[((x) >> 8) & 0xff] ^ s2[((x) >> 16) & 0xff] ^ s3[(x) >> 24])
#define TF_G1(x) (s0[(x) >> 24] ^ s1[(x) & 0xff] ^ s2[((x) >> 8) & 0xff] ^ s3[((x) >> 16) & 0xff])

// x[i][j]: word i of block j. Same round structure as twofish_kernel.h (rounds alternate in place).
template <bool kEncrypt>
inline __attribute__((always_inline)) void crypt(const TwofishKey* k, uint32_t (&x)[4][kLanes]) {
  const uint32_t *s0 = k->s[0], *s1 = k->s[1], *s2 = k->s[2], *s3 = k->s[3];
  const uint32_t* rk = k->k;
  if constexpr (kEncrypt) {
    for (int j = 0; j < kLanes; ++j)
      for (int i = 0; i < 4; ++i) x[i][j] ^= rk[i];
    for (int r = 0; r < 16; r += 2) {
#pragma GCC unroll 8
      for (int j = 0; j < kLanes; ++j) {
        const uint32_t t0 = TF_G0(x[0][j]), t1 = TF_G1(x[1][j]);
        x[2][j] = rotl(x[2][j] ^ (t0 + t1 + rk[2 * r + 8]), 31);
        x[3][j] = rotl(x[3][j], 1) ^ (t0 + 2 * t1 + rk[2 * r + 9]);
      }
#pragma GCC unroll 8
      for (int j = 0; j < kLanes; ++j) {
        const uint32_t t0 = TF_G0(x[2][j]), t1 = TF_G1(x[3][j]);
        x[0][j] = rotl(x[0][j] ^ (t0 + t1 + rk[2 * r + 10]), 31);
        x[1][j] = rotl(x[1][j], 1) ^ (t0 + 2 * t1 + rk[2 * r + 11]);
      }
    }
    for (int j = 0; j < kLanes; ++j) {
      const uint32_t c0 = x[2][j] ^ rk[4], c1 = x[3][j] ^ rk[5], c2 = x[0][j] ^ rk[6], c3 = x[1][j] ^ rk[7];
      x[0][j] = c0, x[1][j] = c1, x[2][j] = c2, x[3][j] = c3;
    }
  } else {
    for (int j = 0; j < kLanes; ++j) {
      const uint32_t r2 = x[0][j] ^ rk[4], r3 = x[1][j] ^ rk[5], r0 = x[2][j] ^ rk[6], r1 = x[3][j] ^ rk[7];
      x[0][j] = r0, x[1][j] = r1, x[2][j] = r2, x[3][j] = r3;
    }
    for (int r = 15; r > 0; r -= 2) {
#pragma GCC unroll 8
      for (int j = 0; j < kLanes; ++j) {
        const uint32_t t0 = TF_G0(x[2][j]), t1 = TF_G1(x[3][j]);
        x[0][j] = rotl(x[0][j], 1) ^ (t0 + t1 + rk[2 * r + 8]);
        x[1][j] = rotl(x[1][j] ^ (t0 + 2 * t1 + rk[2 * r + 9]), 31);
      }
#pragma GCC unroll 8
      for (int j = 0; j < kLanes; ++j) {
        const uint32_t t0 = TF_G0(x[0][j]), t1 = TF_G1(x[1][j]);
        x[2][j] = rotl(x[2][j], 1) ^ (t0 + t1 + rk[2 * r + 6]);
        x[3][j] = rotl(x[3][j] ^ (t0 + 2 * t1 + rk[2 * r + 7]), 31);
      }
    }
    for (int j = 0; j < kLanes; ++j)
      for (int i = 0; i < 4; ++i) x[i][j] ^= rk[i];
  }
}

#undef TF_G0
#undef TF_G1

template <bool kEncrypt>
void run(const TwofishXtsKeys* keys, uint64_t unit0, uint8_t* data, size_t nunits) {
  while (nunits) {
    // First tweaks of up to kLanes units at once.
    const size_t n = nunits < size_t(kLanes) ? nunits : size_t(kLanes);
    uint32_t tw[4][kLanes];
    for (int j = 0; j < kLanes; ++j) {
      const uint64_t unit = unit0 + uint64_t(j);
      tw[0][j] = uint32_t(unit), tw[1][j] = uint32_t(unit >> 32), tw[2][j] = 0, tw[3][j] = 0;
    }
    crypt<true>(&keys->k2, tw);
    for (size_t u = 0; u < n; ++u) {
      uint64_t lo = uint64_t(tw[1][u]) << 32 | tw[0][u], hi = uint64_t(tw[3][u]) << 32 | tw[2][u];
      uint8_t* p = data + 512 * u;
      for (int b = 0; b < 32; b += kLanes) {
        uint32_t x[4][kLanes];
        uint64_t tl[kLanes], th[kLanes];
        for (int j = 0; j < kLanes; ++j) {
          tl[j] = lo, th[j] = hi;
          uint64_t a, c;
          std::memcpy(&a, p + 16 * (b + j), 8);
          std::memcpy(&c, p + 16 * (b + j) + 8, 8);
          a ^= lo, c ^= hi;
          x[0][j] = uint32_t(a), x[1][j] = uint32_t(a >> 32), x[2][j] = uint32_t(c), x[3][j] = uint32_t(c >> 32);
          const uint64_t carry = hi >> 63;
          hi = (hi << 1) | (lo >> 63);
          lo = (lo << 1) ^ (carry * 0x87);
        }
        crypt<kEncrypt>(&keys->k1, x);
        for (int j = 0; j < kLanes; ++j) {
          const uint64_t a = (uint64_t(x[1][j]) << 32 | x[0][j]) ^ tl[j];
          const uint64_t c = (uint64_t(x[3][j]) << 32 | x[2][j]) ^ th[j];
          std::memcpy(p + 16 * (b + j), &a, 8);
          std::memcpy(p + 16 * (b + j) + 8, &c, 8);
        }
      }
    }
    data += 512 * n;
    unit0 += n;
    nunits -= n;
  }
}

}  // namespace

void xts_encrypt_scalar(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  run<true>(k, unit0, data, nunits);
}
void xts_decrypt_scalar(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  run<false>(k, unit0, data, nunits);
}

}  // namespace warpvol::simd::twofish
