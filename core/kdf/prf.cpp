// PBKDF2-HMAC over the VeraCrypt/TrueCrypt PRFs, iteration counts (docs/format-spec.md §5); Argon2id is in
// argon2.cpp.
// PBKDF2 is the hot path of opening a volume (500,000 iterations per PRF and header slot), so the HMAC inner and
// outer states are computed once and copied for every iteration: two compressions per iteration. SHA-512,
// SHA-256, RIPEMD-160 and SHA-1 use OpenSSL's low-level contexts (plain structs, assembly compression functions
// with SHA-NI/AVX2); PBKDF2-Whirlpool is our own (kdf/whirlpool.h: fixed key schedule, OpenSSL's Whirlpool serves
// the plain hash and HMAC); PBKDF2-BLAKE2s is our own (kdf/blake2s.h: several blocks in AVX2 lanes), Crypto++'s
// BLAKE2s serves the plain hash and HMAC (self-test, vectors), and Streebog is our own (kdf/streebog.h), with its
// own PBKDF2 loop that reuses the round keys of each iteration's first compression.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "core/kdf/prf.h"

#include <cryptopp/blake2.h>
#include <openssl/ripemd.h>
#include <openssl/sha.h>
#include <openssl/whrlpool.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/kdf/blake2s.h"
#include "core/kdf/sha512_lanes.h"
#include "core/kdf/streebog.h"
#include "core/kdf/whirlpool.h"
#include "core/util/bytes.h"
#include "core/util/cores.h"
#include "core/util/error.h"
#include "core/util/parallel.h"
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
  // OpenSSL's contexts are plain structs, wiped here. A C++ hash (Crypto++'s, Streebog512) wipes its own state in
  // its destructor: wiping its bytes here would also zero its vtable pointer and its buffers' pointers before that
  // destructor runs (UBSan: a member call on an object with an invalid vptr).
  ~HmacKeyed() {
    if constexpr (std::is_trivially_destructible_v<H>) {
      secure_wipe(&inner, sizeof inner);
      secure_wipe(&outer, sizeof outer);
    }
  }
};

template <class H>
bool pbkdf2_block_t(const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len, uint32_t iterations,
                    uint32_t block_index, uint8_t* out, const std::atomic<bool>* cancel) {
  // The working copies of the keyed states are wiped like the digests: plain OpenSSL contexts only.
  static_assert(std::is_trivially_destructible_v<H>);
  HmacKeyed<H> keyed(pw, pw_len);
  H h = keyed.inner, o = keyed.outer;
  uint8_t u[H::kDigest], acc[H::kDigest];
  const auto wipe = [&] {
    secure_wipe(&h, sizeof h);
    secure_wipe(&o, sizeof o);
    secure_wipe(u, sizeof u);
    secure_wipe(acc, sizeof acc);
  };
  uint8_t idx[4];
  store_be32(idx, block_index);
  h.update(salt, salt_len);
  h.update(idx, 4);
  h.final(u);
  o.update(u, H::kDigest);
  o.final(u);
  std::memcpy(acc, u, H::kDigest);
  for (uint32_t i = 1; i < iterations; ++i) {
    if (pbkdf2_cancelled(cancel, i)) {
      wipe();
      return false;
    }
    h = keyed.inner;
    h.update(u, H::kDigest);
    h.final(u);
    o = keyed.outer;
    o.update(u, H::kDigest);
    o.final(u);
    for (size_t j = 0; j < H::kDigest; ++j) acc[j] ^= u[j];
  }
  std::memcpy(out, acc, H::kDigest);
  wipe();
  return true;
}

