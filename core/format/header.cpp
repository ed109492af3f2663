#include "core/format/header.h"

#include <cstring>

#include "core/util/bytes.h"
#include "core/util/error.h"

namespace warpvol {

HeaderCheck check_header(const uint8_t* b, uint32_t expected_magic) {
  if (load_be32(b + 64) != expected_magic) return HeaderCheck::BadMagic;
  const uint16_t version = load_be16(b + 68);
  if (version > kHeaderVersion) return HeaderCheck::NewerVersion;
  if (version >= 4 && crc32(b + 64, 188) != load_be32(b + 252)) return HeaderCheck::BadCrc;
  if (crc32(b + 256, 256) != load_be32(b + 72)) return HeaderCheck::BadCrc;
  if (version >= 5) {
    const uint32_t ss = load_be32(b + 128);
    if (ss < 512 || ss > 4096 || ss % 512) return HeaderCheck::BadSectorSize;
  }
  return HeaderCheck::Ok;
}

HeaderFields parse_header(const uint8_t* b) {
  HeaderFields f;
  f.magic = load_be32(b + 64);
  f.version = load_be16(b + 68);
  f.required_version = load_be16(b + 70);
  f.key_area_crc = load_be32(b + 72);
  if (f.version == 3) {
    f.volume_creation_time = load_be64(b + 76);
    f.header_creation_time = load_be64(b + 84);
  }
  f.hidden_volume_size = load_be64(b + 92);
  if (f.version >= 3) {
    f.volume_size = load_be64(b + 100);
    f.encrypted_area_start = load_be64(b + 108);
    f.encrypted_area_length = load_be64(b + 116);
  }
  if (f.version >= 4) {
    f.flags = load_be32(b + 124);
    f.header_crc = load_be32(b + 252);
  }
  f.sector_size = f.version >= 5 ? load_be32(b + 128) : 512;
  std::memcpy(f.key_area.data(), b + 256, 256);
  return f;
}

void serialize_header(const HeaderFields& f, uint8_t* b) {
  std::memset(b + 64, 0, kHeaderSize - 64);
  store_be32(b + 64, f.magic);
  store_be16(b + 68, f.version);
  store_be16(b + 70, f.required_version);
  if (f.version == 3) {
    store_be64(b + 76, f.volume_creation_time);
    store_be64(b + 84, f.header_creation_time);
  }
  store_be64(b + 92, f.hidden_volume_size);
  store_be64(b + 100, f.volume_size);
  store_be64(b + 108, f.encrypted_area_start);
  store_be64(b + 116, f.encrypted_area_length);
  store_be32(b + 124, f.flags);
  if (f.version >= 5) store_be32(b + 128, f.sector_size);
  std::memcpy(b + 256, f.key_area.data(), 256);
  store_be32(b + 72, crc32(b + 256, 256));
  if (f.version >= 4) store_be32(b + 252, crc32(b + 64, 188));
}

std::string KdfChoice::describe() const {
  if (prf == PrfId::Argon2id)
    return "Argon2id, t=" + std::to_string(argon2.t_cost) + ", m=" + std::to_string(argon2.m_cost_kib) + " KiB";
  return "HMAC-" + std::string(prf_info(prf).name) + ", " + std::to_string(iterations) + " iterations";
}

void derive_header_key(const KdfChoice& kdf, const LockedBytes& password, const uint8_t* salt, uint8_t* out,
                       size_t key_len) {
  if (kdf.prf == PrfId::Argon2id) {
    // Argon2 output is not prefix-stable: always derive the full 192 bytes, as VeraCrypt does.
    SecureBytes full(kHeaderKeyMaterial);
    argon2id(password.data(), password.size(), salt, kSaltSize, kdf.argon2, full.data(), full.size());
    std::memcpy(out, full.data(), key_len);
    return;
  }
  pbkdf2(kdf.prf, password.data(), password.size(), salt, kSaltSize, kdf.iterations, out, key_len);
}

void encrypt_header(ChainId chain, const uint8_t* header_key, uint8_t* header512) {
  chain_header_crypt(chain, header_key, Direction::Encrypt, header512 + 64);
}

void decrypt_header(ChainId chain, const uint8_t* header_key, uint8_t* header512) {
  chain_header_crypt(chain, header_key, Direction::Decrypt, header512 + 64);
}

}  // namespace warpvol
