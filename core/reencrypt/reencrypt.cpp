// The re-encryption protocol of reencrypt.h: pre-flight, commit/safe points, recovery. Step names (J0, M, P_k,
// Z_k, W_k, S, F1..F3) refer to the protocol description in reencrypt.h.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "core/reencrypt/reencrypt.h"

#include <fcntl.h>
#include <openssl/sha.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "core/format/header_writer.h"
#include "core/io/free_space.h"
#include "core/io/memory_fs.h"
#include "core/reencrypt/job_support.h"
#include "core/reencrypt/legacy_advice.h"
#include "core/reencrypt/marker.h"
#include "core/reencrypt/migrate.h"
#include "core/reencrypt/unit_hash.h"
#include "core/job/stream.h"
#include "core/util/aligned_buffer.h"
#include "core/util/cores.h"
#include "core/util/env.h"
#include "core/util/error.h"
#include "core/util/parallel.h"

namespace warpvol::reenc {

namespace {

constexpr uint64_t kMinHotzone = 64 * 1024;
constexpr uint64_t kMaxHotzone = uint64_t(1) << 30;

using Sha256 = std::array<uint8_t, 32>;

Sha256 sha256(const uint8_t* p, size_t n) {
  Sha256 out;
  SHA256(p, n, out.data());
  return out;
}

// A hot zone's pieces in the job pipeline (several readers and engine callers per zone). The CPU engine spreads
// each request over its cores, so small pieces let a zone's reading, re-encryption and hashing overlap; an engine
// that takes several callers (the GPU's pipeline) runs few large requests far better than many small ones, which
// it cuts into pieces that each wait for a transfer slot (docs/perf: batch re-encryption on the GPU). Journal
// resilience keeps the small pieces on every engine: each piece's old ciphertext goes into the journal from its
// reader's thread, and those writes overlap only across many pieces in flight.
constexpr size_t kZonePiece = size_t(4) << 20;
constexpr size_t kZonePieceMultiCaller = size_t(16) << 20;

// Seconds per stage of one container's run (prepare runs on a helper thread, overlapping the commit and write).
struct StageTimes {
  using Clock = std::chrono::steady_clock;
  std::atomic<int64_t> read{0}, engine{0}, protect{0}, commit{0}, write{0}, sync{0}, wait{0};
  static void add(std::atomic<int64_t>& a, Clock::time_point t0) {
    a += std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
  }
};

uint32_t magic_of(VolumeFormat f) { return f == VolumeFormat::TrueCrypt ? kMagicTrue : kMagicVera; }

// Decrypts a stored header with the given credentials' KDF input; nullopt when it does not decrypt.
std::optional<HeaderFields> open_stored_header(const EncryptedHeader& h, ChainId chain, const KdfChoice& kdf,
                                               const LockedBytes& kdf_password, uint32_t magic) {
  const size_t K2 = 2 * chain_info(chain).key_size();
  SecureBytes key(kHeaderKeyMaterial);
  derive_header_key(kdf, kdf_password, h.data(), key.data(), K2);
  SecureBytes buf(h.data(), h.size());
  decrypt_header(chain, key.data(), buf.data());
  if (check_header(buf.data(), magic) != HeaderCheck::Ok) return std::nullopt;
  return parse_header(buf.data());
}

Credentials new_credentials(const Credentials& old, const NewSettings& n) {
  Credentials c;
  c.password = n.password ? *n.password : old.password;
  c.keyfiles = n.keyfiles ? *n.keyfiles : old.keyfiles;
  c.pim = n.pim ? *n.pim : old.pim;
  return c;
}

std::string prf_name(PrfId p) { return "HMAC-" + std::string(prf_info(p).name); }

// The new header's PRF: the one asked for, else the old one where VeraCrypt 1.26 still opens it, else SHA-512.
PrfId new_header_prf(const NewSettings& n, PrfId old) {
  return n.prf ? *n.prf : prf_info(old).veracrypt ? old : PrfId::Sha512;
}

// A one-part job's three header keys (in prepare_new's order: old credentials for the marked primary; new
// credentials for the final primary, and for the final backup whose key the marked backup shares), planned before
// the open so that their PBKDF2 blocks go along its derivation (OpenOptions::along): a batch's pre-flight then costs
// about one pass of the SHA-512 lanes per thread instead of the open's block-by-block rounds and a pass after them.
// Only where the request names the open's PRF and the volume turns out as planned (a VeraCrypt header of that PRF,
// no hidden part): else prepare_new derives them as before. A key whose chain is not named (the open's, and the new
// one unless --new-encryption names it) is planned at the most key material a chain takes, where the PRF has SIMD
// lanes to derive the extra blocks in: PBKDF2's blocks are independent, so any chain's key is a prefix of it.
class KeysAhead {
 public:
  static std::unique_ptr<KeysAhead> plan(const VolumeRequest& req) {
    const OpenOptions& o = req.open;
    if (!o.prf || *o.prf == PrfId::Argon2id || !prf_info(*o.prf).veracrypt || req.hidden || o.system ||
        o.format == VolumeFormat::TrueCrypt || o.test_only_pbkdf2_iterations)
      return nullptr;
    if (!o.chain && pbkdf2_lane_width(*o.prf) < 2) return nullptr;  // the extra blocks would cost their time
    const PrfId new_prf = new_header_prf(req.next, *o.prf);
    if (new_prf == PrfId::Argon2id || !prf_info(new_prf).veracrypt) return nullptr;
    auto k = std::unique_ptr<KeysAhead>(new KeysAhead);
    try {
      const Credentials next = new_credentials(o.credentials, req.next);
      k->old_kdf_ = new_header_kdf(*o.prf, VolumeFormat::VeraCrypt, o.credentials.pim);
      k->new_kdf_ = new_header_kdf(new_prf, VolumeFormat::VeraCrypt, next.pim);
      k->old_pw_ = header_kdf_password(o.credentials, VolumeFormat::VeraCrypt);
      k->new_pw_ = header_kdf_password(next, VolumeFormat::VeraCrypt);
    } catch (const Error&) {
      return nullptr;  // bad settings: prepare_new says what is wrong, after the open
    }
    const std::optional<ChainId> new_chain = req.next.chain ? req.next.chain : o.chain;
    k->named_ = {o.chain.has_value(), new_chain.has_value(), new_chain.has_value()};
    k->planned_ = {{o.chain.value_or(kMostKeyMaterial), &k->old_kdf_, &k->old_pw_},
                   {new_chain.value_or(kMostKeyMaterial), &k->new_kdf_, &k->new_pw_},
                   {new_chain.value_or(kMostKeyMaterial), &k->new_kdf_, &k->new_pw_}};
    k->batch_ = std::make_unique<HeaderKeyBatch>(k->planned_);
    k->along_.prf = k->old_kdf_.prf;
    k->along_.iterations = k->old_kdf_.iterations;
    k->along_.password = &k->old_pw_;
    k->along_.blocks = k->batch_->lend_blocks(k->old_kdf_.prf, k->old_kdf_.iterations, k->old_pw_);
    k->open_ = o;
    k->open_.along = &k->along_;
    return k;
  }

  const OpenOptions& open_options() const { return open_; }

