// The 512-byte volume header (docs/format-spec.md §3): field map, parse after decryption, serialize before encryption.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "core/crypto/chain.h"
#include "core/kdf/prf.h"
#include "core/util/secure.h"

namespace warpvol {

constexpr size_t kHeaderSize = 512;
constexpr size_t kSaltSize = 64;
constexpr size_t kHeaderSlotSize = 65536;
constexpr size_t kHeaderGroupSize = 131072;        // normal slot + hidden slot
constexpr uint64_t kDataOffsetV2 = 131072;
constexpr uint64_t kMinVolumeSize = 299008;
constexpr uint64_t kMinHiddenVolumeSize = 40960;
constexpr uint64_t kMinHiddenHostSize = 348160;
constexpr uint64_t kSystemHeaderOffset = 31744;    // sector 62
constexpr uint32_t kMagicTrue = 0x54525545;        // "TRUE"
constexpr uint32_t kMagicVera = 0x56455241;        // "VERA"
constexpr uint16_t kVeraRequiredVersion = 0x010b;
constexpr uint16_t kTrueRequiredVersion = 0x0700;
constexpr uint16_t kHeaderVersion = 5;
constexpr uint32_t kFlagSystem = 1;
constexpr uint32_t kFlagInPlace = 2;

struct HeaderFields {
  uint32_t magic = kMagicVera;
  uint16_t version = kHeaderVersion;
  uint16_t required_version = kVeraRequiredVersion;
  uint32_t key_area_crc = 0;
  uint64_t volume_creation_time = 0;  // v3 only (TrueCrypt 5)
  uint64_t header_creation_time = 0;  // v3 only
  uint64_t hidden_volume_size = 0;
  uint64_t volume_size = 0;
  uint64_t encrypted_area_start = 0;
  uint64_t encrypted_area_length = 0;
  uint32_t flags = 0;
  uint32_t sector_size = 512;
  uint32_t header_crc = 0;
  LockedBytes key_area{256};  // master keys: primary(K) || secondary(K) || zeros
};

// Result of checking a decrypted header (docs/format-spec.md §3.4).
enum class HeaderCheck { Ok, BadMagic, BadCrc, NewerVersion, BadSectorSize };

// bytes: 512 decrypted header bytes (salt at 0..63, plaintext from 64). expected_magic: kMagicVera/kMagicTrue.
HeaderCheck check_header(const uint8_t* bytes, uint32_t expected_magic);
HeaderFields parse_header(const uint8_t* bytes);
// Writes fields (bytes 64..511) and both CRCs into out (512 bytes; salt bytes 0..63 left as they are).
void serialize_header(const HeaderFields& f, uint8_t* out);

// Derives the 2K-byte header key for (prf, iterations or Argon2 params) from the keyfile-mixed password.
// For PBKDF2 only the blocks needed for key_len bytes are derived.
struct KdfChoice {
  PrfId prf;
  uint32_t iterations = 0;     // PBKDF2
  Argon2Params argon2{0, 0};   // Argon2id
  std::string describe() const;  // "HMAC-SHA-512, 500000 iterations"
};
void derive_header_key(const KdfChoice& kdf, const LockedBytes& password, const uint8_t* salt, uint8_t* out,
                       size_t key_len);

// Encrypts a complete 512-byte plaintext header (fields serialized, salt set) under header_key in place.
void encrypt_header(ChainId chain, const uint8_t* header_key, uint8_t* header512);
void decrypt_header(ChainId chain, const uint8_t* header_key, uint8_t* header512);

}  // namespace warpvol
