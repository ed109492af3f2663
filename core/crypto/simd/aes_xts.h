// AES-256-XTS kernels written with intrinsics (AES-NI, AVX2+VAES, AVX-512+VAES+VPCLMULQDQ).
//
// Why our own code instead of Crypto++ or OpenSSL: at 512-byte data units both are far slower per core than these
// kernels, and the versions we link (Crypto++ 8.7, OpenSSL 3.0) do not use 512-bit VAES for XTS; the AVX-512 kernel
// runs at the AES-256 ceiling of 64 bytes per 14 cycles where a zmm VAESENC issues once per cycle
// (docs/perf/design-figures.md, "AES-XTS"; bench/aes_xts_bench.cpp measures it). The kernels only see whole
// 512-byte units (VeraCrypt never uses ciphertext stealing), which lets them derive all 32 tweaks of a unit from
// E_K2(unit) with byte shifts and carry-less multiplies instead of a serial T*x chain.
//
// Layout: every *_aesni/_avx2/_avx512.cpp file holds only plain functions over raw pointers (no C++ library
// templates), so nothing compiled with wider ISA flags can be picked by the linker for code that runs on a lesser
// CPU. The XtsCipher classes live in aes_impls.cpp (portable flags) and call these kernels.
#pragma once
#include <cstddef>
#include <cstdint>

namespace warpvol::simd::aes {

// AES-256 round keys: enc[r] for the cipher, dec[r] for the equivalent inverse cipher (dec[0] = enc[14],
// dec[r] = InvMixColumns(enc[14 - r]) for r = 1..13, dec[14] = enc[0]), as 16-byte blocks in memory order.
struct alignas(64) Aes256Schedule {
  uint8_t enc[15][16];
  uint8_t dec[15][16];
};

// Key expansion with AESKEYGENASSIST / AESIMC (aes_key_schedule_aesni.cpp). key: 32 bytes.
void expand_key_aesni(const uint8_t* key, Aes256Schedule* out);

// XTS over nunits whole 512-byte data units in place; the first unit has number unit0 (later ones unit0 + i, mod
// 2^64). k1 = data key schedule, k2 = tweak key schedule (only its enc half is used). data needs no alignment.
using XtsKernel = void (*)(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                           size_t nunits);

void xts_encrypt_aesni(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                       size_t nunits);
void xts_decrypt_aesni(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                       size_t nunits);
void xts_encrypt_avx2(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                      size_t nunits);
void xts_decrypt_avx2(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                      size_t nunits);
void xts_encrypt_avx512(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                        size_t nunits);
void xts_decrypt_avx512(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                        size_t nunits);

}  // namespace warpvol::simd::aes
