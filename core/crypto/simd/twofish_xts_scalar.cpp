// Twofish-XTS in scalar code with N blocks in flight (portable flags). One block's round is a serial chain
// (byte extract -> table load -> xor -> add -> rotate) of ~15 cycles; interleaving N independent blocks fills the
// load ports and ALUs instead. Tweaks stay in general-purpose registers (two 64-bit halves, times x per block).
#include <cstring>

#include "core/crypto/simd/twofish_scalar.h"
#include "core/crypto/simd/twofish_xts.h"

namespace warpvol::simd::twofish {

namespace {

constexpr int kLanes = 4;  // blocks in flight: the fewest at the best speed (docs/perf/design-figures.md, "Twofish")

static_assert(32 % kLanes == 0, "a data unit must split into whole groups");

template <bool kEncrypt>
inline __attribute__((always_inline)) void crypt(const TwofishKey* k, uint32_t (&x)[4][kLanes]) {
  scalar_crypt<kEncrypt, kLanes>(k, x);
}

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
