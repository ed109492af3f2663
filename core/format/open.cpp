// Auto-detection (docs/format-spec.md §7): header locations x formats x PRFs x chains.
//
// Work is split into PBKDF2 *blocks*: a candidate (location, format, PRF) needs 64 bytes of key material for the
// single ciphers, 128 for two-cipher cascades and 192 for three. Blocks are queued in stages (every candidate's
// first 64 bytes before anybody's next 64), cheap TrueCrypt candidates first, and run on all cores; as soon as a
// candidate's bytes for a stage are complete, the chains of that key size are tried on the header. The first match
// cancels everything else (but the blocks a caller asked to derive along, OpenOptions::along: those fill the passes
// of the candidates sharing their KDF). So a right password on a SHA-512/AES volume costs one PBKDF2 block on one core.
#include "core/format/open.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "core/format/system_layout.h"
#include "core/format/layout_check.h"
#include "core/kdf/kdf_stop.h"
#include "core/kdf/keyfiles.h"
#include "core/reencrypt/marker.h"
#include "core/util/bytes.h"
#include "core/util/cores.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

constexpr uint16_t kMaxSupportedRequiredVersion = 0x0126;  // VeraCrypt 1.26

struct Candidate {
  HeaderLocation loc;
  VolumeFormat format;
  KdfChoice kdf;
  std::vector<ChainId> chains;   // to try, in VeraCrypt's order
  std::vector<LegacySuite> legacy;  // TrueCrypt < 5.0 modes to try after the XTS chains of the same key size
  size_t need_bytes = 0;         // max 2K over chains
  size_t digest = 0;             // PBKDF2 block size (0 = Argon2)
  const LockedBytes* password = nullptr;
  std::array<uint8_t, kSaltSize> salt{};
  std::array<uint8_t, kHeaderSize> encrypted{};
  // Progress of the derivation.
  std::mutex mu;
  SecureBytes key{kHeaderKeyMaterial + 64};  // room for whole blocks past 192 bytes
  std::vector<bool> block_done;
  size_t stages_tested = 0;  // key sizes 64, 128, 192 tried so far (0..3)
};

struct Task {
  Task(Candidate* c, uint32_t b, int s, int o, uint32_t n = 1) : cand(c), block(b), stage(s), order(o), count(n) {}
  Candidate* cand;
  uint32_t block;  // 1-based PBKDF2 block; 0 = the whole Argon2 derivation
  int stage;       // 1..3 (4: the caller's blocks, OpenOptions::along, after the candidates')
  int order;       // tie-break
  uint32_t count = 1;  // blocks block..block+count-1 together (a PRF with SIMD lanes)
  // Set where the caller's blocks go along (cand is then one of the candidates sharing their KDF, for the order and
  // for telling primaries from backups): these blocks instead of cand's block..block+count-1, in one call.
  std::vector<std::pair<Candidate*, uint32_t>> packed;  // candidates' blocks
  std::vector<size_t> along;                            // indexes into OpenOptions::along->blocks
  bool is_packed() const { return !packed.empty() || !along.empty(); }
};

// Rough seconds of a task on one core (from 500,000-iteration blocks timed with `warpvol benchmark --kdf-only`;
// docs/perf/design-figures.md, "Opening a volume"), only to order tasks.
double task_seconds(const Task& t) {
  double per_block = 0.3;
  switch (t.cand->kdf.prf) {
    case PrfId::Streebog: per_block = 2.0; break;
    case PrfId::Whirlpool: per_block = 0.65; break;
    case PrfId::Sha512: per_block = 0.2; break;
    case PrfId::Blake2s: per_block = t.count > 1 ? 0.23 / t.count : 0.17; break;
    case PrfId::Sha256: per_block = 0.056; break;
    case PrfId::Argon2id: return 4.0;
    default: break;
  }
  return per_block * t.count * t.cand->kdf.iterations / 500000.0;
}

// The stage of a candidate's PBKDF2 block: the key size (64, 128, 192 bytes) it first serves, 1..3.
int stage_of(const Candidate& c, uint32_t block) { return int((block - 1) * c.digest / 64) + 1; }
// PBKDF2 blocks a candidate needs for the largest key it tries.
uint32_t blocks_needed(const Candidate& c) { return uint32_t((c.need_bytes + c.digest - 1) / c.digest); }

