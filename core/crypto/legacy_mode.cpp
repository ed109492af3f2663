#include "core/crypto/legacy_mode.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/secure.h"

namespace warpvol {

namespace {

using C = LegacyCipherId;
using M = LegacyMode;

const std::vector<LegacyEaInfo>& eas() {
  static const std::vector<LegacyEaInfo> v = {
      {LegacyEaId::Aes, "AES", "aes", {C::Aes}, {M::Lrw, M::Cbc}, ChainId::Aes},
      {LegacyEaId::Serpent, "Serpent", "serpent", {C::Serpent}, {M::Lrw, M::Cbc}, ChainId::Serpent},
      {LegacyEaId::Twofish, "Twofish", "twofish", {C::Twofish}, {M::Lrw, M::Cbc}, ChainId::Twofish},
      {LegacyEaId::AesTwofish, "AES-Twofish", "aes-twofish", {C::Twofish, C::Aes}, {M::Lrw, M::OuterCbc},
       ChainId::AesTwofish},
      {LegacyEaId::AesTwofishSerpent, "AES-Twofish-Serpent", "aes-twofish-serpent", {C::Serpent, C::Twofish, C::Aes},
       {M::Lrw, M::OuterCbc}, ChainId::AesTwofishSerpent},
      {LegacyEaId::SerpentAes, "Serpent-AES", "serpent-aes", {C::Aes, C::Serpent}, {M::Lrw, M::OuterCbc},
       ChainId::SerpentAes},
      {LegacyEaId::SerpentTwofishAes, "Serpent-Twofish-AES", "serpent-twofish-aes", {C::Aes, C::Twofish, C::Serpent},
       {M::Lrw, M::OuterCbc}, ChainId::SerpentTwofishAes},
      {LegacyEaId::TwofishSerpent, "Twofish-Serpent", "twofish-serpent", {C::Serpent, C::Twofish},
       {M::Lrw, M::OuterCbc}, ChainId::TwofishSerpent},
      {LegacyEaId::Blowfish, "Blowfish", "blowfish", {C::Blowfish}, {M::Lrw, M::Cbc}, std::nullopt},
      {LegacyEaId::Cast5, "CAST5", "cast5", {C::Cast5}, {M::Lrw, M::Cbc}, std::nullopt},
      {LegacyEaId::TripleDes, "Triple DES", "triple-des", {C::TripleDes}, {M::Lrw, M::Cbc}, std::nullopt},
      {LegacyEaId::AesBlowfish, "AES-Blowfish", "aes-blowfish", {C::Blowfish, C::Aes}, {M::InnerCbc}, std::nullopt},
      {LegacyEaId::AesBlowfishSerpent, "AES-Blowfish-Serpent", "aes-blowfish-serpent",
       {C::Serpent, C::Blowfish, C::Aes}, {M::InnerCbc}, std::nullopt},
  };
  return v;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

// Field arithmetic on big-endian elements: width 16 = GF(2^128), width 8 = GF(2^64) (held in lo).
struct Gf {
  uint64_t hi, lo;
};
Gf xtime(Gf a, size_t width) {
  if (width == 16) {
    const bool carry = a.hi >> 63;
    a.hi = a.hi << 1 | a.lo >> 63;
    a.lo <<= 1;
    if (carry) a.lo ^= 0x87;
  } else {
    const bool carry = a.lo >> 63;
    a.lo <<= 1;
    if (carry) a.lo ^= 0x1b;
  }
  return a;
}
Gf gf_mul(Gf a, Gf b, size_t width) {
  Gf r{0, 0};
  for (int bit = int(width * 8) - 1; bit >= 0; --bit) {
    r = xtime(r, width);
    const uint64_t word = bit >= 64 ? b.hi : b.lo;
    if (word >> (bit & 63) & 1) {
      r.hi ^= a.hi;
      r.lo ^= a.lo;
    }
  }
  return r;
}
Gf gf_load(const uint8_t* p, size_t width) {
  return width == 16 ? Gf{load_be64(p), load_be64(p + 8)} : Gf{0, load_be64(p)};
}
void gf_store(Gf a, uint8_t* p, size_t width) {
  if (width == 16) {
    store_be64(p, a.hi);
    store_be64(p + 8, a.lo);
  } else {
    store_be64(p, a.lo);
  }
}

void xor_bytes(uint8_t* a, const uint8_t* b, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] ^= b[i];
}

}  // namespace

std::string_view legacy_mode_name(LegacyMode m) {
  switch (m) {
    case LegacyMode::Lrw: return "LRW";
    case LegacyMode::Cbc: return "CBC";
    case LegacyMode::OuterCbc: return "outer-CBC";
    case LegacyMode::InnerCbc: return "inner-CBC";
  }
  return "?";
}

size_t LegacyEaInfo::cipher_key_bytes() const {
  size_t n = 0;
  for (C c : order) n += legacy_cipher_info(c).key_size;
  return n;
}

const std::vector<LegacyEaInfo>& all_legacy_eas() { return eas(); }
const LegacyEaInfo& legacy_ea_info(LegacyEaId id) { return eas()[size_t(id)]; }

std::optional<LegacyEaId> parse_legacy_ea(std::string_view name) {
  const std::string n = lower(name);
  for (const auto& e : eas())
    if (n == e.cli_name || n == lower(e.name)) return e.id;
  return std::nullopt;
}

std::string LegacySuite::name() const {
  return std::string(legacy_ea_info(ea).name) + " (" + std::string(legacy_mode_name(mode)) + ")";
}

size_t LegacySuite::block_size() const { return legacy_cipher_info(legacy_ea_info(ea).order.front()).block_size; }

const std::vector<LegacySuite>& all_legacy_suites() {
  static const std::vector<LegacySuite> v = [] {
    std::vector<LegacySuite> out;
    for (M m : {M::Lrw, M::Cbc, M::OuterCbc, M::InnerCbc})
      for (const auto& e : eas())
        if (std::find(e.modes.begin(), e.modes.end(), m) != e.modes.end()) out.push_back({e.id, m});
    return out;
  }();
  return v;
}

void lrw_gf_mul(const uint8_t* a, const uint8_t* b, uint8_t* out, size_t width) {
  gf_store(gf_mul(gf_load(a, width), gf_load(b, width), width), out, width);
}

void legacy_sector_iv(const uint8_t* seed, uint64_t unit, size_t bs, uint8_t* iv, uint8_t* whitening) {
  uint8_t w[32];  // the seed's four 64-bit words, each xor the unit number (little-endian)
  for (int k = 0; k < 4; ++k) store_le64(w + 8 * k, load_le64(seed + 8 * k) ^ unit);
  // 32-bit words of w: 16-byte blocks whiten with words 4..7, 8-byte blocks with words 2..5.
  auto crc = [&](int word) { return crc32(w + 4 * word, 4); };
  uint32_t w0, w1;
  if (bs == 16) {
    std::memcpy(iv, w, 16);
    w0 = crc(4) ^ crc(7);
    w1 = crc(5) ^ crc(6);
  } else {
    std::memcpy(iv, w, 8);
    w0 = crc(2) ^ crc(5);
    w1 = crc(3) ^ crc(4);
  }
  store_le32(whitening, w0);
  store_le32(whitening + 4, w1);
}

LegacyCrypt::LegacyCrypt(LegacySuite suite, const uint8_t* key, uint64_t lrw_unit_base)
    : suite_(suite), bs_(suite.block_size()), lrw_unit_base_(lrw_unit_base), seed_(key, key + 32) {
  const LegacyEaInfo& ea = legacy_ea_info(suite.ea);
  if (std::find(ea.modes.begin(), ea.modes.end(), suite.mode) == ea.modes.end())
    throw Error(ErrorKind::Format, "TrueCrypt never used " + suite.name());
  size_t off = 32;
  for (C c : ea.order) {
    ciphers_.push_back(make_legacy_cipher(c, key + off));
    off += legacy_cipher_info(c).key_size;
  }
  if (suite.mode == LegacyMode::Lrw) {
    k2_ = bs_ == 16 ? Elem{load_be64(key), load_be64(key + 8)} : Elem{0, load_be64(key)};
    // Index i+1 differs from i in its trailing ones and the bit above them: K2*(i+1) = K2*i ^ inc_[ctz(~i)].
    inc_.resize(64);
    for (int k = 0; k < 64; ++k) {
      const uint64_t m = k == 63 ? ~uint64_t(0) : (uint64_t(1) << (k + 1)) - 1;
      const Gf r = gf_mul(Gf{k2_.hi, k2_.lo}, Gf{0, m}, bs_);
      inc_[size_t(k)] = {r.hi, r.lo};
    }
  }
}

LegacyCrypt::~LegacyCrypt() {
  secure_wipe(seed_.data(), seed_.size());
  k2_ = {0, 0};
  for (auto& e : inc_) e = {0, 0};
}

LegacyCrypt::Elem LegacyCrypt::mul(uint64_t index) const {
  const Gf r = gf_mul(Gf{k2_.hi, k2_.lo}, Gf{0, index}, bs_);
  return {r.hi, r.lo};
}

void LegacyCrypt::cascade_block(Direction d, uint8_t* block) const {
  if (d == Direction::Encrypt)
    for (const auto& c : ciphers_) c->encrypt(block, block, 1);
  else
    for (auto it = ciphers_.rbegin(); it != ciphers_.rend(); ++it) (*it)->decrypt(block, block, 1);
}

void LegacyCrypt::lrw(Direction d, uint64_t index, uint8_t* data, size_t len) const {
  Elem t = mul(index);
  uint8_t tb[16];
  for (size_t off = 0; off < len; off += bs_) {
    gf_store(Gf{t.hi, t.lo}, tb, bs_);
    xor_bytes(data + off, tb, bs_);
    cascade_block(d, data + off);
    xor_bytes(data + off, tb, bs_);
    const Elem& step = inc_[size_t(std::min(63, __builtin_ctzll(~index)))];
    t.hi ^= step.hi;
    t.lo ^= step.lo;
    ++index;
  }
}

void LegacyCrypt::cbc_pass(Direction d, const LegacyBlockCipher* only, const uint8_t* iv, const uint8_t* whitening,
                           uint8_t* data, size_t len) const {
  const size_t bs = only ? only->block_size() : bs_;
  uint8_t prev[16], save[16];
  std::memcpy(prev, iv, bs);
  for (size_t off = 0; off < len; off += bs) {
    uint8_t* b = data + off;
    if (d == Direction::Encrypt) {
      xor_bytes(b, prev, bs);
      if (only) only->encrypt(b, b, 1); else cascade_block(d, b);
      std::memcpy(prev, b, bs);
      for (size_t k = 0; k < bs; k += 8) xor_bytes(b + k, whitening, 8);
    } else {
      for (size_t k = 0; k < bs; k += 8) xor_bytes(b + k, whitening, 8);
      std::memcpy(save, b, bs);
      if (only) only->decrypt(b, b, 1); else cascade_block(d, b);
      xor_bytes(b, prev, bs);
      std::memcpy(prev, save, bs);
    }
  }
}

void LegacyCrypt::header(Direction d, uint8_t* bytes448) const {
  constexpr size_t kLen = 448;
  switch (suite_.mode) {
    case LegacyMode::Lrw:
      lrw(d, 1, bytes448, kLen);
      return;
    case LegacyMode::OuterCbc:
      cbc_pass(d, nullptr, seed_.data(), seed_.data() + 8, bytes448, kLen);
      return;
    case LegacyMode::Cbc:
    case LegacyMode::InnerCbc:
      if (d == Direction::Encrypt)
        for (const auto& c : ciphers_) cbc_pass(d, c.get(), seed_.data(), seed_.data() + 8, bytes448, kLen);
      else
        for (auto it = ciphers_.rbegin(); it != ciphers_.rend(); ++it)
          cbc_pass(d, it->get(), seed_.data(), seed_.data() + 8, bytes448, kLen);
      return;
  }
}

void LegacyCrypt::units(Direction d, uint64_t unit0, uint8_t* data, size_t nunits) const {
  if (suite_.mode == LegacyMode::Lrw) {
    // Block indices run on across units: the data area's first block is index 1.
    lrw(d, (unit0 - lrw_unit_base_) * (kDataUnitSize / bs_) + 1, data, nunits * kDataUnitSize);
    return;
  }
  uint8_t iv[16], wh[8];
  for (size_t u = 0; u < nunits; ++u) {
    const uint64_t unit = unit0 + u;
    uint8_t* p = data + u * kDataUnitSize;
    if (suite_.mode == LegacyMode::OuterCbc) {
      legacy_sector_iv(seed_.data(), unit, bs_, iv, wh);
      cbc_pass(d, nullptr, iv, wh, p, kDataUnitSize);
      continue;
    }
    auto pass = [&](const LegacyBlockCipher& c) {
      legacy_sector_iv(seed_.data(), unit, c.block_size(), iv, wh);
      cbc_pass(d, &c, iv, wh, p, kDataUnitSize);
    };
    if (d == Direction::Encrypt)
      for (const auto& c : ciphers_) pass(*c);
    else
      for (auto it = ciphers_.rbegin(); it != ciphers_.rend(); ++it) pass(**it);
  }
  secure_wipe(iv, sizeof iv);
  secure_wipe(wh, sizeof wh);
}

}  // namespace warpvol
