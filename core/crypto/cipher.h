// The five 128-bit-block, 256-bit-key ciphers of VeraCrypt, as plain block ciphers (ECB over many blocks).
// These are the reference implementations: AES, Serpent, Twofish and Camellia come from Crypto++; Kuznyechik is
// written here (crypto/kuznyechik.h) because Crypto++ has none. SIMD XTS paths are checked against these.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace warpvol {

enum class CipherId : uint8_t { Aes, Serpent, Twofish, Camellia, Kuznyechik };
constexpr int kCipherCount = 5;
constexpr size_t kBlockSize = 16;
constexpr size_t kCipherKeySize = 32;

std::string_view cipher_name(CipherId id);  // "AES", "Serpent", ...
std::optional<CipherId> parse_cipher(std::string_view name);  // case-insensitive

class BlockCipher {
 public:
  virtual ~BlockCipher() = default;
  virtual CipherId id() const = 0;
  // in and out may be equal (in place); n is a number of 16-byte blocks.
  virtual void encrypt(const uint8_t* in, uint8_t* out, size_t n) const = 0;
  virtual void decrypt(const uint8_t* in, uint8_t* out, size_t n) const = 0;
};

// key: 32 bytes.
std::unique_ptr<BlockCipher> make_block_cipher(CipherId id, const uint8_t* key);

}  // namespace warpvol
