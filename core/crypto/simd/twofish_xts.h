// Twofish-256-XTS: own key schedule with the key-dependent S-boxes and the MDS matrix folded into four 256-entry
// tables of 32-bit words (g(X) = T0[x0] ^ T1[x1] ^ T2[x2] ^ T3[x3], as in fast Twofish implementations), and two
// kernels over those tables:
//   scalar:  several blocks in flight in general-purpose registers (portable flags, twofish_xts_scalar.cpp);
//   gathers: blocks word-sliced across the 32-bit lanes of a vector, each table lookup one vpgatherdd
//            (AVX2: 8 blocks per register set, twofish_xts_avx2.cpp; AVX-512: 16, twofish_xts_avx512.cpp);
//   byte permutes (AVX-512 VBMI + GFNI, twofish_xts_avx512.cpp): the same word-sliced blocks, but the four keyed
//            S-boxes are looked up for all 64 bytes of a vector by vpermi2b from the 1 KiB of S-box bytes, and the
//            MDS multiply is done with GF(2^8) affine products and rotations: no gathers, no 4 KiB tables.
// Why not Crypto++: its Twofish runs one block at a time (docs/perf/design-figures.md, "Crypto++ per core"), its
// latency chain (byte extract -> load -> xor -> add) leaves most of the core idle. Which kernel wins is measured by
// bench/cipher_xts_bench.cpp; twofish_impls.cpp registers the winner per level (see the comment there).
#pragma once
#include <cstddef>
#include <cstdint>

namespace warpvol::simd::twofish {

struct alignas(64) TwofishKey {
  uint32_t s[4][256];                // MDS column j times the key-dependent S-box of byte j
  uint32_t k[40];                    // whitening K0..K7, round keys K8..K39
  alignas(64) uint8_t sbox[4][256];  // the key-dependent S-box of byte j itself (for the byte-permute kernel)
};

struct alignas(64) TwofishXtsKeys {
  TwofishKey k1;  // data key
  TwofishKey k2;  // tweak key
};

// The MDS multiply as the byte-permute kernel does it on a 32-bit lane y = (y0, y1, y2, y3), low byte first
// (output byte i = sum_j M[i][j] * y_j in GF(2^8)/0x169). Grouped by how far a term moves, output byte i takes
// y_(i-r) from the lane rotated left by 8r, so MDS(y) = XOR over r of rotl(c_r * y, 8r), where c_r multiplies byte
// p of y by kMdsByRotation[r][p]. tests/block/test_simd_ciphers.cpp checks this against the MDS-folded tables.
constexpr uint8_t kMdsByRotation[4][4] = {
    {0x01, 0xEF, 0x01, 0x5B}, {0x5B, 0x5B, 0xEF, 0x5B}, {0xEF, 0x01, 0x5B, 0x01}, {0xEF, 0xEF, 0xEF, 0xEF}};

// Multiplication by the constant c in GF(2^8)/0x169 as the 8x8 bit matrix of vgf2p8affineqb: byte 7-i of the result
// is the row of output bit i, i.e. bit k of it is bit i of c * x^k.
constexpr uint64_t mds_mul_matrix(unsigned c) {
  uint64_t m = 0;
  for (int i = 0; i < 8; ++i) {
    unsigned row = 0, ck = c;  // ck = c * x^k
    for (int k = 0; k < 8; ++k) {
      row |= ((ck >> i) & 1u) << k;
      ck <<= 1;
      if (ck & 0x100) ck ^= 0x169;
    }
    m |= uint64_t(row) << (8 * (7 - i));
  }
  return m;
}
static_assert(mds_mul_matrix(1) == 0x0102040810204080ull, "identity: output bit i is input bit i");

// Key schedule for a 256-bit key (twofish_key.cpp; checked against Crypto++ and the ECB vectors in the tests).
void expand_key(const uint8_t* key, TwofishKey* out);
void encrypt_block(const TwofishKey* k, const uint8_t* in, uint8_t* out);
void decrypt_block(const TwofishKey* k, const uint8_t* in, uint8_t* out);

// XTS over nunits whole 512-byte data units in place; the first has number unit0 (then unit0 + i mod 2^64).
using XtsKernel = void (*)(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);

void xts_encrypt_scalar(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_decrypt_scalar(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_encrypt_avx2(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_decrypt_avx2(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_encrypt_avx512(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_decrypt_avx512(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_encrypt_avx512_vbmi(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_decrypt_avx512_vbmi(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);

}  // namespace warpvol::simd::twofish