struct Found {
  Candidate* cand = nullptr;
  ChainId chain{};
  std::optional<LegacySuite> legacy;
  std::array<uint8_t, kHeaderSize> plain{};
  HeaderCheck check = HeaderCheck::Ok;
};

bool narrowed(const OpenOptions& opt) { return opt.chain || opt.legacy_ea; }

bool chain_allowed(const ChainInfo& c, VolumeFormat f, const OpenOptions& opt) {
  if (narrowed(opt) && opt.chain != c.id) return false;
  if (f == VolumeFormat::TrueCrypt && !c.in_truecrypt) return false;
  return true;
}

// TrueCrypt before 5.0 kept its (only) header at 0 or, hidden, 1536 bytes before the end: the legacy modes are
// tried there only, with TrueCrypt's magic, never for system encryption (its pre-boot loader came with XTS).
bool legacy_allowed(const LegacySuite& s, VolumeFormat f, const HeaderLocation& loc, const OpenOptions& opt) {
  if (f != VolumeFormat::TrueCrypt || opt.system || loc.backup) return false;
  if (!(loc.kind == SlotKind::Normal && loc.offset == 0) && loc.kind != SlotKind::LegacyHidden) return false;
  if (narrowed(opt) && opt.legacy_ea != s.ea) return false;
  return true;
}

std::vector<PrfId> prfs_for(VolumeFormat f, const OpenOptions& opt) {
  std::vector<PrfId> out;
  if (f == VolumeFormat::TrueCrypt) {
    for (PrfId p : {PrfId::Ripemd160, PrfId::Sha512, PrfId::Whirlpool, PrfId::Sha1}) out.push_back(p);
  } else {
    for (PrfId p : {PrfId::Sha512, PrfId::Sha256, PrfId::Blake2s, PrfId::Whirlpool, PrfId::Streebog}) out.push_back(p);
    // RIPEMD-160 (VeraCrypt <= 1.25.9) and Argon2id (Windows VeraCrypt >= 1.26.27) are tried only when named with
    // --hash: VeraCrypt 1.26 on Linux tries neither, and together they would add seconds of CPU time per header
    // slot to every wrong-password attempt (docs/perf/design-figures.md, "Opening a volume").
    if (opt.prf == PrfId::Ripemd160 || opt.prf == PrfId::Argon2id) out.push_back(*opt.prf);
  }
  if (opt.prf) out.erase(std::remove_if(out.begin(), out.end(), [&](PrfId p) { return p != *opt.prf; }), out.end());
  if (opt.system) out.erase(std::remove(out.begin(), out.end(), PrfId::Argon2id), out.end());
  return out;
}

class Search {
 public:
  Search(BlockFile& file, const OpenOptions& opt) : file_(file), opt_(opt) {
    if (opt.credentials.password.empty() && opt.credentials.keyfiles.empty())
      throw Error(ErrorKind::Usage, "a password or a keyfile is required");
    vc_password_ = apply_keyfiles(opt.credentials.password, opt.credentials.keyfiles, false);
    if (opt.credentials.password.size() <= 64)
      tc_password_ = apply_keyfiles(opt.credentials.password, opt.credentials.keyfiles, true);
  }

