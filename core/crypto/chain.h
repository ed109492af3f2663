// VeraCrypt's 15 encryption algorithms (5 ciphers + 10 cascades), their ids, names and order of application
// (docs/format-spec.md §6.3). A cascade is successive full XTS passes; cipher i of `order` is applied i-th on
// encryption and uses key bytes [32i, 32i+32) (primary) and [K+32i, K+32i+32) (secondary), K = 32 * order.size().
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/crypto/cipher.h"
#include "core/crypto/xts.h"

namespace warpvol {

enum class ChainId : uint8_t {  // VeraCrypt's EA ids (src/Common/Crypto.h)
  Aes = 1,
  Serpent = 2,
  Twofish = 3,
  Camellia = 4,
  Kuznyechik = 5,
  AesTwofish = 6,
  AesTwofishSerpent = 7,
  SerpentAes = 8,
  SerpentTwofishAes = 9,
  TwofishSerpent = 10,
  CamelliaKuznyechik = 11,
  KuznyechikTwofish = 12,
  CamelliaSerpent = 13,
  KuznyechikAes = 14,
  KuznyechikSerpentCamellia = 15,
};

struct ChainInfo {
  ChainId id;
  std::string_view name;      // VeraCrypt name, "AES-Twofish-Serpent"
  std::string_view cli_name;  // "aes-twofish-serpent"
  std::vector<CipherId> order;  // encryption order (first applied first)
  bool in_truecrypt;            // TrueCrypt 7.1a had it
  size_t key_size() const { return 32 * order.size(); }  // K; header/master key material is 2K bytes
};

// In VeraCrypt's Linux auto-detection order (docs/format-spec.md §7.2).
const std::vector<ChainInfo>& all_chains();
const ChainInfo& chain_info(ChainId id);
// Accepts VeraCrypt names and cli names, case-insensitive ("AES-Twofish", "aes-twofish").
std::optional<ChainId> parse_chain(std::string_view name);
std::string chain_names_list();  // "aes, serpent, ..." for help texts

// The XTS ciphers of one chain with their keys, ready to process data units on the CPU.
class XtsChain {
 public:
  // key_material: 2K bytes, primary keys then secondary keys. max_level bounds the SIMD path.
  XtsChain(ChainId id, const uint8_t* key_material, IsaLevel max_level);
  XtsChain(ChainId id, const uint8_t* key_material) : XtsChain(id, key_material, active_isa()) {}
  ChainId id() const { return id_; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t nunits) const;
  void decrypt(uint64_t unit0, uint8_t* data, size_t nunits) const;
  void process(Direction d, uint64_t unit0, uint8_t* data, size_t nunits) const {
    d == Direction::Encrypt ? encrypt(unit0, data, nunits) : decrypt(unit0, data, nunits);
  }
  std::string impl_names() const;  // "avx512+portable" style, one per layer

 private:
  ChainId id_;
  std::vector<std::unique_ptr<XtsCipher>> layers_;  // encryption order
};

// Header encryption: the 448 bytes at header offsets 64..511 as data unit 0, blocks 0..27 (docs/format-spec.md §6.4),
// with reference ciphers. header_key: 2K bytes.
void chain_header_crypt(ChainId id, const uint8_t* header_key, Direction d, uint8_t* bytes448);

}  // namespace warpvol
