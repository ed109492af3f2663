#include "core/crypto/cipher.h"

#include <cryptopp/aes.h>
#include <cryptopp/camellia.h>
#include <cryptopp/serpent.h>
#include <cryptopp/twofish.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "core/crypto/kuznyechik.h"

namespace warpvol {

namespace {

// Crypto++ ECB through AdvancedProcessBlocks, which uses AES-NI for AES and processes several blocks per call.
template <class Algo>
class CryptoppCipher final : public BlockCipher {
 public:
  CryptoppCipher(CipherId id, const uint8_t* key) : id_(id) {
    enc_.SetKey(key, kCipherKeySize);
    dec_.SetKey(key, kCipherKeySize);
  }
  CipherId id() const override { return id_; }
  void encrypt(const uint8_t* in, uint8_t* out, size_t n) const override {
    if (n) enc_.AdvancedProcessBlocks(in, nullptr, out, n * kBlockSize, CryptoPP::BlockTransformation::BT_AllowParallel);
  }
  void decrypt(const uint8_t* in, uint8_t* out, size_t n) const override {
    if (n) dec_.AdvancedProcessBlocks(in, nullptr, out, n * kBlockSize, CryptoPP::BlockTransformation::BT_AllowParallel);
  }

 private:
  CipherId id_;
  typename Algo::Encryption enc_;
  typename Algo::Decryption dec_;
};

}  // namespace

std::string_view cipher_name(CipherId id) {
  switch (id) {
    case CipherId::Aes: return "AES";
    case CipherId::Serpent: return "Serpent";
    case CipherId::Twofish: return "Twofish";
    case CipherId::Camellia: return "Camellia";
    case CipherId::Kuznyechik: return "Kuznyechik";
  }
  return "?";
}

std::optional<CipherId> parse_cipher(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (CipherId id : {CipherId::Aes, CipherId::Serpent, CipherId::Twofish, CipherId::Camellia, CipherId::Kuznyechik}) {
    std::string n(cipher_name(id));
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    if (n == lower) return id;
  }
  return std::nullopt;
}

std::unique_ptr<BlockCipher> make_block_cipher(CipherId id, const uint8_t* key) {
  switch (id) {
    case CipherId::Aes: return std::make_unique<CryptoppCipher<CryptoPP::AES>>(id, key);
    case CipherId::Serpent: return std::make_unique<CryptoppCipher<CryptoPP::Serpent>>(id, key);
    case CipherId::Twofish: return std::make_unique<CryptoppCipher<CryptoPP::Twofish>>(id, key);
    case CipherId::Camellia: return std::make_unique<CryptoppCipher<CryptoPP::Camellia>>(id, key);
    case CipherId::Kuznyechik: return make_kuznyechik(key);
  }
  return nullptr;
}

}  // namespace warpvol
