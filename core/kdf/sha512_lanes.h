// PBKDF2-HMAC-SHA-512 for several blocks at once in SIMD lanes (one 64-bit lane per chain: 8 with AVX-512, 4 with
// AVX2). Written here because no maintained library computes independent SHA-512 chains side by side: OpenSSL and
// Crypto++ compress one block at a time, and x86 has no SHA-512 instructions before Arrow Lake. SHA-512 is
// VeraCrypt's default PRF and the first one an open tries; a header key is three of its blocks (192 bytes) and a
// re-encryption's pre-flight derives several keys of one password (the new headers), a batch's for every container.
// The scalar path (prf.cpp, OpenSSL's compression) stays the reference in the tests.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/kdf/prf.h"

namespace warpvol::sha512 {

// Computes every block (any number; each out gets 64 bytes); false when *cancel became true first (outputs
// undefined then).
bool pbkdf2_hmac_lanes(const uint8_t* password, size_t password_len, const Pbkdf2Block* blocks, size_t n,
                       uint32_t iterations, const std::atomic<bool>* cancel);

// Lanes one pass of the active instruction set computes: 8 with AVX-512, 4 with AVX2, else 1.
size_t lane_width();
// What one pass costs, in the time of one chain on the scalar path (docs/perf/design-figures.md, "SHA-512 lanes"):
// 8 AVX-512 lanes about 1.6-1.8 chains, 4 AVX2 lanes about 2.2-2.4. 1 without lanes.
double lane_pass_cost();

namespace detail {
// The HMAC iterations 2..iterations of up to 8 (AVX-512) or 4 (AVX2) chains. u[lane] holds U_1 and acc[lane] the
// running XOR (U_1 at entry) as native 64-bit words (the big-endian words of the digest); istate/ostate are the
// chaining values after the ipad and opad blocks.
bool iterate_avx512(const uint64_t istate[8], const uint64_t ostate[8], uint64_t (*u)[8], uint64_t (*acc)[8],
                    size_t lanes, uint32_t iterations, const std::atomic<bool>* cancel);
bool iterate_avx2(const uint64_t istate[8], const uint64_t ostate[8], uint64_t (*u)[8], uint64_t (*acc)[8],
                  size_t lanes, uint32_t iterations, const std::atomic<bool>* cancel);
// FIPS 180-4 round constants.
extern const uint64_t kK[80];
// The message length of every HMAC iteration's block, in bits: one 128-byte key block + a 64-byte digest.
inline constexpr uint64_t kIterationBits = (128 + 64) * 8;
}  // namespace detail

}  // namespace warpvol::sha512
