// Whirlpool (ISO/IEC 10118-3, NESSIE final version) and PBKDF2-HMAC-Whirlpool, written here for speed: see
// whirlpool.cpp for why OpenSSL's Whirlpool is not used on the PBKDF2 hot path.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace warpvol {

// Plain Whirlpool hash (64-byte digest), the same compression as the PBKDF2 path (for tests and self-checks).
void whirlpool_hash(const uint8_t* data, size_t len, uint8_t out[64]);

// One PBKDF2-HMAC-Whirlpool output block (64 bytes, 1-based block_index; HMAC block size 64, passwords longer than
// 64 bytes are hashed first). Each iteration's compression of U after the fixed ipad/opad block has a fixed key
// (the chaining value after that block), so its 10 round keys are computed once per block. False when *cancel
// (may be nullptr) became true first; checked every 1024 iterations.
bool whirlpool_pbkdf2_block(const uint8_t* password, size_t password_len, const uint8_t* salt, size_t salt_len,
                            uint32_t iterations, uint32_t block_index, uint8_t* out, const std::atomic<bool>* cancel);

}  // namespace warpvol
