#include "core/format/header_writer.h"

#include <algorithm>
#include <cstring>

#include "core/kdf/keyfiles.h"
#include "core/util/cores.h"
#include "core/util/error.h"
#include "core/util/parallel.h"
#include "core/util/random.h"

namespace warpvol {

namespace {
constexpr int kMaxPimValue = 2147468;        // VeraCrypt MAX_PIM_VALUE (non-system)
constexpr int kMaxBootPim = 65535;
constexpr uint64_t kSmallHiddenThreshold = 2u << 20;
}  // namespace

KdfChoice new_header_kdf(PrfId prf, VolumeFormat fmt, int pim, bool system) {
  if (pim < 0) throw Error(ErrorKind::Usage, "PIM must not be negative");
  if (pim > (system ? kMaxBootPim : kMaxPimValue))
    throw Error(ErrorKind::Usage, "PIM must be at most " + std::to_string(system ? kMaxBootPim : kMaxPimValue));
  const PrfInfo& info = prf_info(prf);
  KdfChoice k;
  k.prf = prf;
  if (prf == PrfId::Argon2id) {
    if (fmt != VolumeFormat::VeraCrypt) throw Error(ErrorKind::Usage, "TrueCrypt volumes cannot use Argon2id");
    if (system) throw Error(ErrorKind::Usage, "Argon2id is not available for system encryption");
    k.argon2 = argon2_params(pim);
    return k;
  }
  if (prf == PrfId::Sha1) throw Error(ErrorKind::Usage, "SHA-1 is supported for opening old TrueCrypt volumes only");
  if (fmt == VolumeFormat::TrueCrypt) {
    if (pim > 0) throw Error(ErrorKind::Usage, "TrueCrypt volumes have no PIM");
    if (!info.truecrypt)
      throw Error(ErrorKind::Usage, "TrueCrypt had no " + std::string(info.name) + " (RIPEMD-160, SHA-512 or Whirlpool)");
  }
  k.iterations = pbkdf2_iterations(prf, fmt, pim, system);
  if (k.iterations == 0)
    throw Error(ErrorKind::Usage, "no iteration count for " + std::string(info.name) + " with these settings");
  return k;
}

LockedBytes header_kdf_password(const Credentials& c, VolumeFormat fmt) {
  const size_t max = fmt == VolumeFormat::TrueCrypt ? 64 : 128;
  if (c.password.size() > max)
    throw Error(ErrorKind::Usage, "password is longer than " + std::to_string(max) + " bytes");
  if (c.password.empty() && c.keyfiles.empty())
    throw Error(ErrorKind::Usage, "empty password: give a password or a keyfile");
  return apply_keyfiles(c.password, c.keyfiles, fmt == VolumeFormat::TrueCrypt);
}

LockedBytes new_master_key(ChainId chain) {
  const size_t K = chain_info(chain).key_size();
  for (;;) {
    LockedBytes mk = random_locked(2 * K);
    if (std::memcmp(mk.data(), mk.data() + K, K) != 0) return mk;
  }
}

namespace {
HeaderFields base_fields(uint32_t sector_size, ChainId chain, const LockedBytes& master_key) {
  const size_t K2 = 2 * chain_info(chain).key_size();
  if (master_key.size() != K2)
    throw Error(ErrorKind::Usage, "master key has " + std::to_string(master_key.size()) + " bytes, the chain needs " +
                                      std::to_string(K2));
  if (sector_size < 512 || sector_size > 4096 || sector_size % 512)
    throw Error(ErrorKind::Usage, "sector size must be 512..4096 and a multiple of 512");
  HeaderFields f;
  f.magic = kMagicVera;
  f.version = kHeaderVersion;
  f.required_version = kVeraRequiredVersion;
  f.sector_size = sector_size;
  f.flags = 0;
  std::memset(f.key_area.data(), 0, f.key_area.size());
  std::memcpy(f.key_area.data(), master_key.data(), K2);
  return f;
}
}  // namespace

HeaderFields normal_volume_fields(uint64_t H, uint32_t sector_size, ChainId chain, const LockedBytes& master_key) {
  if (H < kMinVolumeSize)
    throw Error(ErrorKind::Usage, "volume size " + std::to_string(H) + " is below the minimum of " +
                                      std::to_string(kMinVolumeSize) + " bytes");
  if (H % sector_size)
    throw Error(ErrorKind::Usage, "volume size must be a multiple of the sector size (" + std::to_string(sector_size) + ")");
  HeaderFields f = base_fields(sector_size, chain, master_key);
  f.hidden_volume_size = 0;
  f.volume_size = H - 2 * kHeaderGroupSize;
  f.encrypted_area_start = kDataOffsetV2;
  f.encrypted_area_length = f.volume_size;
  return f;
}

HiddenLayout hidden_layout(uint64_t H, uint64_t S, uint32_t sector_size) {
  if (H < kMinHiddenHostSize)
    throw Error(ErrorKind::Usage, "the outer container has " + std::to_string(H) +
                                      " bytes; a hidden volume needs an outer container of at least " +
                                      std::to_string(kMinHiddenHostSize) + " bytes");
  if (S < kMinHiddenVolumeSize)
    throw Error(ErrorKind::Usage, "hidden volume size " + std::to_string(S) + " is below the minimum of " +
                                      std::to_string(kMinHiddenVolumeSize) + " bytes");
  if (S % sector_size)
    throw Error(ErrorKind::Usage, "hidden volume size must be a multiple of the sector size (" +
                                      std::to_string(sector_size) + ")");
  const uint64_t outer_data = H - 2 * kHeaderGroupSize;
  if (S > outer_data)
    throw Error(ErrorKind::Usage, "hidden volume size " + std::to_string(S) +
                                      " does not fit in the outer volume's data area (" + std::to_string(outer_data) +
                                      " bytes)");
  HiddenLayout l;
  l.reserve = S < kSmallHiddenThreshold ? 4096 : kHeaderGroupSize;
  l.data_start = H - kHeaderGroupSize - S;
  l.data_size = S - l.reserve;
  if (l.data_start % sector_size)
    throw Error(ErrorKind::Usage, "hidden data start " + std::to_string(l.data_start) +
                                      " is not a multiple of the sector size (container size not a multiple of it?)");
  return l;
}

HeaderFields hidden_volume_fields(const HiddenLayout& l, uint32_t sector_size, ChainId chain,
                                  const LockedBytes& master_key) {
  HeaderFields f = base_fields(sector_size, chain, master_key);
  f.hidden_volume_size = l.data_size;
  f.volume_size = l.data_size;
  f.encrypted_area_start = l.data_start;
  f.encrypted_area_length = l.data_size;
  return f;
}

HeaderKey new_header_key(ChainId chain, const KdfChoice& kdf, const LockedBytes& kdf_password) {
  return std::move(new_header_keys({{chain, &kdf, &kdf_password}}).front());
}

std::vector<HeaderKey> new_header_keys(const std::vector<HeaderKeySpec>& specs, unsigned threads) {
  return HeaderKeyBatch(specs).keys(threads, false);
}

namespace {

// Keys derived together: one PBKDF2 PRF, iteration count and password each; Argon2id keys alone (its output is not
// prefix-stable and it has no lanes).
bool same_pbkdf2(const KdfChoice& ka, const LockedBytes& pa, const KdfChoice& kb, const LockedBytes& pb) {
  return ka.prf != PrfId::Argon2id && ka.prf == kb.prf && ka.iterations == kb.iterations && pa.view() == pb.view();
}

size_t pbkdf2_blocks_of(const KdfChoice& kdf, size_t key_bytes) {
  if (kdf.prf == PrfId::Argon2id) return 1;
  const size_t d = prf_info(kdf.prf).digest_size;
  return (key_bytes + d - 1) / d;
}

}  // namespace

HeaderKeyBatch::HeaderKeyBatch(std::vector<HeaderKeySpec> specs)
    : specs_(std::move(specs)), keys_(specs_.size()), lent_(specs_.size(), false), lent_out_(specs_.size()) {
  for (size_t i = 0; i < specs_.size(); ++i) {
    keys_[i].chain = specs_[i].chain;
    random_bytes(keys_[i].salt.data(), keys_[i].salt.size());
    keys_[i].key = LockedBytes(2 * chain_info(specs_[i].chain).key_size());
  }
}

std::vector<Pbkdf2Block> HeaderKeyBatch::lend_blocks(PrfId prf, uint32_t iterations, const LockedBytes& password) {
  KdfChoice want;
  want.prf = prf;
  want.iterations = iterations;
  std::vector<Pbkdf2Block> out;
  for (size_t i = 0; i < specs_.size(); ++i) {
    if (lent_[i] || !same_pbkdf2(*specs_[i].kdf, *specs_[i].kdf_password, want, password)) continue;
    const size_t d = prf_info(prf).digest_size, nb = pbkdf2_blocks_of(want, keys_[i].key.size());
    lent_out_[i] = SecureBytes(nb * d);  // whole blocks: RIPEMD-160's 20 bytes do not divide a key
    for (size_t b = 0; b < nb; ++b)
      out.push_back({keys_[i].salt.data(), kSaltSize, uint32_t(b + 1), lent_out_[i].data() + b * d});
    lent_[i] = true;
  }
  return out;
}

std::vector<HeaderKey> HeaderKeyBatch::keys(unsigned threads, bool lent_derived) {
  if (threads == 0) threads = usable_cores();
  std::vector<size_t> todo;
  for (size_t i = 0; i < specs_.size(); ++i)
    if (lent_[i] && lent_derived)
      std::memcpy(keys_[i].key.data(), lent_out_[i].data(), keys_[i].key.size());
    else
      todo.push_back(i);
  std::vector<std::vector<size_t>> groups;
  for (size_t i : todo) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& gr) {
      const HeaderKeySpec &a = specs_[gr[0]], &b = specs_[i];
      return same_pbkdf2(*a.kdf, *a.kdf_password, *b.kdf, *b.kdf_password);
    });
    if (g == groups.end())
      groups.push_back({i});
    else
      g->push_back(i);
  }
  auto blocks_of = [&](size_t i) { return pbkdf2_blocks_of(*specs_[i].kdf, keys_[i].key.size()); };
  size_t total = 0;
  for (size_t i : todo) total += blocks_of(i);
  auto derive_group = [&](const std::vector<size_t>& g, unsigned t) {
    const HeaderKeySpec& s = specs_[g[0]];
    if (s.kdf->prf == PrfId::Argon2id) {
      derive_header_key(*s.kdf, *s.kdf_password, keys_[g[0]].salt.data(), keys_[g[0]].key.data(),
                        keys_[g[0]].key.size());
      return;
    }
    const size_t d = prf_info(s.kdf->prf).digest_size;
    size_t nb = 0;
    for (size_t i : g) nb += blocks_of(i);
    SecureBytes out(nb * d);  // key i's blocks, then the next key's
    std::vector<Pbkdf2Block> blocks;
    for (size_t i : g)
      for (size_t b = 0; b < blocks_of(i); ++b)
        blocks.push_back({keys_[i].salt.data(), kSaltSize, uint32_t(b + 1), out.data() + blocks.size() * d});
    pbkdf2_many(s.kdf->prf, s.kdf_password->data(), s.kdf_password->size(), blocks.data(), blocks.size(),
                s.kdf->iterations, t);
    const uint8_t* p = out.data();
    for (size_t i : g) {
      std::memcpy(keys_[i].key.data(), p, keys_[i].key.size());
      p += blocks_of(i) * d;
    }
  };
  // The groups side by side, each on its share of the threads by its number of blocks.
  run_parts(unsigned(groups.size()), [&](unsigned k) {
    size_t nb = 0;
    for (size_t i : groups[k]) nb += blocks_of(i);
    derive_group(groups[k], unsigned(std::max<size_t>(1, threads * nb / total)));
  });
  return std::move(keys_);
}

