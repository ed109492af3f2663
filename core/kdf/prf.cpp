// PBKDF2-HMAC over the VeraCrypt/TrueCrypt PRFs, Argon2id, iteration counts (format-spec §5).
// PBKDF2 is the hot path of opening a volume (500,000 iterations per PRF and header slot), so the HMAC inner and
// outer states are computed once and copied for every iteration: two compressions per iteration. SHA-512,
// SHA-256, Whirlpool, RIPEMD-160 and SHA-1 use OpenSSL's low-level contexts (plain structs, assembly compression
// functions with SHA-NI/AVX2); BLAKE2s comes from Crypto++ and Streebog is our own (kdf/streebog.h).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "core/kdf/prf.h"

#include <argon2.h>
#include <cryptopp/blake2.h>
#include <openssl/ripemd.h>
#include <openssl/sha.h>
#include <openssl/whrlpool.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

#include "core/kdf/streebog.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/secure.h"

namespace warpvol {

namespace {

// Hashers: copyable objects with update/final, block and digest sizes.
struct Sha512H {
  static constexpr size_t kBlock = 128, kDigest = 64;
  SHA512_CTX c;
  Sha512H() { SHA512_Init(&c); }
  void update(const uint8_t* p, size_t n) { SHA512_Update(&c, p, n); }
  void final(uint8_t* out) { SHA512_Final(out, &c); }
};
struct Sha256H {
  static constexpr size_t kBlock = 64, kDigest = 32;
  SHA256_CTX c;
  Sha256H() { SHA256_Init(&c); }
  void update(const uint8_t* p, size_t n) { SHA256_Update(&c, p, n); }
  void final(uint8_t* out) { SHA256_Final(out, &c); }
};
struct Sha1H {
  static constexpr size_t kBlock = 64, kDigest = 20;
  SHA_CTX c;
  Sha1H() { SHA1_Init(&c); }
  void update(const uint8_t* p, size_t n) { SHA1_Update(&c, p, n); }
  void final(uint8_t* out) { SHA1_Final(out, &c); }
};
struct Ripemd160H {
  static constexpr size_t kBlock = 64, kDigest = 20;
  RIPEMD160_CTX c;
  Ripemd160H() { RIPEMD160_Init(&c); }
  void update(const uint8_t* p, size_t n) { RIPEMD160_Update(&c, p, n); }
  void final(uint8_t* out) { RIPEMD160_Final(out, &c); }
};
struct WhirlpoolH {
  static constexpr size_t kBlock = 64, kDigest = 64;
  WHIRLPOOL_CTX c;
  WhirlpoolH() { WHIRLPOOL_Init(&c); }
  void update(const uint8_t* p, size_t n) { WHIRLPOOL_Update(&c, p, n); }
  void final(uint8_t* out) { WHIRLPOOL_Final(out, &c); }
};
template <class T, size_t B, size_t D>
struct CryptoppH {
  static constexpr size_t kBlock = B, kDigest = D;
  T h;
  void update(const uint8_t* p, size_t n) { h.Update(p, n); }
  void final(uint8_t* out) { h.TruncatedFinal(out, D); }
};
using Blake2sH = CryptoppH<CryptoPP::BLAKE2s, 64, 32>;
using StreebogH = CryptoppH<Streebog512, 64, 64>;

template <class H>
struct HmacKeyed {
  H inner, outer;
  HmacKeyed(const uint8_t* key, size_t key_len) {
    uint8_t k[H::kBlock] = {};
    if (key_len > H::kBlock) {
      H h;
      h.update(key, key_len);
      h.final(k);
    } else if (key_len) {
      std::memcpy(k, key, key_len);
    }
    uint8_t pad[H::kBlock];
    for (size_t i = 0; i < H::kBlock; ++i) pad[i] = k[i] ^ 0x36;
    inner.update(pad, H::kBlock);
    for (size_t i = 0; i < H::kBlock; ++i) pad[i] = k[i] ^ 0x5c;
    outer.update(pad, H::kBlock);
    secure_wipe(k, sizeof k);
    secure_wipe(pad, sizeof pad);
  }
  ~HmacKeyed() {
    secure_wipe(&inner, sizeof inner);
    secure_wipe(&outer, sizeof outer);
  }
};

template <class H>
bool pbkdf2_block_t(const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len, uint32_t iterations,
                    uint32_t block_index, uint8_t* out, const std::atomic<bool>* cancel) {
  HmacKeyed<H> keyed(pw, pw_len);
  uint8_t u[H::kDigest], acc[H::kDigest];
  uint8_t idx[4];
  store_be32(idx, block_index);
  {
    H h = keyed.inner;
    h.update(salt, salt_len);
    h.update(idx, 4);
    h.final(u);
    H o = keyed.outer;
    o.update(u, H::kDigest);
    o.final(u);
  }
  std::memcpy(acc, u, H::kDigest);
  for (uint32_t i = 1; i < iterations; ++i) {
    if (cancel && (i & 1023) == 0 && cancel->load(std::memory_order_relaxed)) {
      secure_wipe(u, sizeof u);
      secure_wipe(acc, sizeof acc);
      return false;
    }
    H h = keyed.inner;
    h.update(u, H::kDigest);
    h.final(u);
    H o = keyed.outer;
    o.update(u, H::kDigest);
    o.final(u);
    for (size_t j = 0; j < H::kDigest; ++j) acc[j] ^= u[j];
  }
  std::memcpy(out, acc, H::kDigest);
  secure_wipe(u, sizeof u);
  secure_wipe(acc, sizeof acc);
  return true;
}

template <class H>
std::vector<uint8_t> hash_t(const uint8_t* p, size_t n) {
  std::vector<uint8_t> out(H::kDigest);
  H h;
  h.update(p, n);
  h.final(out.data());
  return out;
}

template <class H>
std::vector<uint8_t> hmac_t(const uint8_t* key, size_t key_len, const uint8_t* p, size_t n) {
  HmacKeyed<H> keyed(key, key_len);
  std::vector<uint8_t> out(H::kDigest);
  H h = keyed.inner;
  h.update(p, n);
  h.final(out.data());
  H o = keyed.outer;
  o.update(out.data(), out.size());
  o.final(out.data());
  return out;
}

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
  return r;
}

}  // namespace

