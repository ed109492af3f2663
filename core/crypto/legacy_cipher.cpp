#include "core/crypto/legacy_cipher.h"

#include <cryptopp/blowfish.h>
#include <cryptopp/cast.h>
#include <type_traits>
#include <cryptopp/des.h>

#include <cstring>

#include "core/crypto/cipher.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

const LegacyCipherInfo kInfo[] = {
    {LegacyCipherId::Aes, "AES", 16, 32},          {LegacyCipherId::Serpent, "Serpent", 16, 32},
    {LegacyCipherId::Twofish, "Twofish", 16, 32},  {LegacyCipherId::Blowfish, "Blowfish", 8, 56},
    {LegacyCipherId::Cast5, "CAST5", 8, 16},       {LegacyCipherId::TripleDes, "Triple DES", 8, 24},
};

// The 128-bit ciphers are VeraCrypt's (crypto/cipher.h): TrueCrypt applied them to bytes the same way.
class Wide final : public LegacyBlockCipher {
 public:
  Wide(CipherId id, const uint8_t* key) : c_(make_block_cipher(id, key)) {}
  size_t block_size() const override { return 16; }
  void encrypt(const uint8_t* in, uint8_t* out, size_t n) const override { c_->encrypt(in, out, n); }
  void decrypt(const uint8_t* in, uint8_t* out, size_t n) const override { c_->decrypt(in, out, n); }

 private:
  std::unique_ptr<BlockCipher> c_;
};

// TrueCrypt's Blowfish works on the block as two 32-bit words loaded in the machine's (little-endian) order,
// where standard Blowfish loads them big-endian (cryptsetup calls TrueCrypt's variant "blowfish_le"). So each
// 4-byte half is byte-reversed before and after the standard cipher. The key schedule is the standard one.
// CAST5 and Triple DES need no such change: TrueCrypt's code for them loads words as the standards do.
template <class Algo, bool kSwapHalves>
class Narrow final : public LegacyBlockCipher {
 public:
  Narrow(const uint8_t* key, size_t key_len) {
    enc_.SetKey(key, key_len);
    dec_.SetKey(key, key_len);
  }
  size_t block_size() const override { return 8; }
  void encrypt(const uint8_t* in, uint8_t* out, size_t n) const override { run(enc_, in, out, n); }
  void decrypt(const uint8_t* in, uint8_t* out, size_t n) const override { run(dec_, in, out, n); }

 private:
  static void swap_halves(uint8_t* b) {
    std::swap(b[0], b[3]);
    std::swap(b[1], b[2]);
    std::swap(b[4], b[7]);
    std::swap(b[5], b[6]);
  }
  // Crypto++'s CAST-128 keeps scratch words in the cipher object (`mutable m_t`), so ProcessBlock on one object
  // from several threads (an engine's threads share a prepared key) corrupts blocks: each call works on its own
  // copy of the key schedule (a few hundred bytes, once per call of many blocks). Blowfish and DES-EDE3 keep no
  // such state.
  template <class T>
  static void run(const T& shared, const uint8_t* in, uint8_t* out, size_t n) {
    if constexpr (std::is_same_v<Algo, CryptoPP::CAST128>) {
      T own(shared);
      process(own, in, out, n);
    } else {
      process(shared, in, out, n);
    }
  }
  template <class T>
  static void process(const T& t, const uint8_t* in, uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      uint8_t b[8];
      std::memcpy(b, in + 8 * i, 8);
      if (kSwapHalves) swap_halves(b);
      t.ProcessBlock(b);
      if (kSwapHalves) swap_halves(b);
      std::memcpy(out + 8 * i, b, 8);
    }
  }
  typename Algo::Encryption enc_;
  typename Algo::Decryption dec_;
};

}  // namespace

const LegacyCipherInfo& legacy_cipher_info(LegacyCipherId id) { return kInfo[size_t(id)]; }

std::unique_ptr<LegacyBlockCipher> make_legacy_cipher(LegacyCipherId id, const uint8_t* key) {
  switch (id) {
    case LegacyCipherId::Aes: return std::make_unique<Wide>(CipherId::Aes, key);
    case LegacyCipherId::Serpent: return std::make_unique<Wide>(CipherId::Serpent, key);
    case LegacyCipherId::Twofish: return std::make_unique<Wide>(CipherId::Twofish, key);
    case LegacyCipherId::Blowfish: return std::make_unique<Narrow<CryptoPP::Blowfish, true>>(key, 56);
    case LegacyCipherId::Cast5: return std::make_unique<Narrow<CryptoPP::CAST128, false>>(key, 16);
    case LegacyCipherId::TripleDes: return std::make_unique<Narrow<CryptoPP::DES_EDE3, false>>(key, 24);
  }
  throw Error(ErrorKind::Format, "unknown legacy cipher");
}

}  // namespace warpvol
