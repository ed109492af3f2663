// The re-encryption journal ("sidecar"): everything needed to resume an interrupted re-encryption, kept in one
// file next to the container and replaced atomically at every commit point (core/reencrypt/reencrypt.h explains
// the protocol that writes it).
//
// File layout (integers little-endian, sizes exact):
//   "WVREENC1" | u32 format version (= the checksum entries' hash, UnitHash) | u32 resilience (1 checksum, 2 journal)
//   u64 container size | u64 hot-zone size | u64 range offset | u64 range size | u64 range first data unit
//   u32 part count (1 or 2), then per part (the normal/outer volume first, then the hidden one):
//     u32 slot (1 normal, 2 hidden) | u32 old format (1 VeraCrypt, 2 TrueCrypt) | u32 old chain | u32 old PRF
//     u32 new chain | u32 new PRF | u64 data offset | u64 data size | u64 first data unit
//     6 x 512-byte encrypted headers: original primary, original backup (as they were on disk before the job),
//     marked primary (OLD header, old credentials, fresh salt, required version = marker),
//     marked backup (NEW header, new credentials, required version = marker),
//     final primary, final backup (NEW header, new credentials, each with its own salt; the marked backup shares
//     the final backup's salt and header key)
//   state: u64 sequence | u32 phase | u64 progress | u64 hot offset | u64 hot size | u32 has sentinel |
//     32-byte sentinel (SHA-256 of the old ciphertext of the 512 bytes right after the hot zone, or at the
//     progress point without one) | u64 protection size | protection bytes
//   64-byte MAC = HMAC-SHA-512(K_mac, everything before the protection bytes || D), where D is a SHA-256 tree
//   digest of the protection bytes: SHA-256 of the concatenated SHA-256 digests of its 1 MiB pieces (computed in
//   parallel; a journal-mode hot zone is many MiB and SHA-256 has SHA-NI, SHA-512 does not).
//
// Keys. The journal holds no key in the clear: the old master keys only inside the original and marked old
// headers (encrypted under the old credentials, like any header), the new ones only inside the new headers
// (encrypted under the new credentials). The MAC key is
//   K_mac = HMAC-SHA-512(key = "warpvol reencrypt journal v1", msg = for each part: old key area || new key area)
// (the 256-byte master key areas), so only someone holding both sets of credentials can produce or verify a
// journal; a journal is authenticated before any of its fields is acted upon (cryptsetup CVE-2021-4122: an
// unauthenticated resume state let an attacker make the tool decrypt data in place). The KDF parameters used to
// decrypt the header copies are recomputed from the PRF ids and the PIM the user gives, never read as numbers
// from the file, so a forged file cannot request an endless KDF.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/crypto/chain.h"
#include "core/format/header_writer.h"
#include "core/format/open.h"
#include "core/io/file.h"
#include "core/kdf/prf.h"