const std::vector<PrfInfo>& all_prfs() {
  // VeraCrypt's auto-detection order on Linux (format-spec §7.2), then the legacy PRFs and Argon2id.
  static const std::vector<PrfInfo> prfs = {
      {PrfId::Sha512, "SHA-512", "sha512", 64, true, true},
      {PrfId::Sha256, "SHA-256", "sha256", 32, true, false},
      {PrfId::Blake2s, "BLAKE2s-256", "blake2s", 32, true, false},
      {PrfId::Whirlpool, "Whirlpool", "whirlpool", 64, true, true},
      {PrfId::Streebog, "Streebog", "streebog", 64, true, false},
      {PrfId::Ripemd160, "RIPEMD-160", "ripemd160", 20, false, true},
      {PrfId::Sha1, "SHA-1", "sha1", 20, false, true},
      {PrfId::Argon2id, "Argon2id", "argon2", 0, true, false},
  };
  return prfs;
}

const PrfInfo& prf_info(PrfId id) {
  for (const auto& p : all_prfs())
    if (p.id == id) return p;
  throw Error(ErrorKind::Usage, "unknown PRF");
}

std::optional<PrfId> parse_prf(std::string_view name) {
  std::string n = lower(name);
  if (n.rfind("hmac-", 0) == 0) n = n.substr(5);
  for (const auto& p : all_prfs()) {
    if (n == p.cli_name || n == lower(p.name)) return p.id;
  }
  if (n == "sha-512") return PrfId::Sha512;
  if (n == "sha-256") return PrfId::Sha256;
  if (n == "blake2s-256" || n == "blake2s256") return PrfId::Blake2s;
  if (n == "streebog-512" || n == "streebog512") return PrfId::Streebog;
  if (n == "ripemd-160" || n == "ripemd") return PrfId::Ripemd160;
  if (n == "argon2id") return PrfId::Argon2id;
  return std::nullopt;
}

uint32_t pbkdf2_iterations(PrfId prf, VolumeFormat fmt, int pim, bool system) {
  if (fmt == VolumeFormat::TrueCrypt) {
    if (pim > 0) return 0;  // TrueCrypt has no PIM
    switch (prf) {
      case PrfId::Ripemd160: return system ? 1000 : 2000;
      case PrfId::Sha512:
      case PrfId::Whirlpool: return system ? 0 : 1000;
      case PrfId::Sha1: return system ? 0 : 2000;
      default: return 0;
    }
  }
  switch (prf) {
    case PrfId::Sha512:
    case PrfId::Whirlpool:  // boot (EFI) uses the non-boot formula
      return pim > 0 ? 15000 + 1000 * uint32_t(pim) : 500000;
    case PrfId::Sha256:
    case PrfId::Blake2s:
    case PrfId::Streebog:
      if (system) return pim > 0 ? 2048 * uint32_t(pim) : 200000;
      return pim > 0 ? 15000 + 1000 * uint32_t(pim) : 500000;
    case PrfId::Ripemd160:  // VeraCrypt <= 1.25.9
      if (system) return pim > 0 ? 2048 * uint32_t(pim) : 327661;
      return pim > 0 ? 15000 + 1000 * uint32_t(pim) : 655331;
    default: return 0;
  }
}