  // Returns true and fills `found` on success.
  bool run(const std::vector<HeaderLocation>& locs, Found& found) {
    std::vector<std::unique_ptr<Candidate>> cands;
    for (const auto& loc : locs) {
      std::array<uint8_t, kHeaderSize> enc{};
      if (loc.offset + kHeaderSize > file_.size()) continue;
      file_.read_at(loc.offset, enc.data(), kHeaderSize);
      for (VolumeFormat f : {VolumeFormat::TrueCrypt, VolumeFormat::VeraCrypt}) {
        if (opt_.format && *opt_.format != f) continue;
        if (f == VolumeFormat::TrueCrypt && tc_password_.empty()) continue;
        if (f == VolumeFormat::VeraCrypt && (loc.kind == SlotKind::LegacyHidden)) continue;
        for (PrfId prf : prfs_for(f, opt_)) {
          auto c = std::make_unique<Candidate>();
          c->loc = loc;
          c->format = f;
          c->kdf.prf = prf;
          if (prf == PrfId::Argon2id) {
            c->kdf.argon2 = argon2_params(opt_.credentials.pim);
          } else {
            c->kdf.iterations = pbkdf2_iterations(prf, f, opt_.credentials.pim, opt_.system);
            if (c->kdf.iterations == 0) continue;
            // The test seam swaps the count only: the same candidates are tried as without it.
            if (opt_.test_only_pbkdf2_iterations) c->kdf.iterations = opt_.test_only_pbkdf2_iterations;
            c->digest = prf_info(prf).digest_size;
          }
          for (const auto& ch : all_chains())
            if (chain_allowed(ch, f, opt_)) {
              c->chains.push_back(ch.id);
              c->need_bytes = std::max(c->need_bytes, 2 * ch.key_size());
            }
          for (const auto& s : all_legacy_suites())
            if (legacy_allowed(s, f, loc, opt_)) {
              c->legacy.push_back(s);
              c->need_bytes = std::max(c->need_bytes, s.key_bytes());
            }
          if (c->chains.empty() && c->legacy.empty()) continue;
          c->password = f == VolumeFormat::TrueCrypt ? &tc_password_ : &vc_password_;
          std::memcpy(c->salt.data(), enc.data(), kSaltSize);
          c->encrypted = enc;
          cands.push_back(std::move(c));
        }
      }
    }
    if (cands.empty()) return false;
    const unsigned cores = opt_.kdf_threads ? opt_.kdf_threads : usable_cores();

    // The caller's blocks go with the primary VeraCrypt candidates of the same KDF and password.
    AlongBlocks* along = opt_.along && !opt_.along->blocks.empty() ? opt_.along : nullptr;
    std::vector<Candidate*> with_along;
    if (along) {
      for (auto& c : cands)
        if (c->format == VolumeFormat::VeraCrypt && !c->loc.backup && c->digest && c->kdf.prf == along->prf &&
            c->kdf.iterations == along->iterations && c->password->view() == along->password->view())
          with_along.push_back(c.get());
      if (with_along.empty()) along = nullptr;
    }

    std::vector<Task> tasks;
    int order = 0;
    if (along) {
      // Where the lanes end sooner than a block per thread (pbkdf2_many's rule over all the blocks), every block of
      // these candidates and the caller's share passes of the lanes, a part per thread; else the candidates' blocks
      // keep their stages and the caller's follow them, one per task.
      Candidate* first = with_along.front();
      std::vector<std::pair<Candidate*, uint32_t>> own;
      for (Candidate* c : with_along) {
        const uint32_t blocks = blocks_needed(*c);
        c->block_done.assign(blocks + 1, false);
        for (uint32_t b = 1; b <= blocks; ++b) own.push_back({c, b});
      }
      const size_t n = own.size() + along->blocks.size();
      const size_t parts = pbkdf2_lane_parts(along->prf, n, cores);
      for (size_t p = 0; p < parts; ++p) {
        Task t{first, 1, 1, order++};
        for (size_t k = n * p / parts; k < n * (p + 1) / parts; ++k)
          if (k < own.size())
            t.packed.push_back(own[k]);
          else
            t.along.push_back(k - own.size());
        t.count = uint32_t(t.packed.size() + t.along.size());
        tasks.push_back(std::move(t));
      }
      if (parts == 0) {
        for (auto [c, b] : own) tasks.push_back({c, b, stage_of(*c, b), order++});
        for (size_t k = 0; k < along->blocks.size(); ++k) {
          Task t{first, 1, 4, order++};
          t.along.push_back(k);
          tasks.push_back(std::move(t));
        }
      }
    }
    for (auto& c : cands) {
      if (std::find(with_along.begin(), with_along.end(), c.get()) != with_along.end()) continue;  // packed above
      const bool tc = c->format == VolumeFormat::TrueCrypt;
      if (c->digest == 0) {  // Argon2id: one task, after all PBKDF2 work (it is rare and memory-hungry)
        tasks.push_back({c.get(), 0, 4, order++});
        continue;
      }
      const uint32_t blocks = blocks_needed(*c);
      c->block_done.assign(blocks + 1, false);
      // A PRF computed in SIMD lanes whose first 64 bytes take several blocks (BLAKE2s with AVX2: 8 blocks for the
      // price of ~2) derives all its blocks in one task in the first stage: the 192 bytes cost about what the first
      // 64 would alone. SHA-512's first block alone is an AES key (the common volume): its blocks stay tasks of
      // their own, so that key is ready after one block's time, not after a pass of the lanes.
      if (const uint32_t width = uint32_t(pbkdf2_lane_width(c->kdf.prf)); width > 1 && !tc && c->digest < 64) {
        for (uint32_t b = 1; b <= blocks; b += width)
          tasks.push_back({c.get(), b, 1, order++, std::min(width, blocks - b + 1)});
        continue;
      }
      for (uint32_t b = 1; b <= blocks; ++b)
        tasks.push_back({c.get(), b, tc ? 0 : stage_of(*c, b), order++});  // TrueCrypt's 1000-2000 iterations first
    }
    // Backup headers after every primary task: they only start in the primary work's tail, where a core would
    // otherwise wait for the last long block, and a backup match is taken only once no primary header can match.
    // The backups' tasks go longest first, so the search ends on short blocks with every core busy until then
    // (a fallback open through the backup header waits behind the Streebog blocks, on a damaged volume).
    std::stable_sort(tasks.begin(), tasks.end(), [](const Task& a, const Task& b) {
      if (a.cand->loc.backup != b.cand->loc.backup) return b.cand->loc.backup;
      if (a.cand->loc.backup) return task_seconds(a) > task_seconds(b);
      return a.stage < b.stage;
    });
    std::atomic<size_t> primary_left{size_t(
        std::count_if(tasks.begin(), tasks.end(), [](const Task& t) { return !t.cand->loc.backup; }))};

    std::atomic<size_t> next{0};
    std::atomic<bool> done{false};
    std::atomic<size_t> along_left{along ? along->blocks.size() : 0};
    std::mutex found_mu;
    bool have = false;
    Found backup_match;  // a backup header that decrypted, waiting for the primary tasks to finish
    bool have_backup = false;
    std::exception_ptr error;
    // The caller's blocks are needed only where the volume opens through a candidate they went with (same format,
    // PRF, count and password); another match (a TrueCrypt header, a backup) gives them up as the rest.
    std::atomic<bool> along_moot{false};
    auto accept = [&](const Found& f) {  // under found_mu
      if (!have) {
        have = true;
        found = f;
        if (std::find(with_along.begin(), with_along.end(), f.cand) == with_along.end()) along_moot = true;
      }
      done = true;
    };

    auto worker = [&] {
      try {
        for (;;) {
          const size_t i = next.fetch_add(1);
          if (i >= tasks.size() || kdf_stop_requested()) return;
          Task& t = tasks[i];
          // After a match only the caller's blocks are left to derive: it needs them whatever the search found.
          if (done.load() && (t.along.empty() || along_moot.load())) continue;
          Candidate& c = *t.cand;
          std::vector<Candidate*> derived{&c};
          // A derivation given up (another task matched) leaves this worker for the caller's blocks still queued.
          if (t.is_packed()) {
            derived = derive_packed(t, *along, t.along.empty() ? done : along_moot);
            if (derived.empty()) continue;
            if (!t.along.empty()) along_left -= t.along.size();
          } else if (t.block == 0) {
            // Argon2 output is not prefix-stable: always the full 192 bytes (derive_header_key does the same).
            if (!argon2id_cancellable(c.password->data(), c.password->size(), c.salt.data(), kSaltSize, c.kdf.argon2,
                                      c.key.data(), kHeaderKeyMaterial, &done))
              continue;
          } else {
            SecureBytes out(c.digest * t.count);
            std::vector<Pbkdf2Block> blocks;
            for (uint32_t k = 0; k < t.count; ++k)
              blocks.push_back({c.salt.data(), kSaltSize, t.block + k, out.data() + k * c.digest});
            if (!pbkdf2_blocks_cancellable(c.kdf.prf, c.password->data(), c.password->size(), blocks.data(),
                                           blocks.size(), c.kdf.iterations, &done))
              continue;
            std::lock_guard<std::mutex> lk(c.mu);
            std::memcpy(c.key.data() + (t.block - 1) * c.digest, out.data(), c.digest * t.count);
            for (uint32_t k = 0; k < t.count; ++k) c.block_done[t.block + k] = true;
          }
          Found f;
          bool matched = false;
          for (Candidate* d : derived)
            if (!matched) matched = try_ready_chains(*d, t.block == 0 && !t.is_packed(), f);
          std::lock_guard<std::mutex> lk(found_mu);
          if (!c.loc.backup) {
            if (matched)
              accept(f);
            else if (primary_left.fetch_sub(1) == 1 && have_backup)
              accept(backup_match);
          } else if (matched) {
            if (!have_backup) {
              backup_match = f;
              have_backup = true;
            }
            if (primary_left.load() == 0) accept(backup_match);
          }
        }
      } catch (...) {
        std::lock_guard<std::mutex> lk(found_mu);
        if (!error) error = std::current_exception();
        done = true;
      }
    };
    const unsigned n = std::max(1u, std::min<unsigned>(cores, unsigned(tasks.size())));
    candidates_ = cands.size();
    threads_ = n;
    std::vector<std::thread> threads;
    for (unsigned k = 1; k < n; ++k) threads.emplace_back(worker);
    worker();
    for (auto& th : threads) th.join();
    if (along) along->derived = along_left.load() == 0;
    // SIGINT/SIGTERM or the GUI's Cancel (kdf_stop.h) abandoned the derivations: no answer either way.
    if (!have && kdf_stop_requested()) throw Error(ErrorKind::Interrupted, "interrupted");
    if (!have && have_backup && !error) {
      have = true;
      found = backup_match;
    }
    if (have) {
      // Keep the winner alive beyond this function: copy what is needed.
      winner_ = std::move(*std::find_if(cands.begin(), cands.end(), [&](auto& p) { return p.get() == found.cand; }));
      found.cand = winner_.get();
      return true;
    }
    if (error) std::rethrow_exception(error);
    return false;
  }

