// In-place re-encryption of a TrueCrypt/VeraCrypt container: fresh master keys (always) and optionally another
// encryption chain, PRF, PIM, password or keyfiles. The layout stays; every data unit of the data area is decrypted
// with the old keys and encrypted with the new ones (XtsEngine::reencrypt, one pass), and the result is an
// ordinary VeraCrypt container. Crash-safe and resumable, after cryptsetup's LUKS2 reencrypt (hot zones,
// resilience "checksum" or "journal", commit point before and safe point after each hot zone, idempotent
// recovery); unlike VeraCrypt's in-place encryption, which rewrites its header every 64 MiB without a journal.
//
// ============================================================================================================
// THE PROTOCOL
// ============================================================================================================
// State lives in two places: the container (headers + data area) and the journal file next to it (journal.h:
// created atomically by write-temp / fsync / rename / fsync-folder, then two slots rewritten in place alternately,
// each authenticated on its own with a MAC keyed from old and new master keys; the state is the authentic slot
// with the highest sequence number, and a commit only ever writes the slot that does not hold it, the "free slot",
// so the newest committed state stays whole until the next commit is durable). "Range" = the byte range being
// processed: the data area of the volume (for an outer + hidden pair: the outer's, the hidden's sub-range using
// the hidden volume's keys). Units below `progress` hold new ciphertext, units at or after the hot zone's end
// hold old ciphertext, units inside the committed hot zone may hold either (or, after a torn write, neither).
//
// PRE-FLIGHT (Job::prepare, nothing is written): container opened read-write and flock()ed, old credentials
//   verified (header opened), hidden volume rules applied, new master keys drawn, all new headers built and
//   sealed (every KDF runs here), journal folder writable with room for the journal (two slots), first unit's
//   ciphertext hashed (sentinel). A batch prepares every container before the first byte is written anywhere.
//
// J0  COMMIT POINT "job recorded": journal created with slot 0 = {phase Marking, progress 0} (temp + fsync +
//     rename + fsync dir). Before J0 nothing was written; after it, a crash leaves a journal that resumes the job.
// M   MARK: for each volume, rewrite_header_pair(marked primary, marked backup): backup slot first, fsync, then
//     the primary slot, fsync (header_writer.h). The marked primary is the OLD header (old credentials, fresh
//     salt) and the marked backup the NEW header (new credentials), both with required program version
//     kReencryptMarkerVersion (marker.h): VeraCrypt/TrueCrypt refuse them ("newer version required"), warpvol's
//     open refuses them pointing to `reencrypt --resume`, with either set of credentials.
// For each hot zone k = [a, b) of the range (at most hotzone bytes):
//   P_k  read the old ciphertext of [a, b); re-encrypt it in memory; protection = checksum: per 512-byte unit
//        a 128-bit hash of its NEW ciphertext (journal.h, UnitHash) | journal: a copy of the OLD ciphertext
//        (copied from the container by one thread, inside the kernel where the files allow it; the readers
//        digest what they read: [a, b) is unchanged on disk until W_k); written into the free slot's protection
//        region (not synced yet) and its digest computed;
//        sentinel = SHA-256 of the old ciphertext of the unit at b. P_k runs beside Z_{k-1} and W_{k-1}; its
//        writes into the free slot wait until Z_{k-1} returned (before that, the slot P_k writes holds the newest
//        committed state). So the protection copy overlaps the data writes (a different file, which the file
//        system does not serialise with the container's). Within P_k, pieces are read, re-encrypted and hashed
//        in parallel (core/job/stream.h): checksum entries are computed by the engine beside each piece
//        (XtsEngine::reencrypt_hashed: the GPU engine hashes in device memory, the CPU engine each run in cache
//        as it finishes it), and each piece's entries go into the slot and into the digest on its own worker
//        (OrderedDigest), so no pass over the zone is left for one thread after the stream.
//        Checksum resilience on an engine that takes several callers prepares two zones ahead: P_{k+1} and
//        P_{k+2} run beside Z_k and W_k, and P_{k+2}'s writes into its slot (the one Z_k commits) wait until
//        Z_{k+1} returned. A stop or an error releases a P waiting for a commit that will not come.
//   Z_k  COMMIT POINT k (= SAFE POINT of zone k-1): after W_{k-1}'s fsync and the end of P_k, the free slot's
//        record {phase Data, progress a, hot zone [a, b), sentinel, protection size, MAC over the fixed part,
//        the record and the protection's digest} written, journal fsync()ed (which makes P_k's protection
//        durable with it). That slot becomes the active one. Only now may [a, b) be overwritten. A crash before
//        the fsync returns leaves that slot either whole (Z_k) or failing its MAC (record or protection torn or
//        half written), and then the active slot still holds Z_{k-1}, whole.
//   W_k  write the new ciphertext of [a, b), fsync the container. Zone k is durable.
//   SIGINT/SIGTERM are honoured here: S = SAFE POINT {progress b, no hot zone} committed into the free slot
//   (after P_{k+1} ended), then exit Error(Interrupted) (exit code 6).
// F1  SAFE POINT "all data new": {phase Finalizing, progress = range size} committed into the free slot.
// F2  for each volume rewrite_header_pair(final primary, final backup) (backup first, fsync, primary, fsync).
// F3  journal removed (unlink, fsync dir). Done: an ordinary VeraCrypt container.
//
// RECOVERY (resume; the same command again, or with --resume): the journal is parsed, both header copies in it
// are decrypted with the old and new credentials the user gives, each slot's MAC is verified and the authentic
// slot with the highest sequence number is the state (none authentic: refused, nothing is touched); a journal of
// format version 1 or 2 (one record, written by earlier versions) is rewritten as version 3 holding the same state
// (atomically, temp + rename) before anything else is written. Then the journal is bound to this container: same
// size, at least one header slot holding one of the journal's own headers for its phase (Marking: original or
// marked, Data: marked, Finalizing: marked or final; the salts make these unique to this job), and the sentinel
// unit still holding the old ciphertext recorded (a stale journal of an earlier point of the same job is refused
// instead of re-encrypting new ciphertext twice). Then:
//   Marking    -> M again (idempotent), continue with zone 0.
//   Data       -> M again (idempotent); the hot zone [a, b) is repaired:
//                   journal mode: the old ciphertext copy is re-encrypted and written over [a, b) (whatever is on
//                   disk, torn writes included), fsync;
//                   checksum mode: per unit, hash = recorded -> new, keep; else re-encrypt it in memory: hash of
//                   the result = recorded -> it was old, write the result; else it is neither -> refused before
//                   anything is written (a write torn inside a unit: checksum mode assumes 512-byte-atomic writes,
//                   like cryptsetup's checksum mode; journal mode does not), fsync;
//                 then continue with zone [b, ...) from Z.
//   Finalizing -> F2 again (idempotent), F3.
// Every step can be repeated any number of times: recovery of a hot zone only ever maps old -> new ciphertext, and
// the header rewrites write fixed bytes from the journal.
// ============================================================================================================
//
// Hidden volumes: re-encrypting a normal volume's data area in place re-encrypts everything inside it, and a
// hidden volume cannot be detected without its password. So a normal volume is re-encrypted only when either the
// hidden volume's credentials are given too (both are re-encrypted in one job: the hidden range with the hidden
// volume's keys) or the caller states there is no hidden volume (no_hidden_volume); otherwise prepare() refuses.
// A hidden volume alone (credentials that open the hidden slot) is re-encrypted without touching the outer data.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/xts_engine.h"
#include "core/format/open.h"
#include "core/reencrypt/journal.h"
#include "core/util/progress.h"

