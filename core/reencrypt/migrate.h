// Migration in place of a TrueCrypt volume with the V1 layout (TrueCrypt before 5.0: LRW/CBC modes; TrueCrypt 5.x:
// XTS) into an ordinary VeraCrypt XTS volume. `warpvol reencrypt` runs it when the credentials open such a volume
// (reencrypt.h's Job dispatches here); the journal lives where re-encryption keeps its own
// ("<volume>.warpvol-reencrypt"), with its own magic, so `--resume` and "the same command again" work alike.
//
// Why the data moves: a V1 volume's data area starts at byte 512 and fills the rest of the file; a VeraCrypt volume
// keeps 131072 bytes of header slots at each end (docs/format-spec.md §2). The D data bytes therefore move from 512
// to 131072 (a forward shift of S = 130560 bytes) and the file grows to D + 262144 bytes; on the way every data unit
// is decrypted with the legacy keys and encrypted with fresh XTS master keys (tweak = VeraCrypt's unit number
// offset / 512 of the new position). A block device cannot grow: refused, with the export + import advice.
//
// ============================================================================================================
// THE PROTOCOL
// ============================================================================================================
// The data area is processed in segments from its END backwards: segment [a, b) (offsets within the data area) is
// read from 512 + a and written to 131072 + a. Its destination lies above every source not yet moved (131072 + a >
// 512 + a), so only its own source can be in its way. Two ways to make that safe (chosen by the resilience):
//   datashift ("checksum", the default; cryptsetup's datashift): segments of at most S bytes. The destination then
//     ends where its own source begins (512 + b <= 131072 + a), so while segment [a, b) is being written its source
//     is intact and a crash is repaired by moving it again from there; one commit per segment, no copies.
//   journal: segments of --hotzone-size bytes (at least 1 MiB); the old ciphertext of the segment goes into the
//     journal before its destination is written, and a crash is repaired from that copy; one commit per segment.
// Redoing a segment is harmless as long as its source (or copy) is intact; the journal records a sentinel (a unit
// that changes once resuming from this commit would no longer be safe: see sentinel_offset) so that a stale journal
// (restored from a backup) is refused instead of moving new ciphertext again.
//
// The journal (format below) is MAC-authenticated with a key derived from the old and the new master keys
// (journal.h: journal_mac_key), stored by write-temp / fsync / rename / fsync-folder (journal.h: JournalStore),
// and authenticated before any field of it is acted upon.
//
// PRE-FLIGHT (nothing written): container opened read-write and flock()ed (by Job), a regular file, legacy header
//   opened (not hidden, not system), hidden-volume rule (--no-hidden-volume: a hidden volume inside does not
//   survive), new chain and PRF, new master keys, the final VeraCrypt headers and the marked legacy header built
//   (every KDF runs here), free space for the growth and the journal checked.
// C0  COMMIT POINT "migration recorded": journal {phase Grow, done = D} stored. Before C0 nothing was written.
//     (C0 is the first commit point: a journal exists from here on, and resuming finishes the job.)
// M   mark: the legacy header at 0 is replaced by the same header (same salt, keys and credentials) whose required
//     program version is kReencryptMarkerVersion (marker.h): TrueCrypt, VeraCrypt and warpvol refuse to mount the
//     half-moved volume (warpvol names `reencrypt --resume`). fsync. (Before G: a V1 volume's size is the file's, so
//     a grown file must never open as the legacy volume.)
// G   grow the file to H1 = D + 262144 (fallocate, else ftruncate), fsync.
//     A failure (not a crash) in M or G is rolled back: original header rewritten, file truncated to H0, journal
//     removed: the file is as it was, size included.
// C1  COMMIT POINT "grown and marked": journal {phase Move, done = D}.
// For each segment k = [a, b), b = done, a = max(0, b - segment size):
//   R_k  read [512 + a, 512 + b); decrypt with the legacy keys (their unit numbers), encrypt with the new keys
//        (unit numbers from 256 + a / 512).
//   J_k  (journal mode) COMMIT POINT k: journal {phase Move, done = b, hot segment [a, b), its old ciphertext}.
//   W_k  write it at [131072 + a, 131072 + b), fsync.
//   C_k  (datashift) COMMIT POINT k: journal {phase Move, done = a, sentinel}.
//   SIGINT/SIGTERM are honoured after W_k (C_k): journal mode first stores S = SAFE POINT {done = a, no hot
//   segment}; exit Error(Interrupted).
// F1  SAFE POINT "all data moved": journal {phase Finalize, done = 0}.
// F2  header slots other than the primary header: random [512, 65536), fake hidden header slot at 65536, backup
//     header slot at H1 - 131072, fake hidden backup slot at H1 - 65536; fsync.
// F3  FINAL COMMIT POINT: the VeraCrypt primary header at 0 (over the marked legacy header), fsync.
// F4  journal removed (unlink, fsync folder). Done.
//
// RECOVERY: the journal is parsed, its original legacy header decrypted with the old credentials and its final
// primary header with the new ones (KDF parameters from the PRF ids and the PIM, never from numbers in the file),
// the MAC verified (refused otherwise, nothing touched), then bound to this container (size H0..H1 in phase Grow,
// H1 after; the header at 0 one of the journal's own for its phase; the sentinel). Then:
//   Grow     -> M, G, C1 again (idempotent) and on;
//   Move     -> (journal mode, hot segment) its copy re-encrypted and written over its destination, fsync; then on
//               from the segment below `done`;
//   Finalize -> F2, F3, F4 again (idempotent).
// ============================================================================================================
//
// Journal layout (integers little-endian, size exact):
//   "WVMIGRT1" | u32 version (1) | u64 H0 | u64 H1 | u64 D | u64 segment size | u32 mode (1 datashift, 2 journal)
//   u32 old is a legacy suite (1) or XTS (0) | u32 legacy algorithm | u32 legacy mode | u32 old chain | u32 old PRF
//   u32 new chain | u32 new PRF
//   4 x 512-byte headers: original legacy header, marked legacy header, final primary, final backup
//   state: u64 sequence | u32 phase | u64 done | u32 has sentinel | 32-byte sentinel | u64 hot segment offset |
//     u64 hot segment size (0: none) | 32-byte SHA-256 of the copy
//   the copy: hot segment size bytes (the segment's old ciphertext)
//   64-byte MAC = HMAC-SHA-512(K_mac, everything before the copy), K_mac = journal_mac_key({old key area, new key
//   area}); the copy is covered through its SHA-256.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/io/file.h"
#include "core/reencrypt/reencrypt.h"