// Fast path for SHA-512 and SHA-256: each HMAC iteration is exactly two compressions of a block whose padding
// and length never change, so the blocks are laid out once and only the digest bytes are rewritten. This avoids
// the Update/Final bookkeeping and copies of whole contexts (docs/perf/design-figures.md, "BLAKE2s and SHA-2 PBKDF2").
template <class Ctx, class Word, size_t kBlock, size_t kDigest, void (*Transform)(Ctx*, const unsigned char*)>
bool pbkdf2_md_fast(const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len, uint32_t iterations,
                    uint32_t block_index, uint8_t* out, const std::atomic<bool>* cancel,
                    void (*init)(Ctx*), void (*update)(Ctx*, const void*, size_t),
                    void (*final)(unsigned char*, Ctx*)) {
  constexpr size_t kWords = kDigest / sizeof(Word);
  constexpr size_t kLenBytes = kBlock == 128 ? 16 : 8;
  // Key the inner and outer states.
  uint8_t k[kBlock] = {};
  Ctx ictx, octx;
  if (pw_len > kBlock) {
    init(&ictx);
    update(&ictx, pw, pw_len);
    final(k, &ictx);
  } else if (pw_len) {
    std::memcpy(k, pw, pw_len);
  }
  uint8_t pad[kBlock];
  for (size_t i = 0; i < kBlock; ++i) pad[i] = k[i] ^ 0x36;
  init(&ictx);
  update(&ictx, pad, kBlock);
  for (size_t i = 0; i < kBlock; ++i) pad[i] = k[i] ^ 0x5c;
  init(&octx);
  update(&octx, pad, kBlock);
  // U_1 the ordinary way.
  uint8_t u[kDigest], acc[kDigest];
  uint8_t idx[4];
  store_be32(idx, block_index);
  {
    Ctx c = ictx;
    update(&c, salt, salt_len);
    update(&c, idx, 4);
    final(u, &c);
    c = octx;
    update(&c, u, kDigest);
    final(u, &c);
  }
  std::memcpy(acc, u, kDigest);
  // The fixed one-block message: digest || 0x80 || zeros || bit length of (block + digest), big-endian.
  uint8_t msg[kBlock] = {};
  msg[kDigest] = 0x80;
  const uint64_t bits = uint64_t(kBlock + kDigest) * 8;
  for (size_t i = 0; i < 8; ++i) msg[kBlock - 1 - i] = uint8_t(bits >> (8 * i));
  (void)kLenBytes;
  Word istate[kWords], ostate[kWords];
  std::memcpy(istate, &ictx, sizeof istate);  // h[] is the first member of OpenSSL's SHA-2 contexts
  std::memcpy(ostate, &octx, sizeof ostate);
  std::memcpy(msg, u, kDigest);
  Ctx c = ictx;
  for (uint32_t i = 1; i < iterations; ++i) {
    if (pbkdf2_cancelled(cancel, i)) {
      secure_wipe(acc, sizeof acc);
      return false;
    }
    std::memcpy(&c, istate, sizeof istate);
    Transform(&c, msg);
    const Word* h = reinterpret_cast<const Word*>(&c);
    for (size_t w = 0; w < kWords; ++w)
      for (size_t b = 0; b < sizeof(Word); ++b) msg[w * sizeof(Word) + b] = uint8_t(h[w] >> (8 * (sizeof(Word) - 1 - b)));
    std::memcpy(&c, ostate, sizeof ostate);
    Transform(&c, msg);
    for (size_t w = 0; w < kWords; ++w)
      for (size_t b = 0; b < sizeof(Word); ++b) msg[w * sizeof(Word) + b] = uint8_t(h[w] >> (8 * (sizeof(Word) - 1 - b)));
    for (size_t j = 0; j < kDigest; ++j) acc[j] ^= msg[j];
  }
  std::memcpy(out, acc, kDigest);
  secure_wipe(acc, sizeof acc);
  secure_wipe(msg, sizeof msg);
  secure_wipe(k, sizeof k);
  secure_wipe(pad, sizeof pad);
  secure_wipe(&ictx, sizeof ictx);
  secure_wipe(&octx, sizeof octx);
  secure_wipe(&c, sizeof c);
  return true;
}

