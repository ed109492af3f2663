// Header-key derivation: the PRFs of TrueCrypt/VeraCrypt with PBKDF2-HMAC, Argon2id, iteration counts and PIM
// (docs/format-spec.md §5).
#pragma once
#include <cstddef>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/kdf/kdf_stop.h"

namespace warpvol {

enum class PrfId : uint8_t { Sha512, Sha256, Blake2s, Whirlpool, Streebog, Ripemd160, Sha1, Argon2id };

struct PrfInfo {
  PrfId id;
  std::string_view name;      // "SHA-512", "HMAC-SHA-512" is name with "HMAC-" prefix
  std::string_view cli_name;  // "sha512", "sha256", "blake2s", "whirlpool", "streebog", "ripemd160", "sha1", "argon2"
  size_t digest_size;         // PBKDF2 block size in bytes (0 for Argon2id)
  bool veracrypt;             // VeraCrypt >= 1.26 uses it for non-system volumes
  bool truecrypt;             // TrueCrypt 7.1a had it
};

const PrfInfo& prf_info(PrfId id);
const std::vector<PrfInfo>& all_prfs();
std::optional<PrfId> parse_prf(std::string_view name);  // cli names and VeraCrypt names, case-insensitive

enum class VolumeFormat { VeraCrypt, TrueCrypt };

// Iteration count for a PBKDF2 PRF (docs/format-spec.md §5.2). pim <= 0 means default. system = pre-boot volume.
// Returns 0 when the combination does not exist (e.g. TrueCrypt with a PIM, TrueCrypt with SHA-256).
uint32_t pbkdf2_iterations(PrfId prf, VolumeFormat fmt, int pim, bool system);

struct Argon2Params {
  uint32_t t_cost;
  uint32_t m_cost_kib;
};
Argon2Params argon2_params(int pim);  // VeraCrypt's PIM mapping (docs/format-spec.md §5.4)

// One PBKDF2-HMAC output block (1-based block index), digest_size bytes into out. Throws Error(Interrupted) when the
// process-wide stop (kdf_stop.h) was requested.
void pbkdf2_block(PrfId prf, const uint8_t* password, size_t password_len, const uint8_t* salt, size_t salt_len,
                  uint32_t iterations, uint32_t block_index, uint8_t* out);
// Same, abandoning the work (returning false) soon after *cancel becomes true.
// The PBKDF2 loops poll their cancel flag (may be nullptr) and the process-wide stop request (kdf_stop.h) at every
// 1024th iteration: cheap, and ~1-5 ms apart.
inline bool pbkdf2_cancelled(const std::atomic<bool>* cancel, uint32_t iteration) {
  return (iteration & 1023) == 0 &&
         ((cancel && cancel->load(std::memory_order_relaxed)) || kdf_stop_requested());
}
bool pbkdf2_block_cancellable(PrfId prf, const uint8_t* password, size_t password_len, const uint8_t* salt,
                              size_t salt_len, uint32_t iterations, uint32_t block_index, uint8_t* out,
                              const std::atomic<bool>* cancel);
// Several blocks of one password and iteration count (each with its own salt and block index), e.g. the blocks of
// different header locations: PRFs with SIMD lanes compute pbkdf2_lane_width() of them for the price of one.
struct Pbkdf2Block {
  const uint8_t* salt;
  size_t salt_len;
  uint32_t block_index;  // 1-based
  uint8_t* out;          // digest_size bytes
};
bool pbkdf2_blocks_cancellable(PrfId prf, const uint8_t* password, size_t password_len, const Pbkdf2Block* blocks,
                               size_t n, uint32_t iterations, const std::atomic<bool>* cancel);
size_t pbkdf2_lane_width(PrfId prf);  // 1 = no lanes (one block costs one block)
double pbkdf2_lane_pass_cost(PrfId prf);  // one pass of the lanes, in the time of one block alone (1 = no lanes)
// How pbkdf2_many shares n blocks out among `threads` threads: the number of parts that each compute their share in
// one call of the lanes, or 0 where a thread per block ends sooner (or the PRF has no lanes).
size_t pbkdf2_lane_parts(PrfId prf, size_t n, unsigned threads);
// Blocks of one password and iteration count (any salts and block indexes: several header keys at once) on up to
// `threads` cores (0 = every core), whichever way ends first: a thread per block (the cores share them out), or
// min(threads, n) threads that each compute their share in SIMD lanes where the PRF has lanes. So with free cores
// every block gets its own, and where the blocks outnumber the cores (a batch's pre-flight, a 2-core machine) a
// pass of the lanes computes several for the price of about two. Below 1000 iterations a block costs less than
// starting a thread: one thread. Throws Error(Interrupted) when the process-wide stop was requested.
void pbkdf2_many(PrfId prf, const uint8_t* password, size_t password_len, const Pbkdf2Block* blocks, size_t n,
                 uint32_t iterations, unsigned threads);
// Whole PBKDF2 output of out_len bytes (pbkdf2_many of its blocks on every core). Throws Error(Interrupted) when the
// process-wide stop (kdf_stop.h) was requested.
void pbkdf2(PrfId prf, const uint8_t* password, size_t password_len, const uint8_t* salt, size_t salt_len,
            uint32_t iterations, uint8_t* out, size_t out_len);
// Argon2id v1.3, lanes = threads = 1, as VeraCrypt calls it. Throws Error(Format) on failure (e.g. memory) and
// Error(Interrupted) within ~10 ms of the process-wide stop request (kdf_stop.h).
void argon2id(const uint8_t* password, size_t password_len, const uint8_t* salt, size_t salt_len,
              const Argon2Params& p, uint8_t* out, size_t out_len);
// Same, returning false within ~10 ms of *cancel (may be nullptr) becoming true or of the stop request. libargon2
// has no progress hook, so the derivation runs on a thread of its own that works on copies of the inputs; an
// abandoned one finishes in the background, then wipes and frees its memory (argon2.cpp).
bool argon2id_cancellable(const uint8_t* password, size_t password_len, const uint8_t* salt, size_t salt_len,
                          const Argon2Params& p, uint8_t* out, size_t out_len, const std::atomic<bool>* cancel);
// Argon2id derivations still running, abandoned ones included (tests wait for them to end).
size_t argon2id_running();

// Plain hashes (for self-tests and vectors).
std::vector<uint8_t> hash_bytes(PrfId prf, const uint8_t* data, size_t len);
std::vector<uint8_t> hmac_bytes(PrfId prf, const uint8_t* key, size_t key_len, const uint8_t* data, size_t len);

constexpr size_t kHeaderKeyMaterial = 192;  // bytes derived for header keys (docs/format-spec.md §5.3)

}  // namespace warpvol
