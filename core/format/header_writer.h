// Writing volume headers: the ONE place where warpvol builds, encrypts and stores headers (create, change,
// backup/restore, import, convert, and the re-encryption engine's checkpoints). Format-spec §3 (fields), §5 (KDF),
// §6.4 (header encryption), §8 (creation, fake headers, re-encryption of headers).
//
// Typical use:
//   KdfChoice kdf = new_header_kdf(PrfId::Sha512, VolumeFormat::VeraCrypt, pim);
//   LockedBytes pw = header_kdf_password(credentials, VolumeFormat::VeraCrypt);
//   HeaderFields f = normal_volume_fields(host_size, 512, chain, new_master_key(chain));
//   auto h = build_headers(f, chain, kdf, pw, 2);          // primary + backup: same fields, different salts
//   rewrite_header_pair(file, SlotKind::Normal, h[0], h[1]);  // crash-safe order, fsync()ed
// For frequent rewrites of the same volume's header (re-encryption checkpoints) derive once with
// new_header_key() and seal_header() each new field set: no KDF cost per checkpoint.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "core/format/header.h"
#include "core/format/open.h"
#include "core/io/file.h"
#include "core/kdf/prf.h"
#include "core/util/secure.h"

namespace warpvol {

using EncryptedHeader = std::array<uint8_t, kHeaderSize>;  // salt (plaintext) || 448 encrypted bytes

// KDF parameters of a NEW header for (prf, format, pim): VeraCrypt or TrueCrypt iteration counts (spec §5.2), or
// VeraCrypt's Argon2id PIM mapping (§5.4). Throws Error(Usage) for combinations that do not exist or that
// warpvol does not write: TrueCrypt with a PIM or with a PRF TrueCrypt lacked, SHA-1 (mount only), Argon2id for
// system encryption, a negative PIM or one above VeraCrypt's maximum.
KdfChoice new_header_kdf(PrfId prf, VolumeFormat fmt, int pim, bool system = false);

// The KDF input for a set of credentials: the password with the keyfiles applied (pool size of the format).
// Throws like apply_keyfiles; Error(Usage) for an empty password without keyfiles or a password over the format's
// limit (128 bytes VeraCrypt, 64 TrueCrypt).
LockedBytes header_kdf_password(const Credentials& c, VolumeFormat fmt);

// 2K random bytes for `chain` (primary keys || secondary keys); never with primary half == secondary half
// (VeraCrypt >= 1.26.7 refuses such keys at creation, spec §8.1).
LockedBytes new_master_key(ChainId chain);

// Field values by volume type (spec §3.2), VeraCrypt magic/version 5/required version 0x010b, flags 0.
// master_key: 2K bytes, copied into the key area (rest zero).
HeaderFields normal_volume_fields(uint64_t host_size, uint32_t sector_size, ChainId chain,
                                  const LockedBytes& master_key);
struct HiddenLayout {
  uint64_t data_start = 0;  // H - 131072 - S
  uint64_t data_size = 0;   // S - R
  uint64_t reserve = 0;     // R: 4096 if S < 2 MiB, else 131072
};
// Placement of a hidden volume of requested size S (the space it takes, VeraCrypt's --size) in a host of size H
// (spec §2.3). Throws Error(Usage) with a clear message when S is below the minimum (40960), not a multiple of
// the sector size, or does not fit in the outer volume's data area.
HiddenLayout hidden_layout(uint64_t host_size, uint64_t requested_size, uint32_t sector_size);
HeaderFields hidden_volume_fields(const HiddenLayout& layout, uint32_t sector_size, ChainId chain,
                                  const LockedBytes& master_key);

// A derived header key with its salt: what encrypts one stored header.
struct HeaderKey {
  ChainId chain{};
  std::array<uint8_t, kSaltSize> salt{};
  LockedBytes key;  // 2K bytes
};
// Fresh random salt, key derived from kdf_password (the KDF runs here: 0.1 .. a few seconds).
HeaderKey new_header_key(ChainId chain, const KdfChoice& kdf, const LockedBytes& kdf_password);
// Several header keys at once, each with its own fresh salt (the KDFs of a job's headers: a volume's primary and
// backup, a re-encryption's marked and final headers). The PBKDF2 blocks of the keys that share a password and KDF
// are derived together (pbkdf2_many: SIMD lanes where the cores are fewer than the blocks); different passwords or
// KDFs run side by side, sharing `threads` threads (0 = every core) by their number of blocks.
struct HeaderKeySpec {
  ChainId chain{};
  const KdfChoice* kdf = nullptr;
  const LockedBytes* kdf_password = nullptr;
};
std::vector<HeaderKey> new_header_keys(const std::vector<HeaderKeySpec>& specs, unsigned threads = 0);
// new_header_keys in two steps, for a caller that derives some of the keys' PBKDF2 blocks elsewhere: a
// re-encryption hands its new headers' blocks to the open of the volume (OpenOptions::along), whose passes of the
// SIMD lanes have room for them. The salts are drawn here; the specs' KDFs and passwords must outlive the batch.
class HeaderKeyBatch {
 public:
  explicit HeaderKeyBatch(std::vector<HeaderKeySpec> specs);
  // The PBKDF2 blocks of the keys whose KDF is this PRF and iteration count and whose password is `password`, to be
  // derived by the caller (their outputs are buffers the batch keeps); keys() derives only the others then. Empty
  // when none match.
  std::vector<Pbkdf2Block> lend_blocks(PrfId prf, uint32_t iterations, const LockedBytes& password);
  // Derives every key whose blocks were not lent (all of them when the lent ones were not derived after all), on
  // `threads` threads as new_header_keys, and hands the keys out in the specs' order (once).
  std::vector<HeaderKey> keys(unsigned threads, bool lent_derived);