namespace warpvol::reenc {

// The journal bytes are a migration's (its magic), not a re-encryption's.
bool is_migration_journal(const std::vector<uint8_t>& bytes);

// The container Job opened and locked, handed over.
struct OpenContainer {
  std::unique_ptr<BlockFile> file;  // read-write, wrapped as JobOptions::wrap_volume says
  int lock_fd = -1;                 // flock()ed; owned from here on
};

class Migration {
 public:
  // A new migration of the legacy normal volume `legacy` (opened by Job's pre-flight with req.open). Writes nothing.
  static std::unique_ptr<Migration> start(const VolumeRequest& req, const JobOptions& opt, const OpenedHeader& legacy,
                                          OpenContainer c, const std::string& journal_path);
  // Resumes from the journal `bytes` (is_migration_journal). Writes nothing; refuses a journal that does not
  // authenticate or does not belong to this container.
  static std::unique_ptr<Migration> resume(const VolumeRequest& req, const JobOptions& opt,
                                           std::vector<uint8_t> bytes, OpenContainer c,
                                           const std::string& journal_path);
  ~Migration();

  const std::string& path() const;
  const std::string& journal_path() const;
  bool resuming() const;
  uint64_t total_bytes() const;
  uint64_t done_bytes() const;
  uint64_t segment_bytes() const;  // bytes moved per commit
  std::string describe() const;
  JobResult run();

  struct Impl;

 private:
  explicit Migration(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpvol::reenc