Argon2Params argon2_params(int pim) {
  const uint32_t p = pim <= 0 ? 12 : uint32_t(pim);
  const uint32_t m_mib = std::min<uint32_t>(64 + 32 * (p - 1), 1024);
  const uint32_t t = p <= 31 ? 3 + (p - 1) / 3 : 13 + (p - 31);
  return {t, m_mib * 1024};
}

bool pbkdf2_block_cancellable(PrfId prf, const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len,
                              uint32_t iterations, uint32_t block_index, uint8_t* out,
                              const std::atomic<bool>* cancel) {
  switch (prf) {
    case PrfId::Sha512: return pbkdf2_block_t<Sha512H>(pw, pw_len, salt, salt_len, iterations, block_index, out, cancel);
    case PrfId::Sha256: return pbkdf2_block_t<Sha256H>(pw, pw_len, salt, salt_len, iterations, block_index, out, cancel);
    case PrfId::Blake2s: return pbkdf2_block_t<Blake2sH>(pw, pw_len, salt, salt_len, iterations, block_index, out, cancel);
    case PrfId::Whirlpool: return pbkdf2_block_t<WhirlpoolH>(pw, pw_len, salt, salt_len, iterations, block_index, out, cancel);
    case PrfId::Streebog: return pbkdf2_block_t<StreebogH>(pw, pw_len, salt, salt_len, iterations, block_index, out, cancel);
    case PrfId::Ripemd160: return pbkdf2_block_t<Ripemd160H>(pw, pw_len, salt, salt_len, iterations, block_index, out, cancel);
    case PrfId::Sha1: return pbkdf2_block_t<Sha1H>(pw, pw_len, salt, salt_len, iterations, block_index, out, cancel);
    case PrfId::Argon2id: break;
  }
  throw Error(ErrorKind::Usage, "Argon2id is not a PBKDF2 PRF");
}

void pbkdf2_block(PrfId prf, const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len,
                  uint32_t iterations, uint32_t block_index, uint8_t* out) {
  pbkdf2_block_cancellable(prf, pw, pw_len, salt, salt_len, iterations, block_index, out, nullptr);
}

void pbkdf2(PrfId prf, const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len, uint32_t iterations,
            uint8_t* out, size_t out_len) {
  const size_t d = prf_info(prf).digest_size;
  SecureBytes block(d);
  for (uint32_t i = 1; out_len; ++i) {
    pbkdf2_block(prf, pw, pw_len, salt, salt_len, iterations, i, block.data());
    const size_t n = std::min(d, out_len);
    std::memcpy(out, block.data(), n);
    out += n;
    out_len -= n;
  }
}

void argon2id(const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len, const Argon2Params& p,
              uint8_t* out, size_t out_len) {
  int rc = argon2id_hash_raw(p.t_cost, p.m_cost_kib, 1, pw, pw_len, salt, salt_len, out, out_len);
  if (rc != ARGON2_OK) throw Error(ErrorKind::Format, std::string("Argon2id failed: ") + argon2_error_message(rc));
}

std::vector<uint8_t> hash_bytes(PrfId prf, const uint8_t* p, size_t n) {
  switch (prf) {
    case PrfId::Sha512: return hash_t<Sha512H>(p, n);
    case PrfId::Sha256: return hash_t<Sha256H>(p, n);
    case PrfId::Blake2s: return hash_t<Blake2sH>(p, n);
    case PrfId::Whirlpool: return hash_t<WhirlpoolH>(p, n);
    case PrfId::Streebog: return hash_t<StreebogH>(p, n);
    case PrfId::Ripemd160: return hash_t<Ripemd160H>(p, n);
    case PrfId::Sha1: return hash_t<Sha1H>(p, n);
    case PrfId::Argon2id: break;
  }
  throw Error(ErrorKind::Usage, "Argon2id is not a hash");
}

std::vector<uint8_t> hmac_bytes(PrfId prf, const uint8_t* key, size_t key_len, const uint8_t* p, size_t n) {
  switch (prf) {
    case PrfId::Sha512: return hmac_t<Sha512H>(key, key_len, p, n);
    case PrfId::Sha256: return hmac_t<Sha256H>(key, key_len, p, n);
    case PrfId::Blake2s: return hmac_t<Blake2sH>(key, key_len, p, n);
    case PrfId::Whirlpool: return hmac_t<WhirlpoolH>(key, key_len, p, n);
    case PrfId::Streebog: return hmac_t<StreebogH>(key, key_len, p, n);
    case PrfId::Ripemd160: return hmac_t<Ripemd160H>(key, key_len, p, n);
    case PrfId::Sha1: return hmac_t<Sha1H>(key, key_len, p, n);
    case PrfId::Argon2id: break;
  }
  throw Error(ErrorKind::Usage, "Argon2id has no HMAC");
}

}  // namespace warpvol
