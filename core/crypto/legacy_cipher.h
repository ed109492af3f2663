// The block ciphers of TrueCrypt before 5.0 as TrueCrypt applied them to bytes: AES, Serpent, Twofish (16-byte
// blocks, 32-byte keys) and the 64-bit-block ciphers Blowfish (56-byte key), CAST5 (16-byte key) and Triple DES
// EDE (24-byte key). Only for opening and migrating old volumes (docs/format-spec.md §6.5); never for new ones.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace warpvol {

enum class LegacyCipherId : uint8_t { Aes, Serpent, Twofish, Blowfish, Cast5, TripleDes };

struct LegacyCipherInfo {
  LegacyCipherId id;
  std::string_view name;  // TrueCrypt's name: "AES", "Blowfish", "CAST5", "Triple DES"
  size_t block_size;      // 16 or 8
  size_t key_size;        // bytes TrueCrypt takes from the key material for it
};
const LegacyCipherInfo& legacy_cipher_info(LegacyCipherId id);

class LegacyBlockCipher {
 public:
  virtual ~LegacyBlockCipher() = default;
  virtual size_t block_size() const = 0;
  // n blocks of block_size() bytes; in and out may be equal.
  virtual void encrypt(const uint8_t* in, uint8_t* out, size_t n) const = 0;
  virtual void decrypt(const uint8_t* in, uint8_t* out, size_t n) const = 0;
};

// key: legacy_cipher_info(id).key_size bytes.
std::unique_ptr<LegacyBlockCipher> make_legacy_cipher(LegacyCipherId id, const uint8_t* key);

}  // namespace warpvol