  // "N candidate headers (locations x formats x PRFs), key derivation on T threads" of the last run().
  std::string tried() const {
    return std::to_string(candidates_) + " candidate header" + (candidates_ == 1 ? "" : "s") +
           " (locations x formats x PRFs), key derivation on " + std::to_string(threads_) + " thread" +
           (threads_ == 1 ? "" : "s");
  }

 private:
  // Derives a packed task's blocks in one call (the lanes) and records the candidates' ones; `cancel` (or the
  // process-wide stop) gives it up: the search's end for a task of candidates' blocks alone, the caller's blocks
  // turning moot for one that carries them. Returns the candidates whose blocks came (none: given up).
  std::vector<Candidate*> derive_packed(const Task& t, AlongBlocks& along, const std::atomic<bool>& cancel) {
    const size_t d = t.cand->digest;
    SecureBytes out(d * t.packed.size());
    std::vector<Pbkdf2Block> blocks;
    for (size_t k = 0; k < t.packed.size(); ++k)
      blocks.push_back({t.packed[k].first->salt.data(), kSaltSize, t.packed[k].second, out.data() + k * d});
    for (size_t a : t.along) blocks.push_back(along.blocks[a]);
    const LockedBytes& pw = *along.password;
    if (!pbkdf2_blocks_cancellable(along.prf, pw.data(), pw.size(), blocks.data(), blocks.size(), along.iterations,
                                   &cancel))
      return {};
    std::vector<Candidate*> got;
    for (size_t k = 0; k < t.packed.size(); ++k) {
      auto [c, b] = t.packed[k];
      std::lock_guard<std::mutex> lk(c->mu);
      std::memcpy(c->key.data() + (b - 1) * d, out.data() + k * d, d);
      c->block_done[b] = true;
      if (std::find(got.begin(), got.end(), c) == got.end()) got.push_back(c);
    }
    if (got.empty()) got.push_back(t.cand);  // the caller's blocks only: nothing new to try
    return got;
  }