  // The keys of these specs (prepare_new's), when they are the planned ones; else nothing (derive them).
  std::optional<std::vector<HeaderKey>> take(const std::vector<HeaderKeySpec>& specs, unsigned threads) {
    if (specs.size() != planned_.size() || !batch_) return std::nullopt;
    for (size_t i = 0; i < specs.size(); ++i) {
      const HeaderKeySpec &a = specs[i], &b = planned_[i];
      const bool chain_ok =
          named_[i] ? a.chain == b.chain : chain_info(a.chain).key_size() <= chain_info(b.chain).key_size();
      if (!chain_ok || a.kdf->prf != b.kdf->prf || a.kdf->iterations != b.kdf->iterations ||
          a.kdf_password->view() != b.kdf_password->view())
        return std::nullopt;
    }
    used_with_open_ = along_.derived;
    std::vector<HeaderKey> keys = batch_->keys(threads, along_.derived);
    batch_.reset();
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i].chain != specs[i].chain) {  // planned at the most key material: the chain's key is its prefix
        LockedBytes key(keys[i].key.data(), 2 * chain_info(specs[i].chain).key_size());
        keys[i].key = std::move(key);
        keys[i].chain = specs[i].chain;
      }
    return keys;
  }

  bool used_with_open() const { return used_with_open_; }

 private:
  // A chain whose key material is kHeaderKeyMaterial, the most any chain takes (three ciphers).
  static constexpr ChainId kMostKeyMaterial = ChainId::AesTwofishSerpent;
  KeysAhead() = default;
  std::array<bool, 3> named_{};  // the planned key's chain was named (else any chain up to kMostKeyMaterial's)
  KdfChoice old_kdf_, new_kdf_;
  LockedBytes old_pw_, new_pw_;
  std::vector<HeaderKeySpec> planned_;
  std::unique_ptr<HeaderKeyBatch> batch_;
  AlongBlocks along_;
  OpenOptions open_;
  bool used_with_open_ = false;
};

}  // namespace

struct Job::Impl {
  struct Part {
    PartRecord rec;
    Credentials old_creds, new_creds;
    LockedBytes old_area{256}, new_area{256};  // master key areas (for the MAC key)
    std::shared_ptr<const EngineKey> old_key, new_key;
    uint64_t rel_begin = 0, rel_end = 0;  // within the range
  };

  std::string path, journal_path;
  JobOptions opt;
  std::unique_ptr<BlockFile> file;   // read-write, possibly wrapped (tests)
  std::unique_ptr<BlockFile> rfile;  // read-only: P_k reads on the pipeline thread (never regions written yet)
  int lock_fd = -1;
  std::unique_ptr<JournalStore> store;
  std::vector<uint8_t> loaded;  // the journal as read (resume): state.protection points into it
  uint32_t loaded_version = 0;  // its format version (1, 2: rewritten as version 3 before anything else)
  Journal j;
  JournalFixed fixed;           // the journal's fixed part and slot layout
  unsigned active = 0;          // the slot holding the newest committed state; the next commit goes to the other
  MacKey mac{};
  std::vector<Part> parts;
  bool resuming = false;
  bool on_disk = false;  // a journal exists (J0 passed)
  std::optional<OpenedHeader> legacy;  // prepare_new opened a V1-layout volume: migrated instead (migrate.h)
  bool keys_with_open = false;  // the new header keys were derived along the open (KeysAhead)
  std::string hotzone_why = "given";  // how j.hotzone was set (--verbose)
  std::chrono::steady_clock::time_point t0;
  StageTimes times;
  uint64_t bytes_this_run = 0;

  ~Impl() {
    secure_wipe(mac.data(), mac.size());
    if (lock_fd >= 0) ::close(lock_fd);
  }

  void notice(const std::string& m) const {
    if (opt.notice) opt.notice(m);
  }

  void report(const char* phase, bool finished = false) const {
    if (!opt.progress) return;
    ProgressUpdate u;
    u.item = path;
    u.phase = phase;
    u.bytes_done = j.state.progress;
    u.bytes_total = j.range_size;
    u.finished = finished;
    opt.progress(u);
  }

  // ---- pre-flight helpers ----