namespace warpvol::reenc {

enum class Resilience : uint32_t { Checksum = 1, Journal = 2 };
std::string_view resilience_name(Resilience r);  // "checksum", "journal"

enum class Phase : uint32_t {
  Marking = 1,     // job recorded; the container's headers may still be the original ones
  Data = 2,        // headers marked; data area partly re-encrypted
  Finalizing = 3,  // all data new; final headers being written
};

// Checksum protection: per 512-byte unit of the hot zone, a 128-bit hash of its NEW ciphertext. (A unit holds old
// ciphertext exactly when re-encrypting it gives the recorded hash, so the old data needs none.)
// The hash only tells three states of one unit apart (new ciphertext as recorded, old ciphertext that re-encrypts
// to it, anything else such as a torn write) after an accident; it is not what protects the journal against
// forgery (the MAC below covers the entries). Nobody chooses the ciphertext it is computed over without the keys,
// so a 128-bit non-cryptographic hash with good dispersion (XXH3-128) misses a difference with the same 2^-128
// chance as truncated SHA-256, at a small fraction of its cost: SHA-256 over 512-byte units bounded re-encryption
// on many cores (docs/perf/measurements-2026-11-25-pipeline.md). Journals written with SHA-256/128 (format
// version 1) keep it on resume.
enum class UnitHash : uint32_t { Sha256_128 = 1, Xxh3_128 = 2 };
constexpr size_t kUnitHashSize = 16;
constexpr size_t kChecksumEntrySize = kUnitHashSize;

struct PartRecord {
  SlotKind slot = SlotKind::Normal;  // Normal (an outer volume when a hidden part follows) or Hidden
  VolumeFormat old_format = VolumeFormat::VeraCrypt;
  ChainId old_chain = ChainId::Aes;
  PrfId old_prf = PrfId::Sha512;
  ChainId new_chain = ChainId::Aes;
  PrfId new_prf = PrfId::Sha512;
  uint64_t data_offset = 0, data_size = 0, first_unit = 0;
  EncryptedHeader orig_primary{}, orig_backup{};
  EncryptedHeader marked_primary{}, marked_backup{};
  EncryptedHeader final_primary{}, final_backup{};
};

struct JournalState {
  uint64_t seq = 0;
  Phase phase = Phase::Marking;
  uint64_t progress = 0;    // bytes of the range (from its start) that hold new ciphertext, durably
  uint64_t hot_offset = 0;  // the committed hot zone, relative to the range start; hot_size 0 = none
  uint64_t hot_size = 0;
  bool has_sentinel = false;
  std::array<uint8_t, 32> sentinel{};
  // Checksum mode: hot_size / 512 entries of kChecksumEntrySize; journal mode: the hot zone's old ciphertext.
  // Empty without a hot zone.
  const uint8_t* protection = nullptr;  // serialize(): borrowed; parse(): points into the parsed buffer
  uint64_t protection_size = 0;
};

struct Journal {
  UnitHash unit_hash = UnitHash::Xxh3_128;  // of checksum entries; new jobs use XXH3-128
  Resilience resilience = Resilience::Checksum;
  uint64_t container_size = 0;
  uint64_t hotzone = 0;
  uint64_t range_offset = 0, range_size = 0, range_first_unit = 0;  // the byte range of the file being processed
  std::vector<PartRecord> parts;
  JournalState state;
};

constexpr size_t kMacSize = 64;
using MacKey = std::array<uint8_t, 64>;
// key_areas: per part, the old then the new 256-byte master key area.
MacKey journal_mac_key(const std::vector<const uint8_t*>& key_areas);

// The serialized journal as three pieces (prefix, protection borrowed from the state, MAC), so a journal-mode hot
// zone of many MiB is written without another copy.
struct JournalBytes {
  std::vector<uint8_t> prefix;
  const uint8_t* protection = nullptr;
  size_t protection_size = 0;
  std::array<uint8_t, kMacSize> mac{};
  size_t total() const { return prefix.size() + protection_size + kMacSize; }
};
JournalBytes serialize_journal(const Journal& j, const MacKey& key);

// Parses the structure only (bounds, enum values, exact size); Error(Format) when it is not a journal of this
// version or is truncated. The result's state.protection points into `bytes`. Nothing in it is trustworthy
// before verify_journal_mac() succeeded.
Journal parse_journal(const std::vector<uint8_t>& bytes);
// `parsed` = parse_journal(bytes) (tells where the protection bytes are).
bool verify_journal_mac(const std::vector<uint8_t>& bytes, const Journal& parsed, const MacKey& key);
// Semantic checks after authentication (alignment, ranges inside the container, protection size matching the
// mode); Error(Format) with the reason.
void validate_journal(const Journal& j);

// Where the journal lives. store() is atomic and durable when it returns: a reader afterwards sees either the
// previous journal or the new one in full, never a mix (file store: temporary file in the same folder, written,
// fsync()ed, renamed over the journal, folder fsync()ed). remove() is durable too.
class JournalStore {
 public:
  virtual ~JournalStore() = default;
  virtual const std::string& path() const = 0;
  virtual std::optional<std::vector<uint8_t>> load() = 0;  // nullopt when there is no journal
  virtual void store(const JournalBytes& bytes) = 0;
  virtual void remove() = 0;
};

// `wrap` wraps each file the store opens for writing (tests: fault injection).
using warpvol::FileWrapper;
std::unique_ptr<JournalStore> file_journal_store(const std::string& path, FileWrapper wrap = {});

// "<dir or the volume's folder>/<volume file name>.warpvol-reencrypt".
std::string journal_path_for(const std::string& volume, const std::string& dir = "");
// Upper bound of a journal's size for a hot zone of `hotzone` bytes (pre-flight free-space check).
uint64_t max_journal_size(Resilience r, uint64_t hotzone, size_t parts);

// Constant-time comparison.
bool equal_ct(const uint8_t* a, const uint8_t* b, size_t n);

}  // namespace warpvol::reenc
