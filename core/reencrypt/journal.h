// The re-encryption journal ("sidecar"): everything needed to resume an interrupted re-encryption, kept in one
// file next to the container (core/reencrypt/reencrypt.h explains the protocol that writes it).
//
// FORMAT VERSION 3 (written by every job): the file is created once, atomically (temporary file, fsync, rename,
// fsync of the folder), and then holds two slots that are rewritten in place, alternately. A commit writes one
// small record (the state and its MAC) into the slot that does NOT hold the newest committed state, and fsyncs.
// A slot's protection region is filled before its record is written (a hot zone's old ciphertext, or its checksum
// entries), while the container is being written elsewhere: the copy overlaps the data writes instead of preceding
// them, and a commit costs one small write and one fsync instead of a whole new file, a rename and a folder fsync.
// Reading: each slot is authenticated on its own; the authentic slot with the highest sequence number is the
// state. A slot whose record or protection was torn, half written or overwritten fails its MAC and is ignored; the
// writer only ever touches the slot that is not the newest committed one, so the other still holds the last
// committed state in full. (Someone who can write the journal can make the older slot win by damaging the newer
// one; that is the rollback an old copy of a version-2 journal allowed too, and the same sentinel check refuses a
// state whose next unit was already rewritten: reencrypt.h, RECOVERY.)
//   Fixed part, at offset 0, written once (zero-padded to a multiple of 4096 bytes; all of it under every MAC):
//     "WVREENC1" | u32 format version = 3 | u32 checksum entries' hash (UnitHash) | u32 resilience (1 checksum,
//     2 journal) | u64 container size | u64 hot-zone size | u64 range offset | u64 range size |
//     u64 range first data unit | u32 part count (1 or 2), then the parts (as below) |
//     u64 record area size (4096) | u64 protection capacity (the largest protection of a hot zone, rounded up
//     to 4096)
//   Slot s (0, 1) at fixed size + s x (record area + capacity):
//     record: u32 slot index s | state (as below, without the protection bytes) | 64-byte MAC =
//       HMAC-SHA-512(K_mac, fixed part || record before the MAC || D), D = tree digest of the protection (below);
//     zero padding to the record area size; then the protection region (capacity bytes, the first "protection
//     size" of them the state's).
//   The file has exactly fixed size + 2 x (record area + capacity) bytes.
// Checksum resilience shares this format: one commit path for both modes (one set of crash tests covers it), and
// its commits lose the rename and the folder fsync per hot zone too.
//
// FORMAT VERSIONS 1 AND 2 (earlier jobs; still resumed, and rewritten as version 3, atomically, before anything
// else is written): one record, replaced whole at every commit (temporary file, fsync, rename, fsync folder):
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
//   parallel, or piece by piece as a hot zone is read; a journal-mode hot zone is many MiB and SHA-256 has SHA-NI,
//   SHA-512 does not).
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

// A single-record journal (format version 1 or 2, see below) as three pieces (prefix, protection borrowed from the
// state, MAC), so a journal-mode hot zone of many MiB is written without another copy.
struct JournalBytes {
  std::vector<uint8_t> prefix;
  const uint8_t* protection = nullptr;
  size_t protection_size = 0;
  std::array<uint8_t, kMacSize> mac{};
  size_t total() const { return prefix.size() + protection_size + kMacSize; }
};
JournalBytes serialize_journal(const Journal& j, const MacKey& key);

// FORMAT VERSIONS 1 AND 2: the single-record file. serialize_journal() writes one (tests and fixtures: jobs
// write version 3). parse_journal() parses the structure only (bounds, enum values, exact size); Error(Format)
// when it is not a journal of these versions or is truncated. The result's state.protection points into `bytes`.
// Nothing in it is trustworthy before verify_journal_mac() succeeded.
Journal parse_journal(const std::vector<uint8_t>& bytes);
// `parsed` = parse_journal(bytes) (tells where the protection bytes are).
bool verify_journal_mac(const std::vector<uint8_t>& bytes, const Journal& parsed, const MacKey& key);

// FORMAT VERSION 3: the two-slot file.
using Digest = std::array<uint8_t, 32>;
// D: SHA-256 of the concatenated SHA-256 digests of the 1 MiB pieces of p[0..n) (n = 0: SHA-256 of nothing).
Digest protection_digest(const uint8_t* p, size_t n);
// The same digest, fed piece by piece from several threads: add() takes whole 1 MiB pieces at 1 MiB-aligned
// positions (the last piece of the n bytes may be shorter); each piece once.
class PieceDigest {
 public:
  explicit PieceDigest(uint64_t n = 0);
  void add(uint64_t pos, const uint8_t* p, size_t len);
  Digest finish() const;  // after every piece was added

 private:
  uint64_t n_ = 0;
  std::vector<uint8_t> digests_;
};

