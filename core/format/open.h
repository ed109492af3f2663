// Opening a volume: which header slots exist (layouts, docs/format-spec.md §2 and §7) and the auto-detection search
// over slots x PRFs x chains. Each PRF's key is derived once per slot; derivations for different PRFs run in parallel
// on all cores and the search stops at the first match. Only as many PBKDF2 blocks are derived as the chains being
// tried need (AES alone needs 64 bytes = one SHA-512 block).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/crypto/legacy_mode.h"
#include "core/format/header.h"
#include "core/io/file.h"
#include "core/kdf/prf.h"

namespace warpvol {

struct Credentials {
  LockedBytes password;             // UTF-8 bytes, no terminator
  std::vector<std::string> keyfiles;
  int pim = 0;                      // <= 0: default
};

enum class SlotKind { Normal, Hidden, System, LegacyNormal, LegacyHidden };
std::string_view slot_kind_name(SlotKind k);

// PBKDF2 blocks of other keys that a caller will need once the volume opens (a re-encryption's new header keys,
// whose salts it draws first), derived in the header search's own passes: where they share a VeraCrypt candidate's
// PRF, iteration count and password, they fill the SIMD lanes that the candidates' blocks leave free (a SHA-512
// pass of 8 lanes costs about two blocks), so that a batch's pre-flight derives its containers' new keys in the
// passes that open them instead of after them.
struct AlongBlocks {
  PrfId prf{};
  uint32_t iterations = 0;
  const LockedBytes* password = nullptr;  // the KDF's input (keyfiles applied)
  std::vector<Pbkdf2Block> blocks;
  bool derived = false;                   // set by the search: every block was derived (else the caller must)
};

struct OpenOptions {
  Credentials credentials;
  std::optional<PrfId> prf;           // --hash
  std::optional<ChainId> chain;       // --encryption (an XTS chain)
  // --encryption naming an algorithm of TrueCrypt before 5.0 (LRW/CBC modes). When chain or legacy_ea is set,
  // only what they name is tried: set both when a name means both (e.g. "aes": XTS-AES and LRW/CBC-AES).
  std::optional<LegacyEaId> legacy_ea;
  std::optional<VolumeFormat> format; // --truecrypt narrows to TrueCrypt, --veracrypt to VeraCrypt
  std::optional<SlotKind> slot;       // --hidden narrows to the hidden slot
  bool backup_only = false;           // --backup-header
  bool system = false;                // --system: header at sector 62, boot iteration counts
  bool allow_backup_fallback = true;  // try the embedded backups when the primaries do not decrypt
  // --system --partition N: the partition of the drive image to open (0 = the one holding the first encrypted
  // byte, as VeraCrypt would); core/format/system_layout.h.
  std::optional<int> system_partition;
  // --system --partition-offset: the file is an image of ONE partition, which began this many bytes into the system
  // drive; its data units count from there. Excludes system_partition. Such an image lacks the drive's sector 62,
  // so the header comes from system_header_file.
  std::optional<uint64_t> system_partition_offset;
  // --system --header-file: read the system header from this file instead of the volume's sector 62 (see
  // system_header_location in core/format/system_layout.h for the files it can be).
  std::string system_header_file;
  // Threads the header search may use (0: one per core). It derives every candidate location's keys at once (the
  // hidden slot's and the backups' beside the normal header's) on cores that would otherwise wait; a batch that
  // opens several volumes at once gives each its share instead, so that no open's speculative work takes the cores
  // another open's own header needs.
  unsigned kdf_threads = 0;
  // Blocks to derive along the search (AlongBlocks); derived whether or not the volume opens, unless the search is
  // interrupted or no candidate shares their KDF and password.
  AlongBlocks* along = nullptr;
  // Notes for the user ("primary header damaged: opened with the embedded backup header").
  std::function<void(const std::string&)> notice;
  // --verbose: one line once a header opened, with what the search tried and how long it took (the key
  // derivation is most of a short job's start).
  std::function<void(const std::string&)> verbose;
  // FOR TESTS AND FUZZING ONLY; no command or GUI path sets it. Nonzero: every PBKDF2 candidate is derived with
  // this iteration count instead of its format's (the candidates tried stay the same), so that a harness can open
  // headers sealed with a cheap count and spend its time in the search and the layout checks rather than in the
  // KDF. 0 (the default): the real counts of format-spec §5.2.
  uint32_t test_only_pbkdf2_iterations = 0;
};

struct OpenedHeader {
  HeaderFields fields;
  ChainId chain;
  KdfChoice kdf;
  VolumeFormat format;
  SlotKind slot;
  bool from_backup = false;
  uint64_t header_offset = 0;  // where the header that opened sits in the file
  std::array<uint8_t, kSaltSize> salt{};
  // Where the data lives in the file, and how data units are numbered.
  uint64_t data_offset = 0;    // byte offset of the data area in the file
  uint64_t data_size = 0;
  uint64_t first_unit = 0;     // data-unit number of the byte at data_offset (normally data_offset / 512)
  bool master_key_vulnerable = false;  // primary key half == secondary half (VeraCrypt warns)
  // Set for a volume of TrueCrypt before 5.0 (LRW or CBC; docs/format-spec.md §6.5): the key area holds the 32-byte
  // tweak key / IV seed and the ciphers' keys (core/crypto/legacy_mode.h), and `chain` is meaningless.
  std::optional<LegacySuite> legacy;
  // The part of the data area [encrypted_begin, encrypted_end) that holds ciphertext; outside it the bytes are
  // plaintext as they lie (a system encryption that did not finish). Whole area by default.
  uint64_t encrypted_begin = 0, encrypted_end = UINT64_MAX;
  bool read_only = false;    // writes refused (unfinished system encryption)
  int system_partition = 0;  // the drive partition opened as a system volume (0: the key scope itself, or an image
                             // of one partition)
  std::string header_file;   // the file the header came from when it is not the volume's (--header-file)
};

// Throws Error(Format) naming the volume's legacy mode when `h` is a pre-5.0 TrueCrypt volume and `what` (an
// operation that writes XTS headers or data) cannot handle it; points at the way forward.
void require_xts_volume(const OpenedHeader& h, const std::string& what);

// Opens the file at `path` read-only and refuses what cannot be a volume (Error(Auth): smaller than one header),
// so that a missing, unreadable or tiny file is reported before anyone is asked for a password.
std::unique_ptr<BlockFile> open_volume_file(const std::string& path);

// Throws Error(Auth) "wrong password, PIM or keyfile, or not a TrueCrypt/VeraCrypt volume" when nothing decrypts,
// Error(Format) for a header that decrypts but is unusable (newer version, bad sector size, in-place incomplete).
OpenedHeader open_header(BlockFile& file, const OpenOptions& opt);

// The candidate header locations for a file of the given size (exposed for tests and `info`).
struct HeaderLocation {
  SlotKind kind;
  uint64_t offset;
  bool backup;
};
std::vector<HeaderLocation> header_locations(uint64_t file_size, const OpenOptions& opt, bool backups);

// The decision open_header makes once a header decrypted, without the key derivation: `plain` is the 512-byte
// header as decrypt_header left it (salt || decrypted fields), found at `loc` under `format` with `chain` and
// `kdf`. Throws Error(Auth) when check_header says it does not decrypt (bad magic or CRC: the search would go on),
// Error(Format) for an unusable header or layout; otherwise returns what open_header would. Exposed so that the
// header checks and the layout decision can be tested and fuzzed directly (tests/fuzz/fuzz_header_layout.cpp).
struct DecryptedHeader {
  const uint8_t* plain = nullptr;
  HeaderLocation loc{SlotKind::Normal, 0, false};
  VolumeFormat format = VolumeFormat::VeraCrypt;
  ChainId chain = ChainId::Aes;
  KdfChoice kdf{PrfId::Sha512};
};
OpenedHeader open_decrypted_header(BlockFile& file, const OpenOptions& opt, const DecryptedHeader& d);

}  // namespace warpvol