  // Tries every chain whose key material is now complete. Called after each finished block.
  bool try_ready_chains(Candidate& c, bool all, Found& f) {
    std::lock_guard<std::mutex> lk(c.mu);
    size_t avail = 0;
    if (all) {
      avail = kHeaderKeyMaterial;
    } else {
      size_t b = 1;
      while (b < c.block_done.size() && c.block_done[b]) ++b;
      avail = (b - 1) * c.digest;
    }
    const uint32_t magic = c.format == VolumeFormat::TrueCrypt ? kMagicTrue : kMagicVera;
    // A stage is ready when its 64-byte step is derived, or all the candidate needs (a legacy key of 88 bytes
    // needs no third 64-byte step).
    while (c.stages_tested < 3 && avail >= std::min<size_t>(64 * (c.stages_tested + 1), c.need_bytes)) {
      const size_t key_bytes = 64 * (++c.stages_tested);
      for (ChainId id : c.chains) {
        if (2 * chain_info(id).key_size() != key_bytes) continue;
        std::array<uint8_t, kHeaderSize> h = c.encrypted;
        decrypt_header(id, c.key.data(), h.data());
        HeaderCheck r = check_header(h.data(), magic);
        if (r == HeaderCheck::BadMagic || r == HeaderCheck::BadCrc) continue;
        f.cand = &c;
        f.chain = id;
        f.plain = h;
        f.check = r;
        return true;
      }
      // The modes of TrueCrypt before 5.0, after the XTS chains: a trial costs microseconds next to the
      // derivation they share, so they add nothing measurable to the search.
      for (const LegacySuite& s : c.legacy) {
        if (s.key_bytes() > key_bytes || s.key_bytes() + 64 <= key_bytes) continue;
        std::array<uint8_t, kHeaderSize> h = c.encrypted;
        LegacyCrypt(s, c.key.data(), 0).header(Direction::Decrypt, h.data() + 64);
        HeaderCheck r = check_header(h.data(), magic);
        if (r == HeaderCheck::BadMagic || r == HeaderCheck::BadCrc) continue;
        f.cand = &c;
        f.legacy = s;
        f.plain = h;
        f.check = r;
        return true;
      }
    }
    return false;
  }