void sha512_init(SHA512_CTX* c) { SHA512_Init(c); }
void sha512_update(SHA512_CTX* c, const void* p, size_t n) { SHA512_Update(c, p, n); }
void sha512_final(unsigned char* o, SHA512_CTX* c) { SHA512_Final(o, c); }
void sha512_transform(SHA512_CTX* c, const unsigned char* b) { SHA512_Transform(c, b); }
void sha256_init(SHA256_CTX* c) { SHA256_Init(c); }
void sha256_update(SHA256_CTX* c, const void* p, size_t n) { SHA256_Update(c, p, n); }
void sha256_final(unsigned char* o, SHA256_CTX* c) { SHA256_Final(o, c); }
void sha256_transform(SHA256_CTX* c, const unsigned char* b) { SHA256_Transform(c, b); }

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
  // VeraCrypt's auto-detection order on Linux (docs/format-spec.md §7.2), then the legacy PRFs and Argon2id.
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
  // PIMs beyond VeraCrypt's limits do not exist (pre-boot 65535, others 2147468, whose count 15000 + 1000 * PIM
  // still fits 32 bits): refused here, so 2048 * PIM can never wrap around to a small count.
  if (pim > (system ? 65535 : 2147468)) return 0;
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
    case PrfId::Sha512:
      return pbkdf2_md_fast<SHA512_CTX, uint64_t, 128, 64, sha512_transform>(
          pw, pw_len, salt, salt_len, iterations, block_index, out, cancel, sha512_init, sha512_update, sha512_final);
    case PrfId::Sha256:
      return pbkdf2_md_fast<SHA256_CTX, uint32_t, 64, 32, sha256_transform>(
          pw, pw_len, salt, salt_len, iterations, block_index, out, cancel, sha256_init, sha256_update, sha256_final);
    case PrfId::Blake2s: {
      const Pbkdf2Block block{salt, salt_len, block_index, out};
      return blake2s::pbkdf2_hmac_lanes(pw, pw_len, &block, 1, iterations, cancel);
    }
    case PrfId::Whirlpool: return whirlpool_pbkdf2_block(pw, pw_len, salt, salt_len, iterations, block_index, out, cancel);
    case PrfId::Streebog: return streebog_pbkdf2_block(pw, pw_len, salt, salt_len, iterations, block_index, out, cancel);
    case PrfId::Ripemd160: return pbkdf2_block_t<Ripemd160H>(pw, pw_len, salt, salt_len, iterations, block_index, out, cancel);
    case PrfId::Sha1: return pbkdf2_block_t<Sha1H>(pw, pw_len, salt, salt_len, iterations, block_index, out, cancel);
    case PrfId::Argon2id: break;
  }
  throw Error(ErrorKind::Usage, "Argon2id is not a PBKDF2 PRF");
}

size_t pbkdf2_lane_width(PrfId prf) {
  switch (prf) {
    case PrfId::Blake2s: return blake2s::lane_width();
    case PrfId::Sha512: return sha512::lane_width();
    default: return 1;
  }
}

double pbkdf2_lane_pass_cost(PrfId prf) {
  switch (prf) {
    case PrfId::Blake2s: return blake2s::lane_pass_cost();
    case PrfId::Sha512: return sha512::lane_pass_cost();
    default: return 1.0;
  }
}

size_t pbkdf2_lane_parts(PrfId prf, size_t n, unsigned threads) {
  if (n == 0 || threads == 0) return 0;
  // In the time of one block alone: a thread per block takes max(1, n / threads); min(threads, n) threads with k
  // blocks each take ceil(k / width) passes of the lanes (a lone block costs one block).
  const size_t width = pbkdf2_lane_width(prf), t = std::min<size_t>(threads, n), k = (n + t - 1) / t;
  const double per_block = std::max(1.0, double(n) / threads);
  const double in_lanes = k < 2 ? 1.0 : double((k + width - 1) / width) * pbkdf2_lane_pass_cost(prf);
  return width > 1 && in_lanes < per_block ? t : 0;
}

