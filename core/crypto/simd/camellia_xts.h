// Camellia-256-XTS, byte-sliced: 16 blocks per 128-bit lane are transposed so that each vector register holds
// one byte position of all blocks ("plane"), the S-boxes run on whole planes, and the P-function and the Feistel
// XORs become XORs of planes. The S-boxes use the AES hardware (Camellia's S-box is affine-equivalent to the
// inversion in GF(2^8) that AES's S-box contains; tools/gen/camellia_sbox_gen.py derives the affine maps):
//   AES-NI / AVX2+VAES: nibble-table affine maps (pshufb) around aesenclast / aesdeclast with a zero key (the
//                       technique of the Linux kernel's camellia-aesni-avx; here F(D1) uses aesenclast and F(D2)
//                       aesdeclast so their ShiftRows permutations cancel, see camellia_kernel.h), 16 / 32 blocks
//                       per batch;
//   AVX-512+GFNI:       vgf2p8affineqb + vgf2p8affineinvqb per plane, 64 blocks per batch.
// Why not Crypto++: its Camellia is a one-block table implementation (docs/perf/design-figures.md, "Crypto++ per
// core"). Own key schedule (RFC 3713), checked against Crypto++ and the ECB vectors in the tests.
#pragma once
#include <cstddef>
#include <cstdint>

namespace warpvol::simd::camellia {

constexpr int kSubkeys = 34;  // kw1 kw2, k1..k6, ke1 ke2, k7..k12, ke3 ke4, k13..k18, ke5 ke6, k19..k24, kw3 kw4

// 64-bit subkeys in the order a pass uses them, each as 8 big-endian bytes (byte 0 = most significant).
struct CamelliaSchedule {
  uint8_t sk[kSubkeys][8];
};

struct alignas(64) CamelliaXtsKeys {
  CamelliaSchedule enc1, dec1;  // data key, both directions
  CamelliaSchedule enc2;        // tweak key
};

// key: 32 bytes. dec gets the decryption order (the same pass with the subkeys reversed).
void expand_key(const uint8_t* key, CamelliaSchedule* enc, CamelliaSchedule* dec);
// One block through a schedule with scalar code (reference for tests).
void crypt_block(const CamelliaSchedule* s, const uint8_t* in, uint8_t* out);

using XtsKernel = void (*)(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);

void xts_encrypt_aesni(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_decrypt_aesni(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_encrypt_avx2(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_decrypt_avx2(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_encrypt_avx512(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_decrypt_avx512(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);

}  // namespace warpvol::simd::camellia