  BlockFile& file_;
  const OpenOptions& opt_;
  LockedBytes vc_password_, tc_password_;
  std::unique_ptr<Candidate> winner_;
  size_t candidates_ = 0;  // what the last run() tried, for --verbose
  unsigned threads_ = 0;
};

OpenedHeader finish(BlockFile& file, const OpenOptions& opt, const Found& f) {
  if (f.check == HeaderCheck::NewerVersion)
    throw Error(ErrorKind::Format, "the volume header needs a newer program version (header version > 5)");
  if (f.check == HeaderCheck::BadSectorSize)
    throw Error(ErrorKind::Format, "the volume header has an invalid sector size");
  const Candidate& c = *f.cand;
  OpenedHeader o;
  o.fields = parse_header(f.plain.data());
  o.chain = f.chain;
  o.legacy = f.legacy;
  o.kdf = c.kdf;
  o.format = c.format;
  o.slot = c.loc.kind;
  o.from_backup = c.loc.backup;
  o.header_offset = c.loc.offset;
  o.salt = c.salt;
  const HeaderFields& h = o.fields;
  const uint64_t H = file.size();

  // A container in the middle of `warpvol reencrypt` (core/reencrypt/marker.h): data half old, half new.
  if (h.required_version == kReencryptMarkerVersion)
    throw Error(ErrorKind::Format, file.path() + " " + kHalfReencryptedPhrase +
                                       ": run 'warpvol reencrypt --resume' on it with its old and new credentials "
                                       "(the journal " + file.path() + kReencryptJournalSuffix + " must be present)");
  if (c.format == VolumeFormat::VeraCrypt && h.required_version > kMaxSupportedRequiredVersion)
    throw Error(ErrorKind::Format, "the volume needs a newer program (required program version 0x" +
                                       to_hex(std::vector<uint8_t>{uint8_t(h.required_version >> 8),
                                                                   uint8_t(h.required_version)}) + ")");
  const bool legacy = c.format == VolumeFormat::TrueCrypt ? h.required_version < 0x0600 : h.required_version < 0x010b;
  if (o.slot == SlotKind::Normal && legacy && !opt.system) o.slot = SlotKind::LegacyNormal;

  switch (o.slot) {
    case SlotKind::Normal:
    case SlotKind::Hidden:
      o.data_offset = h.encrypted_area_start;
      o.data_size = o.slot == SlotKind::Hidden ? h.hidden_volume_size : h.volume_size;
      break;
    case SlotKind::LegacyNormal:
      o.data_offset = 512;
      o.data_size = H - 512;
      break;
    case SlotKind::LegacyHidden:
      o.data_size = h.hidden_volume_size;
      if (o.data_size + 1536 > H) throw Error(ErrorKind::Format, "hidden volume size exceeds the container");
      o.data_offset = H - o.data_size - 1536;
      break;
    case SlotKind::System:
      apply_system_layout(o, file, opt);
      break;
  }
  if (o.slot != SlotKind::System) o.first_unit = o.data_offset / 512;
  if ((h.flags & kFlagInPlace) && h.encrypted_area_length != h.volume_size)
    throw Error(ErrorKind::Format, "in-place encryption of this volume is not finished (" +
                                       std::to_string(h.encrypted_area_length) + " of " +
                                       std::to_string(h.volume_size) + " bytes encrypted)");
  check_layout(o, H);
  if (o.legacy) {
    if (o.slot != SlotKind::LegacyNormal && o.slot != SlotKind::LegacyHidden)
      throw Error(ErrorKind::Format, "a TrueCrypt " + o.legacy->name() + " header with a V2 layout (required program "
                                     "version 0x0600 or later) does not exist");
    if (opt.notice)
      opt.notice("this is a TrueCrypt volume from before version 5.0 (" + o.legacy->name() +
                 "): it opens read-only; 'warpvol reencrypt VOLUME --new-encryption aes --no-hidden-volume' migrates "
                 "it into a VeraCrypt volume in place");
    return o;
  }
  const size_t K = chain_info(o.chain).key_size();
  o.master_key_vulnerable = std::memcmp(h.key_area.data(), h.key_area.data() + K, K) == 0;
  if (o.master_key_vulnerable && opt.notice)
    opt.notice("warning: this volume's primary and secondary master keys are equal (XTS master key vulnerable)");
  return o;
}

}  // namespace

