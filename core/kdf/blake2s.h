// PBKDF2-HMAC-BLAKE2s-256, written here for speed (docs/format-spec.md §5.1): opening a volume with a wrong password
// derives six 500,000-iteration BLAKE2s blocks per header location, and the library routes are slow at it. Crypto++'s
// BLAKE2s is a class with SecBlock members, so the per-iteration copy of the keyed HMAC state costs heap allocations
// (docs/perf/design-figures.md, "BLAKE2s and SHA-2 PBKDF2"); OpenSSL does not export BLAKE2s's compression function.
// Here an iteration is two compressions of fixed-layout blocks, and several PBKDF2 blocks (any salts and block indexes,
// one password) run together in AVX2 lanes, 8 per pass (blake2s_avx2.cpp). Crypto++'s BLAKE2s stays the reference in
// the tests.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/kdf/prf.h"

namespace warpvol::blake2s {

// Computes every block (any number; each out gets 32 bytes); false when *cancel became true first (outputs
// undefined then).
bool pbkdf2_hmac_lanes(const uint8_t* password, size_t password_len, const Pbkdf2Block* blocks, size_t n,
                       uint32_t iterations, const std::atomic<bool>* cancel);

// Lanes one pass of the active instruction set computes for the price of one: 8 with AVX2, else 1.
size_t lane_width();
// What one pass costs, in the time of one chain on the portable path: about 2 with AVX2 (docs/perf/design-figures.md,
// "BLAKE2s and SHA-2 PBKDF2"); 1 without lanes.
double lane_pass_cost();

namespace detail {
// The HMAC iterations 2..iterations of up to 8 chains. u[lane] holds U_1 and acc[lane] the running XOR (U_1 at
// entry) as little-endian words; istate/ostate are the chaining values after the ipad/opad blocks.
bool iterate_avx2(const uint32_t istate[8], const uint32_t ostate[8], uint32_t (*u)[8], uint32_t (*acc)[8],
                  size_t lanes, uint32_t iterations, const std::atomic<bool>* cancel);
inline constexpr uint32_t kIv[8] = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                                    0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};
inline constexpr uint8_t kSigma[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0}};
// The message length of every HMAC iteration's final block: one 64-byte key block + a 32-byte digest.
inline constexpr uint32_t kIterationBytes = 96;
}  // namespace detail

}  // namespace warpvol::blake2s
