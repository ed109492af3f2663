// AES-256-XTS kernels written with intrinsics (AES-NI, AVX2+VAES, AVX-512+VAES+VPCLMULQDQ).
//
// Why our own code instead of Crypto++ or OpenSSL: at 512-byte data units Crypto++'s XTS runs ~1.85 GB/s and
// OpenSSL 3.0's ~8.3 GB/s per core (the project's figures for the everyday machine), and the versions we link
// (Crypto++ 8.7, OpenSSL 3.0) do not use 512-bit VAES for XTS; we need >= 12 GB/s per core. Measured here (bench/aes_xts_bench.cpp, one core of the GPU machine's Xeon, where a zmm VAESENC issues once
// per cycle): avx512 11.6-11.7 GB/s = 4.4-4.6 bytes/cycle, i.e. at the AES-256 ceiling of 64 B per 14 cycles;
// `openssl speed -evp aes-256-xts -bytes 512` (3.0.13) 2.9-3.9 GB/s in the same session. The kernels only see whole
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