void require_xts_volume(const OpenedHeader& h, const std::string& what) {
  if (!h.legacy) return;
  throw Error(ErrorKind::Format, what + " works on XTS volumes only; this is a TrueCrypt volume from before 5.0 (" +
                                     h.legacy->name() + "): migrate it into a VeraCrypt volume first "
                                     "('warpvol reencrypt --new-encryption aes' in place, or 'warpvol export' + "
                                     "'warpvol import')");
}

std::unique_ptr<BlockFile> open_volume_file(const std::string& path) {
  if (path.empty()) throw Error(ErrorKind::Usage, "empty volume path");
  auto file = open_file(path, OpenMode::ReadOnly);
  if (file->size() < kHeaderSize)
    throw Error(ErrorKind::Auth, path + ": not a TrueCrypt/VeraCrypt volume (" + std::to_string(file->size()) +
                                     " bytes, smaller than one " + std::to_string(kHeaderSize) + "-byte header)");
  return file;
}

std::string_view slot_kind_name(SlotKind k) {
  switch (k) {
    case SlotKind::Normal: return "normal";
    case SlotKind::Hidden: return "hidden";
    case SlotKind::System: return "system";
    case SlotKind::LegacyNormal: return "normal (legacy V1 layout)";
    case SlotKind::LegacyHidden: return "hidden (legacy V1 layout)";
  }
  return "?";
}

std::vector<HeaderLocation> header_locations(uint64_t H, const OpenOptions& opt, bool backups) {
  std::vector<HeaderLocation> out;
  if (opt.system) {
    if (!backups) out.push_back({SlotKind::System, kSystemHeaderOffset, false});
    return out;
  }
  const bool want_normal = !opt.slot || *opt.slot == SlotKind::Normal;
  const bool want_hidden = !opt.slot || *opt.slot == SlotKind::Hidden;
  if (!backups) {
    if (want_normal) out.push_back({SlotKind::Normal, 0, false});
    if (want_hidden && H > kHeaderGroupSize) out.push_back({SlotKind::Hidden, kHeaderSlotSize, false});
    // TrueCrypt 5.x and older kept the hidden header 1536 bytes before the end.
    if (want_hidden && H >= 1536 + kHeaderSize && (!opt.format || *opt.format == VolumeFormat::TrueCrypt))
      out.push_back({SlotKind::LegacyHidden, H - 1536, false});
  } else if (H >= 2 * kHeaderGroupSize) {
    if (want_normal) out.push_back({SlotKind::Normal, H - kHeaderGroupSize, true});
    // The hidden volume's backup is searched only when asked for (--hidden or --backup-header): as an automatic
    // fallback it would add a whole slot's derivations to every wrong-password attempt.
    if (want_hidden && (opt.slot == SlotKind::Hidden || opt.backup_only))
      out.push_back({SlotKind::Hidden, H - kHeaderSlotSize, true});
  }
  return out;
}

