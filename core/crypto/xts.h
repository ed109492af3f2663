// XTS (IEEE 1619) as VeraCrypt uses it: 512-byte data units, tweak = E_K2(LE64(unit) || 0^8), T_{j+1} = T_j * x
// in GF(2^128), no ciphertext stealing. A data unit's number is its absolute byte offset in the container / 512.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "core/crypto/cipher.h"
#include "core/crypto/cpu_features.h"

namespace warpvol {

constexpr size_t kDataUnitSize = 512;
constexpr size_t kBlocksPerUnit = kDataUnitSize / kBlockSize;  // 32

enum class Direction { Encrypt, Decrypt };

// One cipher in XTS mode with its data key K1 and tweak key K2, over whole data units.
class XtsCipher {
 public:
  virtual ~XtsCipher() = default;
  virtual CipherId cipher() const = 0;
  virtual std::string_view impl_name() const = 0;  // e.g. "avx512", "portable"
  // Processes nunits consecutive data units in place; the first has number unit0.
  virtual void encrypt(uint64_t unit0, uint8_t* data, size_t nunits) const = 0;
  virtual void decrypt(uint64_t unit0, uint8_t* data, size_t nunits) const = 0;
  void process(Direction d, uint64_t unit0, uint8_t* data, size_t nunits) const {
    d == Direction::Encrypt ? encrypt(unit0, data, nunits) : decrypt(unit0, data, nunits);
  }
};

// Best implementation for the active ISA level (or at most `max_level`). key1 = data key, key2 = tweak key.
std::unique_ptr<XtsCipher> make_xts(CipherId id, const uint8_t* key1, const uint8_t* key2);
std::unique_ptr<XtsCipher> make_xts(CipherId id, const uint8_t* key1, const uint8_t* key2, IsaLevel max_level);
// The portable implementation over BlockCipher (always available; the reference for the SIMD paths).
std::unique_ptr<XtsCipher> make_xts_portable(CipherId id, const uint8_t* key1, const uint8_t* key2);

// XTS over the first `nblocks` blocks of one data unit, on reference ciphers. Used for the 448-byte header
// (blocks 0..27 of unit 0) where whole units do not apply.
void xts_blocks(const BlockCipher& data_cipher, const BlockCipher& tweak_cipher, Direction d, uint64_t unit,
                uint8_t* data, size_t nblocks);

// Multiply a 16-byte little-endian XTS tweak by x (alpha) in place.
inline void xts_mul_alpha(uint8_t* t) {
  uint64_t lo, hi;
  __builtin_memcpy(&lo, t, 8);
  __builtin_memcpy(&hi, t + 8, 8);
  uint64_t carry = hi >> 63;
  hi = (hi << 1) | (lo >> 63);
  lo = (lo << 1) ^ (carry * 0x87);
  __builtin_memcpy(t, &lo, 8);
  __builtin_memcpy(t + 8, &hi, 8);
}

}  // namespace warpvol