EncryptedHeader seal_header(const HeaderFields& fields, const HeaderKey& key) {
  SecureBytes buf(kHeaderSize);
  std::memcpy(buf.data(), key.salt.data(), kSaltSize);
  serialize_header(fields, buf.data());
  encrypt_header(key.chain, key.key.data(), buf.data());
  EncryptedHeader out;
  std::memcpy(out.data(), buf.data(), kHeaderSize);
  return out;
}

EncryptedHeader build_header(const HeaderFields& fields, ChainId chain, const KdfChoice& kdf,
                             const LockedBytes& kdf_password) {
  return seal_header(fields, new_header_key(chain, kdf, kdf_password));
}

std::vector<EncryptedHeader> build_headers(const HeaderFields& fields, ChainId chain, const KdfChoice& kdf,
                                           const LockedBytes& kdf_password, size_t count) {
  std::vector<EncryptedHeader> out;
  if (count == 0) return out;
  const std::vector<HeaderKey> keys = new_header_keys(std::vector<HeaderKeySpec>(count, {chain, &kdf, &kdf_password}));
  for (const HeaderKey& k : keys) out.push_back(seal_header(fields, k));
  return out;
}

EncryptedHeader build_fake_header(ChainId chain, uint64_t H, uint32_t sector_size) {
  // Shaped like VeraCrypt's: a hidden-type header of a plausible size (the minimum) with a random master key.
  HiddenLayout l;
  l.reserve = 4096;
  l.data_size = kMinHiddenVolumeSize - l.reserve;
  l.data_start = H > kHeaderGroupSize + kMinHiddenVolumeSize ? H - kHeaderGroupSize - kMinHiddenVolumeSize : 0;
  HeaderFields f = hidden_volume_fields(l, sector_size, chain, new_master_key(chain));
  HeaderKey k;
  k.chain = chain;
  random_bytes(k.salt.data(), k.salt.size());
  k.key = random_locked(2 * chain_info(chain).key_size());
  return seal_header(f, k);
}