 private:
  std::vector<HeaderKeySpec> specs_;
  std::vector<HeaderKey> keys_;
  std::vector<bool> lent_;
  std::vector<SecureBytes> lent_out_;  // the lent keys' blocks, derived by the caller
};
// Serializes `fields` (both CRCs computed here), prepends the key's salt and encrypts (spec §6.4).
EncryptedHeader seal_header(const HeaderFields& fields, const HeaderKey& key);

// new_header_key + seal_header.
EncryptedHeader build_header(const HeaderFields& fields, ChainId chain, const KdfChoice& kdf,
                             const LockedBytes& kdf_password);
// `count` headers of the same fields, each with its own fresh salt; the KDFs run together (new_header_keys).
std::vector<EncryptedHeader> build_headers(const HeaderFields& fields, ChainId chain, const KdfChoice& kdf,
                                           const LockedBytes& kdf_password, size_t count);

// A fake hidden-volume header (spec §8.2 step 3): a hidden-type header with a random master key, sealed with a
// random salt and a random header key, so it is indistinguishable from random data and opens with nothing.
EncryptedHeader build_fake_header(ChainId chain, uint64_t host_size, uint32_t sector_size);

// Where a V2 layout keeps a header (spec §2.2/§2.3): Normal 0 | H-131072 (backup), Hidden 65536 | H-65536.
uint64_t header_offset(SlotKind kind, bool backup, uint64_t host_size);

// Writes the 512-byte header at `offset` (no sync).
void write_header(BlockFile& f, uint64_t offset, const EncryptedHeader& h);
// Writes the whole 64 KiB slot: header, then random bytes for [512, 65536) (readers ignore them; spec §8.2 step
// 6 — we use CSPRNG output as VeraCrypt for Windows does). No sync.
void write_header_slot(BlockFile& f, uint64_t offset, const EncryptedHeader& h);

// Replaces a volume's primary and embedded backup header (kind Normal or Hidden) so that a crash at any moment
// leaves at least one of the two decrypting with the old or the new credentials:
//   1. write the new BACKUP header, fsync   -- crash before the fsync completes: primary still old and intact
//   2. write the new PRIMARY header, fsync  -- crash here: backup already new and durable
// Only the 512 header bytes of each slot are written. has_backup=false (system volumes): primary only + fsync.
// primary_first=true swaps steps 1 and 2: for restoring FROM the embedded backup, whose old copy is then the one
// that must stay intact until the new primary is durable.
void rewrite_header_pair(BlockFile& f, SlotKind kind, const EncryptedHeader& primary, const EncryptedHeader& backup,
                         bool has_backup = true, bool primary_first = false);

}  // namespace warpvol