OpenedHeader open_decrypted_header(BlockFile& file, const OpenOptions& opt, const DecryptedHeader& d) {
  Found f;
  f.check = check_header(d.plain, d.format == VolumeFormat::TrueCrypt ? kMagicTrue : kMagicVera);
  if (f.check == HeaderCheck::BadMagic || f.check == HeaderCheck::BadCrc)
    throw Error(ErrorKind::Auth, "the header does not decrypt (bad magic or CRC)");
  // The same candidate record the search hands to finish(), filled from what the caller decrypted.
  Candidate c;
  c.loc = d.loc;
  c.format = d.format;
  c.kdf = d.kdf;
  std::memcpy(c.salt.data(), d.plain, kSaltSize);
  f.cand = &c;
  f.chain = d.chain;
  std::memcpy(f.plain.data(), d.plain, kHeaderSize);
  return finish(file, opt, f);
}

namespace {
// The --verbose line of an opened header.
void report_opened(const OpenOptions& opt, const OpenedHeader& o, const Search& search,
                   std::chrono::steady_clock::time_point t0) {
  if (!opt.verbose) return;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  char took[32];
  std::snprintf(took, sizeof took, "%.1f ms", ms);
  const std::string cipher = o.legacy ? o.legacy->name() : std::string(chain_info(o.chain).name);
  opt.verbose(std::string("header: ") + (o.format == VolumeFormat::TrueCrypt ? "TrueCrypt" : "VeraCrypt") + " " +
              std::string(slot_kind_name(o.slot)) + (o.from_backup ? " backup" : "") + " header at offset " +
              std::to_string(o.header_offset) + " (" + cipher + ", " + o.kdf.describe() + ") opened in " + took +
              ": " + search.tried());
}
}  // namespace

OpenedHeader open_header(BlockFile& file, const OpenOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  if (file.size() < kHeaderSize)
    throw Error(ErrorKind::Auth, file.path() + ": too small to be a volume (" + std::to_string(file.size()) + " bytes)");
  if (opt.system && !opt.system_header_file.empty()) {
    // The system header from a file of its own (the drive's first track, a rescue disk's copy): the search reads it
    // there, the layout is the volume file's.
    SystemHeaderSource src = system_header_source(opt.system_header_file);
    Search search(*src.file, opt);
    Found found;
    if (!search.run({{SlotKind::System, src.offset, false}}, found))
      throw Error(ErrorKind::Auth, "wrong password, PIM or keyfile, or no system-encryption header in " +
                                       src.file->path() + " (read as a " + src.kind + ", header at offset " +
                                       std::to_string(src.offset) + ")");
    OpenedHeader o = finish(file, opt, found);
    o.header_file = src.file->path();
    report_opened(opt, o, search, t0);
    return o;
  }
  if (opt.system_partition_offset)
    throw Error(ErrorKind::Usage, "an image of one partition holds no system header (it lies in the drive's sector "
                                  "62): give it with --header-file");
  Search search(file, opt);
  Found found;
  // One search over the primary locations and then (as a fallback) the backup headers: Search::run prefers any
  // primary match and starts the backups' derivations only when no primary work is left to queue.
  std::vector<HeaderLocation> locs;
  if (!opt.backup_only) locs = header_locations(file.size(), opt, false);
  if (opt.backup_only || opt.allow_backup_fallback) {
    const auto backups = header_locations(file.size(), opt, true);
    locs.insert(locs.end(), backups.begin(), backups.end());
  }
  if (search.run(locs, found)) {
    if (found.cand->loc.backup && !opt.backup_only && opt.notice)
      opt.notice("the primary header did not decrypt (damaged?): opened with the embedded backup header");
    OpenedHeader o = finish(file, opt, found);
    report_opened(opt, o, search, t0);
    return o;
  }
  throw Error(ErrorKind::Auth, "wrong password, PIM or keyfile, or not a TrueCrypt/VeraCrypt volume");
}

}  // namespace warpvol