uint64_t header_offset(SlotKind kind, bool backup, uint64_t H) {
  switch (kind) {
    case SlotKind::Normal: return backup ? H - kHeaderGroupSize : 0;
    case SlotKind::Hidden: return backup ? H - kHeaderSlotSize : kHeaderSlotSize;
    case SlotKind::System:
      if (backup) throw Error(ErrorKind::Format, "system volumes have no embedded backup header");
      return kSystemHeaderOffset;
    default: throw Error(ErrorKind::Format, "legacy (V1) volume layouts are not written by warpvol");
  }
}

void write_header(BlockFile& f, uint64_t offset, const EncryptedHeader& h) { f.write_at(offset, h.data(), h.size()); }

void write_header_slot(BlockFile& f, uint64_t offset, const EncryptedHeader& h) {
  std::vector<uint8_t> slot(kHeaderSlotSize);
  std::memcpy(slot.data(), h.data(), kHeaderSize);
  random_bytes(slot.data() + kHeaderSize, slot.size() - kHeaderSize);
  f.write_at(offset, slot.data(), slot.size());
}

void rewrite_header_pair(BlockFile& f, SlotKind kind, const EncryptedHeader& primary, const EncryptedHeader& backup,
                         bool has_backup, bool primary_first) {
  const uint64_t H = f.size();
  if (has_backup && H < 2 * kHeaderGroupSize)
    throw Error(ErrorKind::Format, f.path() + ": too small for embedded backup headers");
  const uint64_t p_off = header_offset(kind, false, H);
  if (!has_backup) {
    write_header(f, p_off, primary);
    f.sync();
    return;
  }
  const uint64_t b_off = header_offset(kind, true, H);
  if (primary_first) {
    // Step 1: primary; the old backup (the source of a restore-from-backup) stays intact until this is durable.
    write_header(f, p_off, primary);
    f.sync();
    // Step 2: backup; a crash here leaves the new primary durable.
    write_header(f, b_off, backup);
    f.sync();
    return;
  }
  // Step 1: backup first. Until its fsync returns, the old primary is untouched and still opens.
  write_header(f, b_off, backup);
  f.sync();
  // Step 2: primary. From here on the new backup is durable, so a torn primary is recoverable.
  write_header(f, p_off, primary);
  f.sync();
}

}  // namespace warpvol
