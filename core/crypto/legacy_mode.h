// TrueCrypt's modes before XTS (docs/format-spec.md §6.5, §6.2): LRW (TrueCrypt 4.1-4.3a) and CBC with per-sector IV
// and whitening (before 4.1), as single-cipher CBC, outer-CBC (the cascade is the block cipher of one CBC chain) and
// inner-CBC (one CBC pass per cipher). Reading old volumes and migrating them away is all they are for.
//
// Key layout, for the header key as for the master key area (TrueCrypt Common/Volumes.c ReadVolumeHeader):
// bytes [0, 32) are the LRW tweak key (the first 16 bytes for 128-bit ciphers, 8 for 64-bit ones) or the CBC IV /
// whitening seed; the ciphers' keys follow from byte 32, each as long as the cipher takes (Blowfish 56, CAST5 16,
// Triple DES 24, the others 32), in encryption order.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/crypto/chain.h"
#include "core/crypto/legacy_cipher.h"

namespace warpvol {

enum class LegacyMode : uint8_t { Lrw, Cbc, OuterCbc, InnerCbc };
std::string_view legacy_mode_name(LegacyMode m);  // "LRW", "CBC", "outer-CBC", "inner-CBC"

// TrueCrypt 7.1a's encryption algorithms in its order (Common/Crypto.c), the ones with a legacy mode.
enum class LegacyEaId : uint8_t {
  Aes, Serpent, Twofish, AesTwofish, AesTwofishSerpent, SerpentAes, SerpentTwofishAes, TwofishSerpent,
  Blowfish, Cast5, TripleDes, AesBlowfish, AesBlowfishSerpent,
};

struct LegacyEaInfo {
  LegacyEaId id;
  std::string_view name;      // TrueCrypt's name, outermost cipher first: "AES-Blowfish-Serpent"
  std::string_view cli_name;  // "aes-blowfish-serpent", "triple-des"
  std::vector<LegacyCipherId> order;  // encryption order (first applied first)
  std::vector<LegacyMode> modes;      // the legacy modes TrueCrypt had for it
  std::optional<ChainId> xts_chain;   // the same ciphers as an XTS chain, when one exists
  size_t cipher_key_bytes() const;    // sum of the ciphers' key sizes
};
const std::vector<LegacyEaInfo>& all_legacy_eas();
const LegacyEaInfo& legacy_ea_info(LegacyEaId id);
std::optional<LegacyEaId> parse_legacy_ea(std::string_view name);  // names and cli names, case-insensitive

struct LegacySuite {
  LegacyEaId ea;
  LegacyMode mode;
  bool operator==(const LegacySuite&) const = default;
  std::string name() const;  // "AES-Blowfish (inner-CBC)"
  size_t key_bytes() const { return 32 + legacy_ea_info(ea).cipher_key_bytes(); }  // at most 152
  size_t block_size() const;  // of the first cipher: LRW and CBC work in its blocks
};
// Every (algorithm, mode) pair TrueCrypt 7.1a could open, in the order it tried them: modes LRW, CBC, outer-CBC,
// inner-CBC, and within each the algorithms in TrueCrypt's order.
const std::vector<LegacySuite>& all_legacy_suites();

class LegacyCrypt {
 public:
  // key: suite.key_bytes() bytes (layout above). lrw_unit_base: number of the data area's first 512-byte unit;
  // LRW counts its block index from there (1-based), CBC uses the unit numbers as given.
  LegacyCrypt(LegacySuite suite, const uint8_t* key, uint64_t lrw_unit_base);
  ~LegacyCrypt();
  LegacySuite suite() const { return suite_; }

  // The 448 encrypted header bytes (offsets 64..511), as TrueCrypt encrypted them: LRW from block index 1; CBC
  // with IV = key[0, block) and the 8 whitening bytes key[8, 16) (every cipher pass the same for inner-CBC).
  void header(Direction d, uint8_t* bytes448) const;
  // Whole 512-byte data units; unit0 = number of the first (host-relative, as for XTS).
  void units(Direction d, uint64_t unit0, uint8_t* data, size_t nunits) const;

 private:
  void lrw(Direction d, uint64_t index, uint8_t* data, size_t len) const;
  void cbc_pass(Direction d, const LegacyBlockCipher* only, const uint8_t* iv, const uint8_t* whitening,
                uint8_t* data, size_t len) const;  // only = nullptr: the whole cascade per block (outer-CBC)
  void cascade_block(Direction d, uint8_t* block) const;

  LegacySuite suite_;
  size_t bs_;
  uint64_t lrw_unit_base_;
  std::vector<std::unique_ptr<LegacyBlockCipher>> ciphers_;  // encryption order
  std::vector<uint8_t> seed_;                                 // 32 bytes
  // LRW: tweak key K2 and K2 x (2^(k+1) - 1) for k = 0..63 (big-endian field elements, high 64 bits first).
  struct Elem { uint64_t hi, lo; };
  Elem k2_{};
  std::vector<Elem> inc_;
  Elem mul(uint64_t index) const;
};

// TrueCrypt's per-sector CBC IV and whitening for a cipher block size (Common/Crypto.c
// InitSectorIVAndWhitening): IV = seed[0, bs) xor LE64(unit) per 8 bytes; whitening = two CRC-32 combinations of
// the next seed words xor LE64(unit). Exposed for tests. iv: bs bytes, whitening: 8 bytes.
void legacy_sector_iv(const uint8_t* seed32, uint64_t unit, size_t bs, uint8_t* iv, uint8_t* whitening);

// GF(2^128) (x^128 + x^7 + x^2 + x + 1) and GF(2^64) (x^64 + x^4 + x^3 + x + 1) products of big-endian byte
// strings, as LRW uses them. Exposed for tests.
void lrw_gf_mul(const uint8_t* a, const uint8_t* b, uint8_t* out, size_t width);

}  // namespace warpvol