namespace warpvol::reenc {

// Hot zones of a new job when the caller names none: 32 MiB, or 4 MiB where the container and its journal lie on a
// memory file system and the GPU's pipeline re-encrypts with checksum resilience (the job's choice, reencrypt.cpp).
constexpr uint64_t kDefaultHotzone = uint64_t(32) << 20;
constexpr uint64_t kMemoryHotzone = uint64_t(4) << 20;

// What changes. Unset = keep: the chain, the PRF (VeraCrypt's SHA-512 when the old PRF is one VeraCrypt 1.26 no
// longer opens: RIPEMD-160, SHA-1), password, keyfiles, PIM.
struct NewSettings {
  std::optional<ChainId> chain;
  std::optional<PrfId> prf;
  std::optional<LockedBytes> password;
  std::optional<std::vector<std::string>> keyfiles;
  std::optional<int> pim;
};

struct VolumeRequest {
  std::string path;
  OpenOptions open;                   // the current credentials (+ narrowing) of the volume to re-encrypt
  std::optional<OpenOptions> hidden;  // its hidden volume's credentials: outer and hidden re-encrypted together
                                      // (the hidden volume keeps its credentials; chain/PRF changes apply to both)
  bool no_hidden_volume = false;      // the caller states that the normal volume hides no hidden volume
  NewSettings next;
};

enum class StartPolicy { StartOrResume, ResumeOnly };

struct JobOptions {
  Resilience resilience = Resilience::Checksum;  // for new jobs; a resumed job keeps its own
  UnitHash unit_hash = UnitHash::Xxh3_128;       // checksum entries of new jobs (tests write earlier journals)
  uint64_t hotzone = 0;                          // for new jobs; 0 = the job's choice (kDefaultHotzone)
  std::string journal_dir;                       // default: the container's folder
  StartPolicy policy = StartPolicy::StartOrResume;
  std::shared_ptr<XtsEngine> engine;
  CancelToken cancel;
  ProgressFn progress;                           // item = the volume path
  std::function<void(const std::string&)> notice;
  // Gets one line per container at the end: where its time went (read, engine, protection, journal commits,
  // writes, fsync, waiting for the next zone), to tell which stage bounds the job (--verbose).
  std::function<void(const std::string&)> summary;
  // Tests: fault injection on the container and on the journal's files; largest single container write.
  FileWrapper wrap_volume;
  FileWrapper wrap_journal;
  size_t max_write = 0;  // 0 = a hot zone in one write
  unsigned writers = 0;  // threads writing a hot zone (disjoint ranges); 0 = one into a regular file, one per 4
                         // cores (1..4, pieces >= 4 MiB) into a block device
  unsigned zones_ahead = 0;  // zones prepared beside the one written (1 or 2); 0 = 2 for checksum resilience on an
                             // engine that takes several callers, else 1
};

struct JobResult {
  uint64_t bytes = 0;       // bytes re-encrypted by this run
  double seconds = 0;       // wall time of run()
  bool resumed = false;
};

class Migration;

// A job is a re-encryption, or the in-place migration of a V1-layout TrueCrypt volume (migrate.h) when the
// credentials open one: prepare() decides, the rest is the same to callers.
class Job {
 public:
  // Pre-flight; writes nothing. Resumes when a journal exists (any policy), else starts a new job
  // (Error(Usage) with ResumeOnly). Errors: Auth (credentials), Format (journal refused, unsupported volume),
  // Usage (hidden volume rules, bad settings), Io, Busy (locked by another process).
  static std::unique_ptr<Job> prepare(const VolumeRequest& req, const JobOptions& opt);
  ~Job();

  const std::string& path() const;
  const std::string& journal_path() const;
  bool resuming() const;
  uint64_t total_bytes() const;  // size of the range
  uint64_t done_bytes() const;   // already new (resume)
  Resilience resilience() const;
  uint64_t hotzone() const;      // bytes per hot zone: given, chosen for a new job, or the resumed journal's
  std::string describe() const;  // "AES -> Serpent, HMAC-SHA-512 -> HMAC-SHA-512 (normal volume, 256 MiB)"
  // The new headers' keys were derived in the passes that opened the volume (the request named its PRF; README,
  // "reencrypt"): what a batch's pre-flight costs depends on it (--verbose, tests).
  bool header_keys_derived_with_open() const;

  // Runs the protocol to the end. Error(Interrupted) after a safe point when cancelled; any other error leaves a
  // resumable state behind (the journal) unless it happened before J0.
  JobResult run();

  struct Impl;

 private:
  explicit Job(std::unique_ptr<Impl> impl);
  explicit Job(std::unique_ptr<Migration> m);
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<Migration> mig_;
};

}  // namespace warpvol::reenc