// The same digest of n bytes at `base`, computed while the bytes are being produced: add() says that a range of
// them is final (any order, several threads, each byte once), and each 1 MiB piece is hashed front to back as far
// as its bytes are final, by whichever caller made them so. The hashing then overlaps the work that produces the
// bytes (a hot zone's checksum entries, written by the stream's workers) instead of following it.
class OrderedDigest {
 public:
  OrderedDigest(const uint8_t* base, uint64_t n);
  ~OrderedDigest();
  OrderedDigest(const OrderedDigest&) = delete;
  OrderedDigest& operator=(const OrderedDigest&) = delete;
  void add(uint64_t pos, size_t len);
  Digest finish();  // after every byte was added

 private:
  struct State;
  std::unique_ptr<State> st_;
};

constexpr uint32_t kSlotJournalVersion = 3;
constexpr size_t kSlotRecordBytes = 84 + kMacSize;  // a slot's record, MAC included
struct JournalLayout {
  uint64_t fixed_size = 0;   // the fixed part, padded
  uint64_t record_area = 0;  // per slot
  uint64_t capacity = 0;     // protection region per slot
  uint64_t slot_offset(unsigned s) const { return fixed_size + s * (record_area + capacity); }
  uint64_t protection_offset(unsigned s) const { return slot_offset(s) + record_area; }
  uint64_t file_size() const { return fixed_size + 2 * (record_area + capacity); }
};
struct JournalFixed {
  std::vector<uint8_t> bytes;  // the fixed part, padded (fixed_size bytes)
  JournalLayout layout;
};
JournalFixed serialize_fixed(const Journal& j);
// Slot `slot`'s record for state `s` whose protection (s.protection_size bytes, already in the slot's region or
// about to be) has digest `d`: the bytes to write at layout.slot_offset(slot).
std::vector<uint8_t> serialize_slot(const JournalFixed& fixed, unsigned slot, const JournalState& s, const Digest& d,
                                    const MacKey& key);

// A journal file of any version, as parsed (nothing trustworthy before newest_authentic_slot()).
struct JournalSlot {
  unsigned index = 0;  // 0 or 1 (versions 1 and 2: 0)
  JournalState state;  // state.protection points into the parsed bytes
};
struct LoadedJournal {
  uint32_t version = 0;  // 1, 2 or kSlotJournalVersion
  Journal job;           // the fixed fields (its state: the first slot's, until one is chosen)
  std::vector<JournalSlot> slots;  // the slots whose records parse (at least one)
  JournalLayout layout;            // version 3
};
// Error(Format) when the fixed part does not parse, the size is not exact, or no slot's record parses.
LoadedJournal parse_journal_file(const std::vector<uint8_t>& bytes);
// The authentic slot with the highest sequence number; nullopt when none is authentic.
std::optional<JournalSlot> newest_authentic_slot(const std::vector<uint8_t>& bytes, const LoadedJournal& lj,
                                                 const MacKey& key);
// Semantic checks after authentication (alignment, ranges inside the container, protection size matching the
// mode); Error(Format) with the reason.
void validate_journal(const Journal& j);

// Where the journal lives. create() is atomic and durable when it returns: a reader afterwards sees either the
// previous journal (or none) or the new file in full (file store: temporary file in the same folder, written,
// fsync()ed, renamed over the journal, folder fsync()ed). write_at() writes into the current file in place
// (positioned; several threads at once), durable after sync(). remove() is durable too.
struct JournalPiece {
  uint64_t offset = 0;
  const uint8_t* data = nullptr;
  size_t size = 0;
};
class JournalStore {
 public:
  virtual ~JournalStore() = default;
  virtual const std::string& path() const = 0;
  virtual std::optional<std::vector<uint8_t>> load() = 0;  // nullopt when there is no journal
  // A new file of `size` bytes (zero where no piece is), pieces at their offsets.
  virtual void create(uint64_t size, const std::vector<JournalPiece>& pieces) = 0;
  virtual void write_at(uint64_t offset, const uint8_t* data, size_t size) = 0;
  // [src_offset, + size) of `src` into the current file at `offset` inside the kernel (BlockFile::copy_range_from);
  // false, having written nothing, where it cannot: then write_at.
  virtual bool copy_range_from(BlockFile& src, uint64_t src_offset, uint64_t offset, uint64_t size) { return false; }
  virtual void sync() = 0;
  virtual void remove() = 0;
};

// `wrap` wraps each file the store opens for writing (tests: fault injection).
using warpvol::FileWrapper;
std::unique_ptr<JournalStore> file_journal_store(const std::string& path, FileWrapper wrap = {});

// "<dir or the volume's folder>/<volume file name>.warpvol-reencrypt".
std::string journal_path_for(const std::string& volume, const std::string& dir = "");
// Size of a job's journal file (format version 3) for a hot zone of `hotzone` bytes (pre-flight free-space check).
uint64_t max_journal_size(Resilience r, uint64_t hotzone, size_t parts);

// Constant-time comparison.
bool equal_ct(const uint8_t* a, const uint8_t* b, size_t n);

}  // namespace warpvol::reenc