  void open_and_lock() {
    file = open_file(path, OpenMode::ReadWrite);
    lock_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (lock_fd < 0) throw_errno(path);
    if (::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK)
        throw Error(ErrorKind::Busy, path + ": in use by another warpvol process (re-encryption or mount)");
      throw_errno(path + ": flock");
    }
    rfile = open_file(path, OpenMode::ReadOnly);
    if (opt.wrap_volume) file = opt.wrap_volume(std::move(file));
  }

  std::string journal_folder() const {
    const std::filesystem::path jp(journal_path);
    return jp.parent_path().empty() ? "." : jp.parent_path().string();
  }

  void check_journal_folder(uint64_t existing) const {
    const std::string dir = journal_folder();
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) throw_errno("journal folder " + dir);
    if (!S_ISDIR(st.st_mode)) throw Error(ErrorKind::Io, "journal folder " + dir + " is not a folder");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      throw Error(ErrorKind::Io, "journal folder " + dir + " is not writable (give --journal-dir)");
    struct statvfs vfs;
    if (::statvfs(dir.c_str(), &vfs) != 0) throw_errno("journal folder " + dir);
    if (vfs.f_flag & ST_RDONLY) throw Error(ErrorKind::Io, "journal folder " + dir + " is on a read-only filesystem");
    const uint64_t need = max_journal_size(j.resilience, j.hotzone, j.parts.size()) + (1 << 20);
    const std::optional<uint64_t> avail = available_bytes(vfs);  // none: no size reported, the writes find out
    if (avail && *avail + existing < need)
      throw Error(ErrorKind::Io, "not enough free space in " + dir + " for the re-encryption journal: need " +
                                     std::to_string(need) + " bytes, " + std::to_string(*avail) + " available "
                                     "(use a smaller --hotzone-size, checksum resilience, or --journal-dir)");
  }

  void sentinel_at(uint64_t rel, JournalState& s) { sentinel_from(*file, rel, s); }
  void sentinel_from(BlockFile& f, uint64_t rel, JournalState& s) {
    s.has_sentinel = rel < j.range_size;
    s.sentinel = {};
    if (!s.has_sentinel) return;
    uint8_t unit[kDataUnitSize];
    f.read_at(j.range_offset + rel, unit, sizeof unit);
    s.sentinel = sha256(unit, sizeof unit);
  }

  void make_engine_keys(Part& p) {
    p.old_key = opt.engine->prepare(p.rec.old_chain, p.old_area.data());
    p.new_key = opt.engine->prepare(p.rec.new_chain, p.new_area.data());
  }

  void compute_mac_key() {
    std::vector<const uint8_t*> areas;
    for (const Part& p : parts) {
      areas.push_back(p.old_area.data());
      areas.push_back(p.new_area.data());
    }
    mac = journal_mac_key(areas);
  }

  void set_ranges() {
    for (Part& p : parts) {
      p.rel_begin = p.rec.data_offset - j.range_offset;
      p.rel_end = p.rel_begin + p.rec.data_size;
    }
  }

  // ---- new job ----

  void prepare_new(const VolumeRequest& req) {
    const uint64_t H = file->size();
    std::unique_ptr<KeysAhead> ahead = KeysAhead::plan(req);
    OpenedHeader oh;
    try {
      oh = open_header(*file, ahead ? ahead->open_options() : req.open);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Format && std::string(e.what()).find(kHalfReencryptedPhrase) != std::string::npos)
        throw Error(ErrorKind::Format, path + " is half re-encrypted, but its journal " + journal_path +
                                           " is missing (moved? give --journal-dir to where it is)");
      throw;
    }
    if (oh.slot == SlotKind::LegacyNormal || oh.slot == SlotKind::LegacyHidden) {
      legacy = std::move(oh);  // Job::prepare hands the container to a Migration
      return;
    }
    check_supported(oh, H);
    std::vector<std::pair<OpenedHeader, const OpenOptions*>> opened;
    opened.push_back({std::move(oh), &req.open});
    if (opened[0].first.slot == SlotKind::Hidden) {
      if (req.hidden)
        throw Error(ErrorKind::Usage, path + ": the credentials open the hidden volume; --hidden-* credentials are "
                                             "for re-encrypting an outer volume together with its hidden volume");
    } else if (req.hidden) {
      OpenOptions ho = *req.hidden;
      ho.slot = SlotKind::Hidden;
      ho.allow_backup_fallback = true;
      OpenedHeader hh = open_header(*file, ho);
      if (hh.slot != SlotKind::Hidden)
        throw Error(ErrorKind::Auth, path + ": the hidden-volume credentials do not open a hidden volume");
      check_supported(hh, H);
      const OpenedHeader& outer = opened[0].first;
      if (hh.data_offset < outer.data_offset || hh.data_offset + hh.data_size > outer.data_offset + outer.data_size)
        throw Error(ErrorKind::Format, path + ": the hidden volume does not lie inside the outer volume's data area");
      opened.push_back({std::move(hh), &*req.hidden});
    } else if (!req.no_hidden_volume) {
      throw Error(ErrorKind::Usage,
                  path + ": re-encrypting a normal volume rewrites its whole data area, which would destroy a hidden "
                         "volume inside it (a hidden volume cannot be detected without its password). Give the hidden "
                         "volume's credentials too (--hidden-password-stdin/-fd, --hidden-keyfile, --hidden-pim) to "
                         "re-encrypt both, or state that there is none with --no-hidden-volume");
    }

    const OpenedHeader& first = opened[0].first;
    j.resilience = opt.resilience;
    j.unit_hash = opt.unit_hash;
    j.container_size = H;
    j.hotzone = opt.hotzone ? opt.hotzone : kDefaultHotzone;  // the choice below once the engine's keys exist
    j.range_offset = first.data_offset;
    j.range_size = first.data_size;
    j.range_first_unit = first.first_unit;

    // New settings, KDF inputs, master keys, headers. The KDFs of all parts run in parallel.
    struct Build {
      HeaderFields old_fields, new_fields;
      KdfChoice old_kdf, new_kdf;
      LockedBytes old_pw, new_pw;
    };
    std::vector<Build> builds(opened.size());
    parts.resize(opened.size());
    for (size_t i = 0; i < opened.size(); ++i) {
      const OpenedHeader& o = opened[i].first;
      Part& p = parts[i];
      Build& b = builds[i];
      p.rec.slot = o.slot;
      p.rec.old_format = o.format;
      p.rec.old_chain = o.chain;
      p.rec.old_prf = o.kdf.prf;
      p.rec.new_chain = req.next.chain.value_or(o.chain);
      if (req.next.prf) {
        if (!prf_info(*req.next.prf).veracrypt)
          throw Error(ErrorKind::Usage, std::string(prf_info(*req.next.prf).name) +
                                            " is not available in VeraCrypt 1.26 (use sha512, sha256, blake2s, "
                                            "whirlpool, streebog or argon2)");
        p.rec.new_prf = *req.next.prf;
      } else {
        p.rec.new_prf = new_header_prf(req.next, o.kdf.prf);
        if (p.rec.new_prf != o.kdf.prf)
          notice(path + ": VeraCrypt 1.26 no longer opens " + prf_name(o.kdf.prf) + " headers: the new header uses " +
                 prf_name(p.rec.new_prf) + " (choose with --new-hash)");
      }
      p.rec.data_offset = o.data_offset;
      p.rec.data_size = o.data_size;
      p.rec.first_unit = o.first_unit;
      p.old_creds = opened[i].second->credentials;
      // The volume the main credentials open takes the new credentials; a hidden volume re-encrypted along with
      // its outer volume keeps its own.
      p.new_creds = i == 0 ? new_credentials(p.old_creds, req.next) : p.old_creds;
      b.old_kdf = o.kdf;
      b.new_kdf = new_header_kdf(p.rec.new_prf, VolumeFormat::VeraCrypt, p.new_creds.pim);
      b.old_pw = header_kdf_password(p.old_creds, o.format);
      b.new_pw = header_kdf_password(p.new_creds, VolumeFormat::VeraCrypt);
      b.old_fields = o.fields;
      b.new_fields = o.fields;
      b.new_fields.magic = kMagicVera;
      b.new_fields.version = kHeaderVersion;
      b.new_fields.required_version = kVeraRequiredVersion;
      if (o.fields.version < 5) b.new_fields.sector_size = 512;
      b.new_fields.volume_creation_time = b.new_fields.header_creation_time = 0;
      LockedBytes mk = new_master_key(p.rec.new_chain);
      std::memset(b.new_fields.key_area.data(), 0, 256);
      std::memcpy(b.new_fields.key_area.data(), mk.data(), mk.size());
      std::memcpy(p.old_area.data(), o.fields.key_area.data(), 256);
      std::memcpy(p.new_area.data(), b.new_fields.key_area.data(), 256);
      // What is on disk now (kept to recognise this container while the job is at its very start).
      file->read_at(header_offset(o.slot, false, H), p.rec.orig_primary.data(), kHeaderSize);
      file->read_at(header_offset(o.slot, true, H), p.rec.orig_backup.data(), kHeaderSize);
    }
    // Three KDFs per volume: old credentials (marked primary), new credentials twice (final primary; final backup,
    // whose salt and header key the marked backup shares). Derived together, on the cores the open was given (a
    // batch shares the machine between its containers).
    std::vector<HeaderKeySpec> specs;
    for (size_t i = 0; i < builds.size(); ++i) {
      const Build& b = builds[i];
      const Part& p = parts[i];
      specs.push_back({p.rec.old_chain, &b.old_kdf, &b.old_pw});
      specs.push_back({p.rec.new_chain, &b.new_kdf, &b.new_pw});
      specs.push_back({p.rec.new_chain, &b.new_kdf, &b.new_pw});
    }
    std::optional<std::vector<HeaderKey>> ahead_keys;
    if (ahead) ahead_keys = ahead->take(specs, req.open.kdf_threads);
    keys_with_open = ahead && ahead->used_with_open();
    const std::vector<HeaderKey> keys =
        ahead_keys ? std::move(*ahead_keys) : new_header_keys(specs, req.open.kdf_threads);
    for (size_t i = 0; i < builds.size(); ++i) {
      Build& b = builds[i];
      Part& p = parts[i];
      HeaderFields marked_old = b.old_fields, marked_new = b.new_fields;
      marked_old.required_version = kReencryptMarkerVersion;
      marked_new.required_version = kReencryptMarkerVersion;
      p.rec.marked_primary = seal_header(marked_old, keys[3 * i]);
      p.rec.final_primary = seal_header(b.new_fields, keys[3 * i + 1]);
      p.rec.final_backup = seal_header(b.new_fields, keys[3 * i + 2]);
      p.rec.marked_backup = seal_header(marked_new, keys[3 * i + 2]);
      j.parts.push_back(p.rec);
      make_engine_keys(p);
    }
    set_ranges();
    if (!opt.hotzone) choose_hotzone();
    compute_mac_key();
    j.state = JournalState{};
    j.state.phase = Phase::Marking;
    sentinel_at(0, j.state);
    check_journal_folder(0);
  }

  void check_supported(const OpenedHeader& o, uint64_t H) const {
    if (o.slot == SlotKind::System || (o.fields.flags & kFlagSystem))
      throw Error(ErrorKind::Format, path + ": system-encryption volumes are not re-encrypted by warpvol");
    if (o.slot == SlotKind::LegacyNormal || o.slot == SlotKind::LegacyHidden)
      throw Error(ErrorKind::Format, v1_layout_advice(path, o, H));
    if (H < 2 * kHeaderGroupSize)
      throw Error(ErrorKind::Format, path + ": too small for embedded backup headers");
    if (o.data_size == 0 || o.data_size % kDataUnitSize || o.data_offset % kDataUnitSize ||
        o.first_unit != o.data_offset / kDataUnitSize)
      throw Error(ErrorKind::Format, path + ": the data area is not made of whole 512-byte units");
    if (o.from_backup)
      notice(path + ": the primary header did not decrypt; opened with the embedded backup (both are rewritten)");
  }

  // ---- resume ----

  void prepare_resume(const VolumeRequest& req) {
    resuming = true;
    on_disk = true;
    const std::string refused = "refusing to resume the re-encryption of " + path + " (nothing was changed): ";
    LoadedJournal lj;
    try {
      lj = parse_journal_file(loaded);
    } catch (const Error& e) {
      throw Error(ErrorKind::Format, refused + journal_path + ": " + e.what());
    }
    j = lj.job;
    loaded_version = lj.version;
    if (j.parts.size() == 2 && !req.hidden)
      throw Error(ErrorKind::Usage, path + ": the interrupted job re-encrypts the outer and the hidden volume: give "
                                           "the hidden volume's credentials too (--hidden-password-stdin/-fd, "
                                           "--hidden-keyfile, --hidden-pim)");
    parts.resize(j.parts.size());
    for (size_t i = 0; i < j.parts.size(); ++i) {
      Part& p = parts[i];
      p.rec = j.parts[i];
      const OpenOptions& oo = i == 0 ? req.open : *req.hidden;
      p.old_creds = oo.credentials;
      p.new_creds = i == 0 ? new_credentials(p.old_creds, req.next) : p.old_creds;
      const KdfChoice old_kdf = existing_kdf(p.rec.old_prf, p.rec.old_format, p.old_creds.pim);
      const KdfChoice new_kdf = existing_kdf(p.rec.new_prf, VolumeFormat::VeraCrypt, p.new_creds.pim);
      const LockedBytes old_pw = header_kdf_password(p.old_creds, p.rec.old_format);
      const LockedBytes new_pw = header_kdf_password(p.new_creds, VolumeFormat::VeraCrypt);
      auto fo = std::async(std::launch::async, [&] {
        return open_stored_header(p.rec.marked_primary, p.rec.old_chain, old_kdf, old_pw, magic_of(p.rec.old_format));
      });
      auto fn = open_stored_header(p.rec.final_primary, p.rec.new_chain, new_kdf, new_pw, kMagicVera);
      auto fold = fo.get();
      const std::string which = i == 0 ? "" : "hidden volume's ";
      if (!fold)
        throw Error(ErrorKind::Auth, refused + "the " + which + "current password, PIM or keyfiles do not open the " +
                                         "journal's copy of the old header (wrong credentials, or " + journal_path +
                                         " was tampered with)");
      if (!fn)
        throw Error(ErrorKind::Auth, refused + "the " + which + "new password, PIM or keyfiles do not open the " +
                                         "journal's copy of the new header (wrong new credentials: give the same " +
                                         "--new-* options as when the job started; or " + journal_path +
                                         " was tampered with)");
      std::memcpy(p.old_area.data(), fold->key_area.data(), 256);
      std::memcpy(p.new_area.data(), fn->key_area.data(), 256);
      if (fold->required_version != kReencryptMarkerVersion)
        throw Error(ErrorKind::Format, refused + journal_path + " is inconsistent (old header not marked)");
      const uint64_t want_off = fold->encrypted_area_start;
      const uint64_t want_size = p.rec.slot == SlotKind::Hidden ? fold->hidden_volume_size : fold->volume_size;
      if (want_off != p.rec.data_offset || want_size != p.rec.data_size)
        throw Error(ErrorKind::Format, refused + journal_path + " is inconsistent (data area)");
    }
    compute_mac_key();
    // The newest authentic state (version 3: of the two slots; a slot torn or half written fails its MAC).
    const auto chosen = newest_authentic_slot(loaded, lj, mac);
    if (!chosen)
      throw Error(ErrorKind::Format, refused + journal_path + " fails authentication: it was modified, truncated, or "
                                                             "belongs to another container or job");
    j.state = chosen->state;
    active = chosen->index;
    fixed = serialize_fixed(j);
    if (loaded_version == kSlotJournalVersion &&
        !std::equal(fixed.bytes.begin(), fixed.bytes.end(), loaded.begin()))
      throw Error(ErrorKind::Format, refused + journal_path + " is inconsistent (fixed part)");
    try {
      validate_journal(j);
    } catch (const Error& e) {
      throw Error(ErrorKind::Format, refused + e.what());
    }
    // From here the journal is authentic: bind it to this container.
    const uint64_t H = file->size();
    if (H != j.container_size)
      throw Error(ErrorKind::Format, refused + journal_path + " belongs to a container of " +
                                         std::to_string(j.container_size) + " bytes, this one has " + std::to_string(H));
    if (req.next.chain && *req.next.chain != parts[0].rec.new_chain)
      throw Error(ErrorKind::Usage, path + ": the interrupted job re-encrypts to " +
                                        std::string(chain_info(parts[0].rec.new_chain).name) +
                                        "; resume it with the same --new-encryption (or none)");
    if (req.next.prf && *req.next.prf != parts[0].rec.new_prf)
      throw Error(ErrorKind::Usage, path + ": the interrupted job uses " + prf_name(parts[0].rec.new_prf) +
                                        " for the new header; resume it with the same --new-hash (or none)");
    bool bound = false;
    for (const Part& p : parts) {
      EncryptedHeader pri, bak;
      file->read_at(header_offset(p.rec.slot, false, H), pri.data(), kHeaderSize);
      file->read_at(header_offset(p.rec.slot, true, H), bak.data(), kHeaderSize);
      const Phase ph = j.state.phase;
      if (ph == Phase::Marking)
        bound |= pri == p.rec.orig_primary || pri == p.rec.marked_primary || bak == p.rec.orig_backup ||
                 bak == p.rec.marked_backup;
      if (ph == Phase::Data) bound |= pri == p.rec.marked_primary || bak == p.rec.marked_backup;
      if (ph == Phase::Finalizing)
        bound |= pri == p.rec.marked_primary || bak == p.rec.marked_backup || pri == p.rec.final_primary ||
                 bak == p.rec.final_backup;
    }
    if (!bound)
      throw Error(ErrorKind::Format, refused + "no header of " + path + " is one that " + journal_path +
                                         " wrote or expects: the journal belongs to another container (or a copy)");
    if (j.state.has_sentinel) {
      const uint64_t at = j.state.hot_size ? j.state.hot_offset + j.state.hot_size : j.state.progress;
      uint8_t unit[kDataUnitSize];
      file->read_at(j.range_offset + at, unit, sizeof unit);
      if (sha256(unit, sizeof unit) != j.state.sentinel)
        throw Error(ErrorKind::Format, refused + "the container's data past the journal's progress point was already "
                                                 "rewritten: " + journal_path +
                                                 " is older than the container (restored from a backup?)");
    }
    for (Part& p : parts) make_engine_keys(p);
    set_ranges();
    hotzone_why = "the journal's";
    if (opt.resilience != j.resilience || (opt.hotzone && opt.hotzone != j.hotzone))
      notice(path + ": resuming with the journal's settings (" + std::string(resilience_name(j.resilience)) +
             " resilience, " + size_text(j.hotzone) + " hot zones)");
    check_journal_folder(loaded_version == kSlotJournalVersion ? loaded.size() : 0);
  }

  // ---- the protocol ----

  // J0, and the rewrite of a resumed journal of format version 1 or 2: a new two-slot journal whose slot 0 holds
  // `s` (protection included) replaces any journal atomically (temporary file, fsync, rename, fsync folder).
  void create_journal(const JournalState& s) {
    fixed = serialize_fixed(j);
    const JournalLayout& L = fixed.layout;
    const auto rec = serialize_slot(fixed, 0, s, protection_digest(s.protection, size_t(s.protection_size)), mac);
    store->create(L.file_size(), {{0, fixed.bytes.data(), fixed.bytes.size()},
                                  {L.slot_offset(0), rec.data(), rec.size()},
                                  {L.protection_offset(0), s.protection, size_t(s.protection_size)}});
    j.state = s;
    active = 0;
    on_disk = true;
  }

  // Commits `s`, whose protection (digest d) is already in the other slot's region (written by P_k; none for S
  // and F1): its record goes into the slot that does not hold the newest committed state, then fsync. A commit or
  // safe point when it returns; until then the previous state stays whole in the active slot.
  void commit(JournalState s, const Digest& d) {
    s.seq = j.state.seq + 1;
    s.protection = nullptr;
    const unsigned slot = 1 - active;
    const auto rec = serialize_slot(fixed, slot, s, d, mac);
    store->write_at(fixed.layout.slot_offset(slot), rec.data(), rec.size());
    store->sync();
    j.state = s;
    active = slot;
  }
  void commit(JournalState s) { commit(s, protection_digest(nullptr, 0)); }

  void mark_headers() {  // M
    for (const Part& p : parts) rewrite_header_pair(*file, p.rec.slot, p.rec.marked_primary, p.rec.marked_backup);
  }

  // Decrypts old / encrypts new, in place, the range bytes [rel, rel + len) (whole units), by volume.
  // With `entries` (checksum mode), unit i's checksum entry goes to entries + 16 i: XXH3-128 entries are computed
  // by the engine beside the data (XtsEngine::reencrypt_hashed: the GPU hashes in device memory); the SHA-256
  // entries of journals from before XXH3 as each run of units is finished (XtsEngine::reencrypt_each), on its
  // thread, while the run is in that core's cache.
  void reencrypt_range(uint64_t rel, uint8_t* data, uint64_t len, uint8_t* entries = nullptr) {
    uint64_t pos = rel;
    const uint64_t end = rel + len;
    while (pos < end) {
      const Part* p = &parts[0];
      uint64_t seg_end = end;
      if (parts.size() == 2) {
        const Part& h = parts[1];
        if (pos >= h.rel_begin && pos < h.rel_end) {
          p = &h;
          seg_end = std::min(end, h.rel_end);
        } else if (pos < h.rel_begin) {
          seg_end = std::min(end, h.rel_begin);
        }
      }
      const uint64_t unit0 = j.range_first_unit + pos / kDataUnitSize;
      uint8_t* seg = data + (pos - rel);
      const size_t nunits = size_t((seg_end - pos) / kDataUnitSize);
      uint8_t* seg_entries = entries ? entries + (pos - rel) / kDataUnitSize * kChecksumEntrySize : nullptr;
      if (!seg_entries) {
        opt.engine->reencrypt(*p->old_key, *p->new_key, unit0, seg, nunits);
      } else if (j.unit_hash == UnitHash::Xxh3_128) {
        opt.engine->reencrypt_hashed(*p->old_key, *p->new_key, unit0, seg, nunits, seg_entries);
      } else {
        opt.engine->reencrypt_each(*p->old_key, *p->new_key, unit0, seg, nunits, [&](size_t first, size_t end) {
          hash_units(j.unit_hash, seg + first * kDataUnitSize, end - first, seg_entries + first * kChecksumEntrySize,
                     1);
        });
      }
      pos = seg_end;
    }
  }

  // Writes [rel, rel + len): from one thread into a regular file (its writes serialise on the inode lock, and
  // writers waiting for it spin on the cores the next zone's readers and engine need: BlockFile::parallel_writes),
  // with positioned writes from several threads on disjoint ranges into a block device where the machine has the
  // cores (or as many as opt.writers says). The pieces' edges are on kDirectAlign boundaries, so no 512-byte unit
  // is split between two writes.
  void write_range(uint64_t rel, const uint8_t* data, uint64_t len) {
    const uint64_t step = opt.max_write ? opt.max_write : len;
    auto write_part = [&](uint64_t from, uint64_t to) {
      for (uint64_t done = from; done < to; done += step)
        file->write_at(j.range_offset + rel + done, data + done, size_t(std::min(step, to - done)));
    };
    const unsigned hw = usable_cores();
    const uint64_t device_parts = std::min<uint64_t>(std::clamp(hw / 4, 1u, 4u), len >> 22);
    const unsigned parts = opt.writers               ? unsigned(std::min<uint64_t>(opt.writers, len / kDirectAlign))
                           : file->parallel_writes() ? unsigned(device_parts)
                                                     : 1;
    if (parts <= 1) {
      write_part(0, len);
      return;
    }
    const uint64_t per = (len / parts + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
    run_parts(parts, [&](unsigned p) {
      const uint64_t a = std::min(len, p * per), b = std::min(len, (p + 1) * per);
      if (a < b) write_part(a, b);
    });
  }

  struct Zone {
    uint64_t off = 0, len = 0;
    IoBuffer data;              // new ciphertext once prepared (the engine's buffer: see prepare_zone)
    IoBuffer prot;              // checksum entries (journal mode: the old ciphertext goes straight to the journal)
    uint64_t prot_size = 0;     // bytes of protection written into the slot
    Digest digest{};            // of the protection
    JournalState sentinel;      // only has_sentinel/sentinel used
  };

  // The old ciphertext of zone [off, off + len) into the free slot's protection region at prot_at, once the slot
  // is free: inside the kernel, or through a buffer where the files cannot (the zone is unchanged on disk until Z_k).
  void copy_zone_to_slot(uint64_t off, uint64_t len, uint64_t prot_at, const std::function<void()>& wait_free) {
    wait_free();
    const auto t0 = StageTimes::Clock::now();
    if (!store->copy_range_from(*rfile, j.range_offset + off, prot_at, len)) {
      std::vector<uint8_t> buf(size_t(std::min<uint64_t>(len, kZonePiece)));
      for (uint64_t done = 0; done < len; done += buf.size()) {
        const size_t n = size_t(std::min<uint64_t>(buf.size(), len - done));
        rfile->read_at(j.range_offset + off + done, buf.data(), n);
        store->write_at(prot_at + done, buf.data(), n);
      }
    }
    StageTimes::add(times.protect, t0);
  }

  // P_k: reads zone [off, ...), re-encrypts it in memory, and writes its protection into the protection region of
  // journal slot `slot`. That slot may still hold the newest committed state when P_k starts: every write into it
  // waits for `slot_free` (ready once the commit that supersedes that state returned; none: free already).
  void prepare_zone(Zone& z, uint64_t off, unsigned slot, const std::shared_future<void>& slot_free = {}) {
    auto wait_free = [&slot_free] {
      if (!slot_free.valid()) return;
      const std::shared_future<void> own = slot_free;  // a copy per thread
      own.get();                                       // rethrows when that commit failed
    };
    z.off = off;
    z.len = std::min(j.hotzone, j.range_size - off);
    const Part& p0 = parts[0];
    // The engine's buffer for these keys: pinned where the GPU engine takes them (DMA without a staging copy),
    // page-aligned on the CPU engine (pread into one 16 bytes past a cache-line boundary, where malloc puts a
    // large vector's data, was much slower; docs/perf/design-figures.md, "Jobs").
    if (z.data.size() < z.len) z.data = opt.engine->io_buffer_for(size_t(z.len), *p0.old_key, p0.new_key.get());
    const size_t nunits = size_t(z.len / kDataUnitSize);
    const bool journal = j.resilience == Resilience::Journal;
    const uint64_t prot_at = fixed.layout.protection_offset(slot);
    // The entries in the engine's memory too: the GPU agent writes them there directly.
    if (!journal && z.prot.size() < nunits * kChecksumEntrySize)
      z.prot = opt.engine->io_buffer_for(nunits * kChecksumEntrySize, *p0.old_key, p0.new_key.get());
    z.prot_size = journal ? z.len : nunits * kChecksumEntrySize;
    PieceDigest digest(journal ? z.len : 0);
    // The zone goes through the job pipeline in pieces: several readers and the engine's callers, so reading,
    // re-encrypting and hashing overlap.
    StreamOptions so;
    so.chunk_bytes = !journal && opt.engine->concurrency_for(*p0.old_key, p0.new_key.get()) > 1
                         ? kZonePieceMultiCaller
                         : kZonePiece;
    so.region = z.data.data();
    so.ordered = false;
    ChunkTransform t;
    // Checksum mode: the entries of each piece of new ciphertext are computed where the engine re-encrypts it
    // (reencrypt_range), with no pass of their own over the zone.
    t.fn = [&](uint64_t pos, uint8_t* buf, size_t len) {
      const auto t0 = StageTimes::Clock::now();
      reencrypt_range(off + pos, buf, len,
                      journal ? nullptr : z.prot.data() + pos / kDataUnitSize * kChecksumEntrySize);
      StageTimes::add(times.engine, t0);
    };
    t.slots = opt.engine->concurrency_for(*p0.old_key, p0.new_key.get());
    // Journal mode: the old ciphertext of the zone goes into the slot. One thread copies it there beside the
    // readers (once the slot is free), inside the kernel where the two files allow it (copy_range_from: page cache
    // to page cache, one copy), and the readers only add what they read to the digest, before the engine
    // overwrites it. Readers that each wrote their own piece would queue on the journal's inode lock and spin
    // there (docs/perf/measurements-2026-11-29-session23.md). Nothing writes the zone in the container before Z_k,
    // which waits for this copy (the future's end, below).
    const bool readers_copy = journal && journal_copy_by_readers();
    std::future<void> slot_copy;
    if (journal && !readers_copy)
      slot_copy = std::async(std::launch::async, [&] { copy_zone_to_slot(off, z.len, prot_at, wait_free); });
    auto source = [&](uint64_t pos, uint8_t* buf, size_t len) {
      auto t0 = StageTimes::Clock::now();
      rfile->read_at(j.range_offset + off + pos, buf, len);
      StageTimes::add(times.read, t0);
      if (journal) {  // the old ciphertext into the digest (and the slot), before the engine overwrites it in place
        if (readers_copy) wait_free();
        t0 = StageTimes::Clock::now();
        if (readers_copy) store->write_at(prot_at + pos, buf, len);
        digest.add(pos, buf, len);
        StageTimes::add(times.protect, t0);
      }
    };
    // Checksum mode: each piece's entries go into the slot and into the digest on the piece's worker, so
    // that the zone's protection is in the slot and digested when its last piece is (nothing left for one thread
    // alone after the stream). A worker never waits for the slot: entries made before it is free are written by
    // the first worker that finds it free, or after the stream.
    OrderedDigest entries_digest(z.prot.data(), journal ? 0 : z.prot_size);
    std::mutex unwritten_mu;
    std::vector<std::pair<uint64_t, size_t>> unwritten;  // entry ranges hashed before the slot was free
    auto slot_is_free = [&slot_free] {
      if (!slot_free.valid()) return true;
      const std::shared_future<void> own = slot_free;
      return own.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
    auto write_entries = [&](uint64_t at, size_t n) { store->write_at(prot_at + at, z.prot.data() + at, n); };
    auto sink = [&](uint64_t pos, const uint8_t* buf, size_t len) {
      if (journal) return;
      const auto t0 = StageTimes::Clock::now();
      (void)buf;  // its entries were computed as the engine finished it (t.fn)
      const uint64_t at = pos / kDataUnitSize * kChecksumEntrySize;
      const size_t n = len / kDataUnitSize * kChecksumEntrySize;
      entries_digest.add(at, n);
      std::vector<std::pair<uint64_t, size_t>> mine{{at, n}};
      if (slot_is_free()) {
        wait_free();  // rethrows when the commit that frees it failed
        std::lock_guard<std::mutex> lk(unwritten_mu);
        mine.insert(mine.end(), unwritten.begin(), unwritten.end());
        unwritten.clear();
      } else {
        std::lock_guard<std::mutex> lk(unwritten_mu);
        unwritten.push_back(mine[0]);
        mine.clear();
      }
      for (const auto& [a, m] : mine) write_entries(a, m);
      StageTimes::add(times.protect, t0);
    };
    stream_area(z.len, source, t, sink, so);
    if (journal) {
      if (slot_copy.valid()) slot_copy.get();  // rethrows the copy's error, or the failed commit's
      z.digest = digest.finish();
    } else {
      const auto t0 = StageTimes::Clock::now();
      if (!unwritten.empty()) wait_free();
      for (const auto& [a, m] : unwritten) write_entries(a, m);
      z.digest = entries_digest.finish();
      StageTimes::add(times.protect, t0);
    }
    sentinel_from(*rfile, off + z.len, z.sentinel);
  }

  // Repairs the committed hot zone of a resumed job (see RECOVERY in reencrypt.h).
  void recover_hot_zone() {
    const uint64_t a = j.state.hot_offset, len = j.state.hot_size;
    const size_t nunits = size_t(len / kDataUnitSize);
    std::vector<uint8_t> buf(static_cast<size_t>(len));
    if (j.resilience == Resilience::Journal) {
      std::memcpy(buf.data(), j.state.protection, buf.size());
      reencrypt_range(a, buf.data(), len);
      write_range(a, buf.data(), len);
      file->sync();
    } else {
      // Per unit: its hash matches the recorded one -> new ciphertext, keep. Otherwise re-encrypt it: if that
      // gives the recorded hash it held the old ciphertext (write the result), else it holds neither (torn).
      const uint8_t* prot = j.state.protection;
      file->read_at(j.range_offset + a, buf.data(), buf.size());
      std::vector<uint8_t> now(nunits * kUnitHashSize);
      hash_units(j.unit_hash, buf.data(), nunits, now.data(), usable_cores());
      std::vector<bool> is_old(nunits);
      for (size_t i = 0; i < nunits; ++i)
        is_old[i] = std::memcmp(now.data() + i * kUnitHashSize, prot + i * kUnitHashSize, kUnitHashSize) != 0;
      auto runs = [&](const std::function<void(size_t, size_t)>& fn) {  // maximal runs [i, k) of old units
        for (size_t i = 0; i < nunits;) {
          if (!is_old[i]) {
            ++i;
            continue;
          }
          size_t k = i;
          while (k < nunits && is_old[k]) ++k;
          fn(i, k);
          i = k;
        }
      };
      runs([&](size_t i, size_t k) {
        reencrypt_range(a + uint64_t(i) * kDataUnitSize, buf.data() + i * kDataUnitSize,
                        uint64_t(k - i) * kDataUnitSize);
      });
      hash_units(j.unit_hash, buf.data(), nunits, now.data(), usable_cores());
      size_t n_old = 0;
      for (size_t i = 0; i < nunits; ++i) {
        if (!is_old[i]) continue;
        ++n_old;
        if (std::memcmp(now.data() + i * kUnitHashSize, prot + i * kUnitHashSize, kUnitHashSize) != 0) {
          const uint64_t byte = j.range_offset + a + uint64_t(i) * kDataUnitSize;
          throw Error(ErrorKind::Format,
                      path + ": the 512 bytes at offset " + std::to_string(byte) +
                          " (in the interrupted hot zone) hold neither the old nor the new ciphertext: a write was torn "
                          "inside a 512-byte unit, which checksum resilience cannot repair (journal resilience can). "
                          "Nothing was changed; that unit's plaintext is lost, the rest can be recovered");
        }
      }
      if (n_old) {
        runs([&](size_t i, size_t k) {
          write_range(a + uint64_t(i) * kDataUnitSize, buf.data() + i * kDataUnitSize, uint64_t(k - i) * kDataUnitSize);
        });
        file->sync();
      }
    }
    bytes_this_run += len;
    secure_wipe(buf.data(), buf.size());
    // In memory only: the next commit (Z of the following zone, S, or F1) records it durably.
    j.state.progress = a + len;
    j.state.hot_offset = j.state.progress;
    j.state.hot_size = 0;
    j.state.protection = nullptr;
    j.state.protection_size = 0;
  }

  // WARPVOL_JOURNAL_COPY=readers: each reader writes its piece into the slot itself instead of the one copying
  // thread (a measurement knob, README).
  static bool journal_copy_by_readers() {
    static const bool r = [] {
      const char* e = std::getenv("WARPVOL_JOURNAL_COPY");
      return e && std::string_view(e) == "readers";
    }();
    return r;
  }

  // Zones prepared ahead of the one being committed and written: 1 (P_{k+1} beside Z_k and W_k), or 2 where the
  // engine takes several callers and protection is checksums (P_{k+1} and P_{k+2}): then the reads and the GPU's
  // round trips of two zones overlap the writes of one, which alone bound the job. Journal resilience keeps 1: its
  // zone's old ciphertext goes into the free slot, which a zone two ahead would wait for.
  unsigned zones_ahead() const {
    if (opt.zones_ahead) return std::min(opt.zones_ahead, 2u);
    if (const auto n = env_number("WARPVOL_ZONES_AHEAD", 1, 2)) return unsigned(*n);  // tuning runs (docs/perf)
    return gpu_pipeline() ? 2 : 1;
  }
  // Checksum resilience on an engine that takes several callers (the GPU's pipeline).
  bool gpu_pipeline() const {
    const Part& p0 = parts[0];
    return j.resilience == Resilience::Checksum && opt.engine->concurrency_for(*p0.old_key, p0.new_key.get()) > 1;
  }

  // The hot zone of a new job that names none. Each zone's buffer is in flight from its read to its write, through
  // the GPU's DMA both ways in between, and each zone costs a commit (fsyncs of the journal and the container).
  // Where the fsyncs cost nothing (a memory file system holds both files) and the GPU's pipeline keeps three zones
  // of each container in flight, 4 MiB zones keep those bytes in the CPU's last-level cache from the read to the
  // write, where 32 MiB zones send them through host memory again (a batch of containers is bound by that traffic:
  // docs/perf/design-figures.md, "Jobs"). Elsewhere 32 MiB zones spread a commit's fsyncs over more data.
  void choose_hotzone() {
    const bool memory = on_memory_file_system(path) && on_memory_file_system(journal_folder());
    if (memory && gpu_pipeline()) {
      j.hotzone = kMemoryHotzone;
      hotzone_why = "the container and its journal in memory, re-encrypted through the GPU's pipeline";
    } else {
      j.hotzone = kDefaultHotzone;
      hotzone_why = "default";
    }
  }

  void data_loop() {
    const uint64_t first = j.state.progress;
    if (first >= j.range_size) return;
    // Zone i (from 0 in this run) starts at first + i * hotzone (every zone but the last is a whole hot zone) and
    // is prepared in zones[i % depth]. P_i writes its protection into the slot that Z_i will commit: the slot the
    // newest committed state is in until Z_{i-1} returned, so P_i gets Z_{i-1}'s promise (`commit_of`).
    const unsigned depth = zones_ahead() + 1;
    const uint64_t nzones = (j.range_size - first + j.hotzone - 1) / j.hotzone;
    std::vector<Zone> zones(depth);
    std::vector<std::future<void>> prepared(depth);
    std::vector<std::optional<std::promise<void>>> commit_of(depth);
    struct Join {  // no prepare may outlive the zones, whatever happens; one waiting for a commit that will not
                   // come (an error, a stop at a safe point) is released with an error first
      std::vector<std::future<void>>& f;
      std::vector<std::optional<std::promise<void>>>& c;
      void release_and_wait() {
        for (auto& p : c) {
          if (p) p->set_exception(std::make_exception_ptr(Error(ErrorKind::Interrupted, "the job stopped")));
          p.reset();
        }
        for (auto& x : f)
          if (x.valid()) x.wait();
      }
      ~Join() { release_and_wait(); }
    } join{prepared, commit_of};
    const unsigned slot0 = 1 - active;  // the slot Z_0 commits; Z_i commits slot0 ^ (i & 1)
    auto launch = [&](uint64_t i) {
      std::shared_future<void> slot_free = commit_of[(i - 1) % depth].emplace().get_future().share();
      Zone* z = &zones[i % depth];
      const uint64_t off = first + i * j.hotzone;
      const unsigned slot = slot0 ^ unsigned(i & 1);
      prepared[i % depth] =
          std::async(std::launch::async, [this, z, off, slot, slot_free] { prepare_zone(*z, off, slot, slot_free); });
    };
    prepare_zone(zones[0], first, slot0);
    uint64_t launched = 0;  // zones whose P has started
    for (uint64_t i = 0; i < nzones; ++i) {
      Zone& z = zones[i % depth];
      const uint64_t off = first + i * j.hotzone;
      const uint64_t noff = off + z.len;
      JournalState s;
      s.phase = Phase::Data;
      s.progress = off;
      s.hot_offset = off;
      s.hot_size = z.len;
      s.has_sentinel = z.sentinel.has_sentinel;
      s.sentinel = z.sentinel.sentinel;
      s.protection_size = z.prot_size;
      // P_{i+1} .. P_{i+depth-1} overlap Z_i and W_i; each writes into its slot only once the commit before it
      // returned.
      while (launched < std::min<uint64_t>(nzones - 1, i + depth - 1)) launch(++launched);
      auto t = StageTimes::Clock::now();
      // Z_i: COMMIT POINT. Zone i-1 is durable (its fsync below, in the previous round) and zone i's protection is
      // in the free slot's region (P_i, joined below in the previous round): its record + fsync make it the state.
      auto& promise = commit_of[i % depth];
      try {
        commit(s, z.digest);
      } catch (...) {
        if (promise) promise->set_exception(std::current_exception());
        promise.reset();
        throw;
      }
      if (promise) promise->set_value();
      promise.reset();
      StageTimes::add(times.commit, t);
      t = StageTimes::Clock::now();
      write_range(off, z.data.data(), z.len);  // W_i
      StageTimes::add(times.write, t);
      t = StageTimes::Clock::now();
      file->sync();
      StageTimes::add(times.sync, t);
      bytes_this_run += z.len;
      j.state.progress = noff;
      report("reencrypt");
      if (noff < j.range_size && opt.cancel()) {
        join.release_and_wait();  // a zone two ahead waits for Z_{i+1}, which will not come
        JournalState safe;                     // S: SAFE POINT
        safe.phase = Phase::Data;
        safe.progress = noff;
        safe.hot_offset = noff;
        sentinel_at(noff, safe);
        commit(safe);
        throw Error(ErrorKind::Interrupted, "stopped at a safe point: " + path + " is half re-encrypted (" +
                                                std::to_string(noff) + " of " + std::to_string(j.range_size) +
                                                " bytes done); run the same command again to resume");
      }
      t = StageTimes::Clock::now();
      if (i + 1 < nzones) prepared[(i + 1) % depth].get();
      StageTimes::add(times.wait, t);
    }
    for (Zone& z : zones) {
      secure_wipe(z.prot.data(), z.prot.size());
    }
  }

  void finalize() {
    if (j.state.phase != Phase::Finalizing) {
      JournalState s;  // F1: SAFE POINT "all data new"
      s.phase = Phase::Finalizing;
      s.progress = j.range_size;
      s.hot_offset = j.range_size;
      commit(s);
    }
    report("finalize");
    for (const Part& p : parts)  // F2
      rewrite_header_pair(*file, p.rec.slot, p.rec.final_primary, p.rec.final_backup);
    store->remove();  // F3
    on_disk = false;
  }

  JobResult run() {
    t0 = std::chrono::steady_clock::now();
    JobResult r;
    r.resumed = resuming;
    if (!on_disk) {  // J0: COMMIT POINT "job recorded"
      JournalState s = j.state;
      s.seq = j.state.seq + 1;
      create_journal(s);
    } else if (loaded_version != kSlotJournalVersion) {
      create_journal(j.state);  // the same state, as format version 3 (atomic: the old journal or the new one)
    }
    if (j.state.phase != Phase::Finalizing) {
      report(resuming ? "recover" : "reencrypt");
      mark_headers();  // M (again, when resuming: idempotent)
      if (j.state.hot_size) recover_hot_zone();
      data_loop();
    }
    finalize();
    report("done", true);
    r.bytes = bytes_this_run;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (opt.summary) {
      char b[600];
      std::snprintf(b, sizeof b,
                    "%s: %.3f s, hot zones of %s (%s); thread-seconds preparing zones (beside the writes): read "
                    "%.3f, engine %.3f, %s %.3f; seconds: journal commits %.3f, writes %.3f, fsync %.3f, waiting for "
                    "the next zone %.3f",
                    path.c_str(), r.seconds, size_text(j.hotzone).c_str(), hotzone_why.c_str(), times.read / 1e6,
                    times.engine / 1e6,
                    j.resilience == Resilience::Journal ? "journal copy" : "checksums into the journal (hashed "
                                                                           "in the engine's pass)",
                    times.protect / 1e6,
                    times.commit / 1e6, times.write / 1e6, times.sync / 1e6, times.wait / 1e6);
      opt.summary(b);
    }
    return r;
  }
};

Job::Job(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Job::Job(std::unique_ptr<Migration> m) : mig_(std::move(m)) {}
Job::~Job() = default;

std::unique_ptr<Job> Job::prepare(const VolumeRequest& req, const JobOptions& opt) {
  if (!opt.engine) throw Error(ErrorKind::Usage, "no engine");
  if (opt.hotzone && (opt.hotzone < kMinHotzone || opt.hotzone > kMaxHotzone || opt.hotzone % kDataUnitSize))
    throw Error(ErrorKind::Usage, "the hot-zone size must be a multiple of 512 between 64 KiB and 1 GiB");
  auto impl = std::make_unique<Impl>();
  impl->path = req.path;
  impl->opt = opt;
  impl->journal_path = journal_path_for(req.path, opt.journal_dir);
  impl->store = file_journal_store(impl->journal_path, opt.wrap_journal);
  impl->open_and_lock();
  auto loaded = impl->store->load();
  auto handoff = [&impl] {
    OpenContainer c{std::move(impl->file), impl->lock_fd};
    impl->lock_fd = -1;
    return c;
  };
  if (loaded && is_migration_journal(*loaded))
    return std::unique_ptr<Job>(new Job(Migration::resume(req, opt, std::move(*loaded), handoff(), impl->journal_path)));
  if (loaded) {
    impl->loaded = std::move(*loaded);
    impl->prepare_resume(req);
  } else {
    if (opt.policy == StartPolicy::ResumeOnly)
      throw Error(ErrorKind::Usage, req.path + ": no interrupted re-encryption to resume (no journal " +
                                        impl->journal_path + ")");
    impl->prepare_new(req);
    if (impl->legacy)
      return std::unique_ptr<Job>(new Job(Migration::start(req, opt, *impl->legacy, handoff(), impl->journal_path)));
  }
  return std::unique_ptr<Job>(new Job(std::move(impl)));
}

const std::string& Job::path() const { return mig_ ? mig_->path() : impl_->path; }
const std::string& Job::journal_path() const { return mig_ ? mig_->journal_path() : impl_->journal_path; }
bool Job::resuming() const { return mig_ ? mig_->resuming() : impl_->resuming; }
uint64_t Job::total_bytes() const { return mig_ ? mig_->total_bytes() : impl_->j.range_size; }
uint64_t Job::done_bytes() const {
  if (mig_) return mig_->done_bytes();
  return impl_->j.state.phase == Phase::Finalizing ? impl_->j.range_size : impl_->j.state.progress;
}
// A migration moves its data in segments no larger than the shift (migrate.h), the source of each intact until
// it is moved: checksum resilience's guarantee without the checksums.
Resilience Job::resilience() const { return mig_ ? Resilience::Checksum : impl_->j.resilience; }
uint64_t Job::hotzone() const { return mig_ ? mig_->segment_bytes() : impl_->j.hotzone; }
bool Job::header_keys_derived_with_open() const { return !mig_ && impl_->keys_with_open; }

std::string Job::describe() const {
  if (mig_) return mig_->describe();
  std::string s;
  for (size_t i = 0; i < impl_->parts.size(); ++i) {
    const PartRecord& r = impl_->parts[i].rec;
    if (i) s += "; ";
    s += std::string(r.slot == SlotKind::Hidden ? "hidden" : impl_->parts.size() == 2 ? "outer" : "normal") +
         " volume " + size_text(r.data_size) + ": " + std::string(chain_info(r.old_chain).name) + " -> " +
         std::string(chain_info(r.new_chain).name) + ", " + prf_name(r.old_prf) + " -> " + prf_name(r.new_prf) +
         (r.old_format == VolumeFormat::TrueCrypt ? " (TrueCrypt -> VeraCrypt format)" : "");
  }
  return s + ", new master keys";
}

JobResult Job::run() { return mig_ ? mig_->run() : impl_->run(); }

}  // namespace warpvol::reenc