bool pbkdf2_blocks_cancellable(PrfId prf, const uint8_t* pw, size_t pw_len, const Pbkdf2Block* blocks, size_t n,
                               uint32_t iterations, const std::atomic<bool>* cancel) {
  if (prf == PrfId::Blake2s) return blake2s::pbkdf2_hmac_lanes(pw, pw_len, blocks, n, iterations, cancel);
  if (prf == PrfId::Sha512) return sha512::pbkdf2_hmac_lanes(pw, pw_len, blocks, n, iterations, cancel);
  for (size_t i = 0; i < n; ++i)
    if (!pbkdf2_block_cancellable(prf, pw, pw_len, blocks[i].salt, blocks[i].salt_len, iterations,
                                  blocks[i].block_index, blocks[i].out, cancel))
      return false;
  return true;
}

void pbkdf2_block(PrfId prf, const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len,
                  uint32_t iterations, uint32_t block_index, uint8_t* out) {
  if (!pbkdf2_block_cancellable(prf, pw, pw_len, salt, salt_len, iterations, block_index, out, nullptr))
    throw Error(ErrorKind::Interrupted, "interrupted");
}

// The output's blocks are independent, and a header key is several of them (a cascade's 192 bytes are 3 SHA-512 or
// 6 SHA-256 blocks), each as costly as a single cipher's whole key: on cores of their own the key takes one block's
// time instead of 3-6 (creating a volume, changing its password, a re-encryption's new headers); where the blocks
// outnumber the cores (a batch's pre-flight, a 2-core machine) the lanes compute several for the price of about two.
void pbkdf2_many(PrfId prf, const uint8_t* pw, size_t pw_len, const Pbkdf2Block* blocks, size_t n,
                 uint32_t iterations, unsigned threads) {
  constexpr uint32_t kParallelIterations = 1000;
  if (n == 0) return;
  if (iterations < kParallelIterations) threads = 1;
  if (threads == 0) threads = usable_cores();
  const size_t lane_parts = pbkdf2_lane_parts(prf, n, threads);
  const bool lanes = lane_parts > 0;
  const size_t parts = lanes ? lane_parts : threads == 1 ? 1 : std::min<size_t>(n, 64);
  std::vector<char> done(parts, 0);
  run_parts(unsigned(parts), [&](unsigned p) {  // part p: blocks [n p / parts, n (p + 1) / parts)
    const size_t a = n * p / parts, b = n * (p + 1) / parts;
    if (lanes) {
      done[p] = pbkdf2_blocks_cancellable(prf, pw, pw_len, blocks + a, b - a, iterations, nullptr);
      return;
    }
    bool ok = true;
    for (size_t i = a; ok && i < b; ++i)
      ok = pbkdf2_block_cancellable(prf, pw, pw_len, blocks[i].salt, blocks[i].salt_len, iterations,
                                    blocks[i].block_index, blocks[i].out, nullptr);
    done[p] = ok;
  });
  if (std::find(done.begin(), done.end(), 0) != done.end()) throw Error(ErrorKind::Interrupted, "interrupted");
}

void pbkdf2(PrfId prf, const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len, uint32_t iterations,
            uint8_t* out, size_t out_len) {
  const size_t d = prf_info(prf).digest_size;
  if (d == 0) throw Error(ErrorKind::Usage, "Argon2id is not a PBKDF2 PRF");
  const size_t nblocks = (out_len + d - 1) / d;
  if (nblocks == 0) return;
  SecureBytes all(nblocks * d);
  std::vector<Pbkdf2Block> blocks;
  for (size_t i = 0; i < nblocks; ++i) blocks.push_back({salt, salt_len, uint32_t(i + 1), all.data() + i * d});
  pbkdf2_many(prf, pw, pw_len, blocks.data(), blocks.size(), iterations, 0);
  std::memcpy(out, all.data(), out_len);
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
