// Portable XTS over the reference block ciphers. Works on batches of data units so the ECB calls see many blocks
// (Crypto++'s AES uses AES-NI across 4+ blocks per call): tweaks for a batch are computed into a buffer, XORed,
// the whole batch goes through ECB, and the tweaks are XORed again.
#include <cstring>
#include <vector>

#include "core/crypto/xts.h"

namespace warpvol {

namespace {

constexpr size_t kBatchUnits = 16;  // 8 KiB of data and tweaks per batch: stays in L1

class PortableXts final : public XtsCipher {
 public:
  PortableXts(CipherId id, const uint8_t* key1, const uint8_t* key2)
      : data_(make_block_cipher(id, key1)), tweak_(make_block_cipher(id, key2)) {}
  CipherId cipher() const override { return data_->id(); }
  std::string_view impl_name() const override { return "portable"; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { run(Direction::Encrypt, unit0, data, nunits); }
  void decrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { run(Direction::Decrypt, unit0, data, nunits); }

 private:
  void run(Direction d, uint64_t unit0, uint8_t* data, size_t nunits) const {
    alignas(16) uint8_t tweaks[kBatchUnits * kDataUnitSize];
    alignas(16) uint8_t first[kBatchUnits * kBlockSize];
    while (nunits) {
      const size_t n = nunits < kBatchUnits ? nunits : kBatchUnits;
      std::memset(first, 0, n * kBlockSize);
      for (size_t u = 0; u < n; ++u) {
        uint64_t unit = unit0 + u;
        for (int i = 0; i < 8; ++i) first[u * kBlockSize + i] = uint8_t(unit >> (8 * i));
      }
      tweak_->encrypt(first, first, n);
      for (size_t u = 0; u < n; ++u) {
        uint8_t* t = tweaks + u * kDataUnitSize;
        std::memcpy(t, first + u * kBlockSize, kBlockSize);
        for (size_t j = 1; j < kBlocksPerUnit; ++j) {
          std::memcpy(t + j * kBlockSize, t + (j - 1) * kBlockSize, kBlockSize);
          xts_mul_alpha(t + j * kBlockSize);
        }
      }
      const size_t bytes = n * kDataUnitSize;
      xor_into(data, tweaks, bytes);
      if (d == Direction::Encrypt)
        data_->encrypt(data, data, n * kBlocksPerUnit);
      else
        data_->decrypt(data, data, n * kBlocksPerUnit);
      xor_into(data, tweaks, bytes);
      data += bytes;
      unit0 += n;
      nunits -= n;
    }
  }
  static void xor_into(uint8_t* dst, const uint8_t* src, size_t n) {
    for (size_t i = 0; i < n; i += 8) {
      uint64_t a, b;
      std::memcpy(&a, dst + i, 8);
      std::memcpy(&b, src + i, 8);
      a ^= b;
      std::memcpy(dst + i, &a, 8);
    }
  }
  std::unique_ptr<BlockCipher> data_, tweak_;
};

}  // namespace

std::unique_ptr<XtsCipher> make_xts_portable(CipherId id, const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<PortableXts>(id, key1, key2);
}

void xts_blocks(const BlockCipher& data_cipher, const BlockCipher& tweak_cipher, Direction d, uint64_t unit,
                uint8_t* data, size_t nblocks) {
  alignas(16) uint8_t t[kBlockSize] = {};
  for (int i = 0; i < 8; ++i) t[i] = uint8_t(unit >> (8 * i));
  tweak_cipher.encrypt(t, t, 1);
  for (size_t j = 0; j < nblocks; ++j) {
    uint8_t* b = data + j * kBlockSize;
    for (size_t i = 0; i < kBlockSize; ++i) b[i] ^= t[i];
    if (d == Direction::Encrypt)
      data_cipher.encrypt(b, b, 1);
    else
      data_cipher.decrypt(b, b, 1);
    for (size_t i = 0; i < kBlockSize; ++i) b[i] ^= t[i];
    xts_mul_alpha(t);
  }
}

}  // namespace warpvol
