// Serpent-256-XTS kernels, bitsliced across SIMD lanes (SSE2: 4 blocks, AVX2: 8, AVX-512: 16 per register set).
//
// Why hand-written instead of Crypto++: Crypto++'s Serpent is scalar, one block at a time
// (docs/perf/design-figures.md, "Crypto++ per core"). Serpent's round is already "bitsliced" inside a 32-bit word
// (Osvik): 4 words x0..x3, the S-box as boolean operations on whole words, the linear transform as rotates and shifts.
// Putting word i of N different blocks into the N 32-bit lanes of a vector register therefore runs N blocks with the
// same instruction count as one. AVX-512 adds vpternlogd (any 3-input boolean function in one instruction: 8-9 per
// S-box instead of Osvik's 16-20 two-input gates) and vprold (rotate in one instruction instead of shift/shift/or).
//
// Layout as in aes_xts.h: the serpent_xts_<isa>.cpp files hold the kernels (templates over a vector wrapper type
// with internal linkage, exported as plain functions over raw pointers), serpent_impls.cpp (portable flags) holds
// the XtsCipher wrappers and registers them.
#pragma once
#include <cstddef>
#include <cstdint>

namespace warpvol::simd::serpent {

constexpr int kRoundKeyWords = 132;  // 33 subkeys of 4 words

// Expanded keys of one XTS instance: k1 = data key, k2 = tweak key.
struct alignas(64) SerpentXtsKeys {
  uint32_t k1[kRoundKeyWords];
  uint32_t k2[kRoundKeyWords];
};

// Serpent key schedule for a 256-bit key (own scalar code, serpent_key.cpp; checked against Crypto++ and the
// VeraCrypt/cryptsetup ECB vectors in tests/block/test_simd_ciphers.cpp). rk: 132 words.
void expand_key(const uint8_t* key, uint32_t* rk);
// One block with the scalar bitsliced code (same S-box sequences as the SIMD paths); for tests and tweak setup.
void encrypt_block(const uint32_t* rk, const uint8_t* in, uint8_t* out);
void decrypt_block(const uint32_t* rk, const uint8_t* in, uint8_t* out);

// XTS over nunits whole 512-byte data units in place; the first has number unit0 (then unit0 + i mod 2^64).
using XtsKernel = void (*)(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);

void xts_encrypt_sse2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_decrypt_sse2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_encrypt_avx2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_decrypt_avx2(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_encrypt_avx512(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);
void xts_decrypt_avx512(const SerpentXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits);

}  // namespace warpvol::simd::serpent
