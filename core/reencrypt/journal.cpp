#define OPENSSL_SUPPRESS_DEPRECATED
#include "core/reencrypt/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/sha.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "core/io/atomic_file.h"
#include "core/io/binary.h"
#include "core/io/fd_io.h"
#include "core/reencrypt/marker.h"
#include "core/util/cores.h"
#include "core/util/error.h"
#include "core/util/parallel.h"
#include "core/util/random.h"

namespace warpvol::reenc {

namespace {

constexpr char kMagic[8] = {'W', 'V', 'R', 'E', 'E', 'N', 'C', '1'};
// The format version names the checksum entries' hash (UnitHash): 1 = SHA-256/128, 2 = XXH3-128; nothing else
// differs, so journals of earlier versions still resume.
constexpr char kMacLabel[] = "warpvol reencrypt journal v1";
// No journal is larger than this (two slots of a 1 GiB journal-mode hot zone plus headers); anything bigger is not
// ours.
constexpr uint64_t kMaxJournalBytes = (uint64_t(2) << 30) + (1 << 20);
// Version 3: the fixed part is padded to this, and each slot's record area is this large (a record is 148 bytes).
constexpr uint64_t kSlotAlign = 4096;
constexpr uint64_t kPiece = 1 << 20;  // tree digest pieces

uint64_t round_up(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }
uint64_t max_protection(Resilience r, uint64_t hotzone) {
  return r == Resilience::Checksum ? hotzone / kDataUnitSize * kChecksumEntrySize : hotzone;
}

uint32_t slot_code(SlotKind k) {
  if (k == SlotKind::Normal) return 1;
  if (k == SlotKind::Hidden) return 2;
  throw Error(ErrorKind::Format, "only normal and hidden volumes are re-encrypted");
}
SlotKind slot_from(uint32_t c) {
  if (c == 1) return SlotKind::Normal;
  if (c == 2) return SlotKind::Hidden;
  throw Error(ErrorKind::Format, "bad volume kind");
}
ChainId chain_from(uint32_t c) {
  for (const auto& ch : all_chains())
    if (uint32_t(ch.id) == c) return ch.id;
  throw Error(ErrorKind::Format, "bad encryption id");
}
PrfId prf_from(uint32_t c) {
  for (const auto& p : all_prfs())
    if (uint32_t(p.id) == c) return p.id;
  throw Error(ErrorKind::Format, "bad hash id");
}

// HMAC-SHA-512 over several pieces, streamed (a journal-mode hot zone is many MiB).
void hmac_sha512(const uint8_t* key, size_t key_len, const std::vector<std::pair<const uint8_t*, size_t>>& parts,
                 uint8_t* out) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  EVP_MAC_CTX* ctx = mac ? EVP_MAC_CTX_new(mac) : nullptr;
  char digest[] = "SHA512";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_construct_end()};
  bool ok = ctx && EVP_MAC_init(ctx, key, key_len, params) == 1;
  for (const auto& p : parts)
    if (ok && p.second) ok = EVP_MAC_update(ctx, p.first, p.second) == 1;
  size_t len = 0;
  if (ok) ok = EVP_MAC_final(ctx, out, &len, kMacSize) == 1 && len == kMacSize;
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(mac);
  if (!ok) throw Error(ErrorKind::Io, "HMAC-SHA-512 failed (OpenSSL)");
}

// D: SHA-256 of the concatenated SHA-256 digests of the 1 MiB pieces of p[0..n) (none for n = 0).
std::array<uint8_t, 32> tree_digest(const uint8_t* p, size_t n) {
  const size_t pieces = (n + kPiece - 1) / kPiece;
  std::vector<uint8_t> digests(pieces * 32);
  auto work = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      const size_t len = size_t(std::min<uint64_t>(kPiece, n - i * kPiece));
      SHA256(p + i * kPiece, len, digests.data() + i * 32);
    }
  };
  const unsigned T = std::max(1u, std::min<unsigned>(usable_cores(), unsigned(pieces)));
  const size_t per = (pieces + T - 1) / T;
  run_parts(T, [&](unsigned t) { work(std::min(pieces, t * per), std::min(pieces, (t + 1) * per)); });
  std::array<uint8_t, 32> d{};
  SHA256(digests.data(), digests.size(), d.data());
  return d;
}

void write_job(ByteWriter& w, const Journal& j) {  // container size .. the parts
  w.u64le(j.container_size);
  w.u64le(j.hotzone);
  w.u64le(j.range_offset);
  w.u64le(j.range_size);
  w.u64le(j.range_first_unit);
  w.u32le(uint32_t(j.parts.size()));
  for (const PartRecord& p : j.parts) {
    w.u32le(slot_code(p.slot));
    w.u32le(p.old_format == VolumeFormat::VeraCrypt ? 1 : 2);
    w.u32le(uint32_t(p.old_chain));
    w.u32le(uint32_t(p.old_prf));
    w.u32le(uint32_t(p.new_chain));
    w.u32le(uint32_t(p.new_prf));
    w.u64le(p.data_offset);
    w.u64le(p.data_size);
    w.u64le(p.first_unit);
    for (const EncryptedHeader* h :
         {&p.orig_primary, &p.orig_backup, &p.marked_primary, &p.marked_backup, &p.final_primary, &p.final_backup})
      w.bytes(h->data(), h->size());
  }
}

void read_job(ByteReader& r, Journal& j) {
  j.container_size = r.u64le();
  j.hotzone = r.u64le();
  j.range_offset = r.u64le();
  j.range_size = r.u64le();
  j.range_first_unit = r.u64le();
  const uint32_t nparts = r.u32le();
  if (nparts < 1 || nparts > 2) throw Error(ErrorKind::Format, "bad volume count");
  for (uint32_t i = 0; i < nparts; ++i) {
    PartRecord p;
    p.slot = slot_from(r.u32le());
    const uint32_t fmt = r.u32le();
    if (fmt != 1 && fmt != 2) throw Error(ErrorKind::Format, "bad volume format");
    p.old_format = fmt == 1 ? VolumeFormat::VeraCrypt : VolumeFormat::TrueCrypt;
    p.old_chain = chain_from(r.u32le());
    p.old_prf = prf_from(r.u32le());
    p.new_chain = chain_from(r.u32le());
    p.new_prf = prf_from(r.u32le());
    p.data_offset = r.u64le();
    p.data_size = r.u64le();
    p.first_unit = r.u64le();
    for (EncryptedHeader* h : {&p.orig_primary, &p.orig_backup, &p.marked_primary, &p.marked_backup,
                               &p.final_primary, &p.final_backup})
      std::memcpy(h->data(), r.take(h->size()), h->size());
    j.parts.push_back(p);
  }
}

void write_state(ByteWriter& w, const JournalState& s) {  // sequence .. protection size
  w.u64le(s.seq);
  w.u32le(uint32_t(s.phase));
  w.u64le(s.progress);
  w.u64le(s.hot_offset);
  w.u64le(s.hot_size);
  w.u32le(s.has_sentinel ? 1 : 0);
  w.bytes(s.sentinel.data(), s.sentinel.size());
  w.u64le(s.protection_size);
}

void read_state(ByteReader& r, JournalState& s) {
  s.seq = r.u64le();
  const uint32_t phase = r.u32le();
  if (phase < 1 || phase > 3) throw Error(ErrorKind::Format, "bad phase");
  s.phase = Phase(phase);
  s.progress = r.u64le();
  s.hot_offset = r.u64le();
  s.hot_size = r.u64le();
  const uint32_t hs = r.u32le();
  if (hs > 1) throw Error(ErrorKind::Format, "bad sentinel flag");
  s.has_sentinel = hs == 1;
  std::memcpy(s.sentinel.data(), r.take(32), 32);
  s.protection_size = r.u64le();
}

constexpr size_t kSlotRecordSize = 4 + 8 + 4 + 8 + 8 + 8 + 4 + 32 + 8;  // before the MAC
static_assert(kSlotRecordSize + kMacSize == kSlotRecordBytes);

// Version 3 slot record MAC: over the fixed part, the record, and the protection's digest.
void slot_mac(const MacKey& key, const uint8_t* fixed, size_t fixed_size, const uint8_t* record, const Digest& d,
              uint8_t* out) {
  hmac_sha512(key.data(), key.size(), {{fixed, fixed_size}, {record, kSlotRecordSize}, {d.data(), d.size()}}, out);
}

class FileJournalStore final : public JournalStore {
 public:
  FileJournalStore(std::string path, FileWrapper wrap)
      : path_(std::move(path)), tmp_(path_ + ".tmp"), wrap_(std::move(wrap)) {}
  const std::string& path() const override { return path_; }

  std::optional<std::vector<uint8_t>> load() override {
    // A leftover temporary file is a store() that never reached its rename: not part of the state (the next
    // store() truncates it).
    struct stat st;
    if (::stat(path_.c_str(), &st) != 0) {
      if (errno == ENOENT) return std::nullopt;
      throw_errno("cannot read the re-encryption journal " + path_);
    }
    if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::Format, path_ + ": the re-encryption journal is not a file");
    if (uint64_t(st.st_size) > kMaxJournalBytes)
      throw Error(ErrorKind::Format, path_ + ": too large to be a re-encryption journal");
    auto f = open_file(path_, OpenMode::ReadOnly);
    std::vector<uint8_t> b(size_t(f->size()));
    if (!b.empty()) f->read_at(0, b.data(), b.size());
    return b;
  }

  void create(uint64_t size, const std::vector<JournalPiece>& pieces) override {
    // Commit = the rename. Before it, the new contents are durable in the temporary file; after it (and the folder
    // fsync) the journal is the new one. A crash in between leaves the previous journal (or none) in place.
    std::lock_guard<std::mutex> lk(mu_);
    live_.reset();
    AtomicFile out(path_, true, wrap_, tmp_);
    out.reserve(size);
    BlockFile& f = out.file();
    for (const JournalPiece& p : pieces)
      if (p.size) f.write_at(p.offset, p.data, p.size);
    out.commit();
  }

  void write_at(uint64_t offset, const uint8_t* data, size_t size) override { live().write_at(offset, data, size); }
  bool copy_range_from(BlockFile& src, uint64_t src_offset, uint64_t offset, uint64_t size) override {
    return live().copy_range_from(src, src_offset, offset, size);
  }
  void sync() override { live().sync(); }

  void remove() override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      live_.reset();
    }
    if (::unlink(path_.c_str()) != 0 && errno != ENOENT) throw_errno("cannot remove " + path_);
    ::unlink(tmp_.c_str());
    fsync_folder(folder_of(path_));
  }

 private:
  // The journal file opened for writing in place (on first use after create() or on resume).
  BlockFile& live() {
    std::lock_guard<std::mutex> lk(mu_);
    if (!live_) {
      live_ = open_file(path_, OpenMode::ReadWrite);
      if (wrap_) live_ = wrap_(std::move(live_));
    }
    return *live_;
  }

  std::string path_, tmp_;
  FileWrapper wrap_;
  std::mutex mu_;
  std::unique_ptr<BlockFile> live_;
};

}  // namespace

std::string_view resilience_name(Resilience r) { return r == Resilience::Journal ? "journal" : "checksum"; }

bool equal_ct(const uint8_t* a, const uint8_t* b, size_t n) {
  uint8_t d = 0;
  for (size_t i = 0; i < n; ++i) d |= uint8_t(a[i] ^ b[i]);
  return d == 0;
}

MacKey journal_mac_key(const std::vector<const uint8_t*>& key_areas) {
  std::vector<std::pair<const uint8_t*, size_t>> parts;
  for (const uint8_t* k : key_areas) parts.push_back({k, 256});
  MacKey k{};
  hmac_sha512(reinterpret_cast<const uint8_t*>(kMacLabel), sizeof kMacLabel - 1, parts, k.data());
  return k;
}

JournalBytes serialize_journal(const Journal& j, const MacKey& key) {
  JournalBytes out;
  ByteWriter w(out.prefix);
  w.bytes(kMagic, 8);
  w.u32le(uint32_t(j.unit_hash));
  w.u32le(uint32_t(j.resilience));
  write_job(w, j);
  write_state(w, j.state);
  out.protection = j.state.protection;
  out.protection_size = size_t(j.state.protection_size);
  const auto d = tree_digest(out.protection, out.protection_size);
  hmac_sha512(key.data(), key.size(), {{out.prefix.data(), out.prefix.size()}, {d.data(), d.size()}}, out.mac.data());
  return out;
}

Journal parse_journal(const std::vector<uint8_t>& bytes) {
  try {
    if (bytes.size() < 8 + kMacSize || std::memcmp(bytes.data(), kMagic, 8) != 0)
      throw Error(ErrorKind::Format, "not a warpvol re-encryption journal");
    ByteReader r(bytes.data(), bytes.size() - kMacSize);
    r.take(8);
    const uint32_t version = r.u32le();
    if (version != uint32_t(UnitHash::Sha256_128) && version != uint32_t(UnitHash::Xxh3_128))
      throw Error(ErrorKind::Format, "journal format version " + std::to_string(version) + " is not supported");
    Journal j;
    j.unit_hash = UnitHash(version);
    const uint32_t res = r.u32le();
    if (res != 1 && res != 2) throw Error(ErrorKind::Format, "bad resilience mode");
    j.resilience = Resilience(res);
    read_job(r, j);
    JournalState& s = j.state;
    read_state(r, s);
    if (s.protection_size != r.left()) throw Error(ErrorKind::Format, "size mismatch (truncated or extended)");
    s.protection = s.protection_size ? r.take(size_t(s.protection_size)) : nullptr;
    return j;
  } catch (const Error& e) {
    throw Error(ErrorKind::Format, std::string("damaged re-encryption journal: ") + e.what());
  }
}

bool verify_journal_mac(const std::vector<uint8_t>& bytes, const Journal& parsed, const MacKey& key) {
  if (bytes.size() < kMacSize) return false;
  const size_t n = bytes.size() - kMacSize;
  const size_t prot = size_t(parsed.state.protection_size);
  if (prot > n || (prot && parsed.state.protection != bytes.data() + (n - prot))) return false;
  const auto d = tree_digest(bytes.data() + (n - prot), prot);
  uint8_t mac[kMacSize];
  hmac_sha512(key.data(), key.size(), {{bytes.data(), n - prot}, {d.data(), d.size()}}, mac);
  const bool ok = equal_ct(mac, bytes.data() + n, kMacSize);
  secure_wipe(mac, sizeof mac);
  return ok;
}

Digest protection_digest(const uint8_t* p, size_t n) { return tree_digest(p, n); }

PieceDigest::PieceDigest(uint64_t n) : n_(n), digests_(size_t((n + kPiece - 1) / kPiece) * 32) {}

void PieceDigest::add(uint64_t pos, const uint8_t* p, size_t len) {
  if (pos % kPiece || pos + len > n_ || (len % kPiece && pos + len != n_))
    throw Error(ErrorKind::Io, "internal: protection digest piece out of place");
  for (size_t done = 0; done < len; done += kPiece)
    SHA256(p + done, std::min<size_t>(kPiece, len - done), digests_.data() + (pos + done) / kPiece * 32);
}

Digest PieceDigest::finish() const {
  Digest d{};
  SHA256(digests_.data(), digests_.size(), d.data());
  return d;
}

// Per piece: the bytes hashed so far (a prefix of the piece) and whether a caller is hashing it now; `final` the
// ranges added and not hashed yet (start -> end, disjoint, merged). A caller that finds the next bytes of a piece
// final claims them, hashes them outside the lock, and looks again before it lets go, so nothing added meanwhile
// is left behind.
struct OrderedDigest::State {
  const uint8_t* base = nullptr;
  uint64_t n = 0;
  std::mutex mu;
  std::map<uint64_t, uint64_t> final;
  struct Piece {
    SHA256_CTX ctx;
    uint64_t hashed = 0;  // bytes of the piece fed to ctx
    bool busy = false;
  };
  std::vector<Piece> pieces;
  std::vector<uint8_t> digests;
  uint64_t piece_len(size_t i) const { return std::min<uint64_t>(kPiece, n - i * kPiece); }
};

OrderedDigest::OrderedDigest(const uint8_t* base, uint64_t n) : st_(std::make_unique<State>()) {
  st_->base = base;
  st_->n = n;
  const size_t np = size_t((n + kPiece - 1) / kPiece);
  st_->pieces.resize(np);
  st_->digests.resize(np * 32);
  for (auto& p : st_->pieces) SHA256_Init(&p.ctx);
}

OrderedDigest::~OrderedDigest() {
  for (auto& p : st_->pieces) secure_wipe(&p.ctx, sizeof p.ctx);
}

void OrderedDigest::add(uint64_t pos, size_t len) {
  State& s = *st_;
  if (pos > s.n || len > s.n - pos) throw Error(ErrorKind::Io, "internal: protection digest range out of place");
  if (len == 0) return;
  std::unique_lock<std::mutex> lk(s.mu);
  {  // record [pos, pos + len), merged with its neighbours
    uint64_t a = pos, b = pos + len;
    auto next = s.final.upper_bound(a);
    const bool overlaps = (next != s.final.end() && next->first < b) ||
                          (next != s.final.begin() && std::prev(next)->second > a);
    if (overlaps) throw Error(ErrorKind::Io, "internal: protection digest range added twice");
    if (next != s.final.end() && next->first == b) {
      b = next->second;
      next = s.final.erase(next);
    }
    if (next != s.final.begin() && std::prev(next)->second == a) {
      auto prev = std::prev(next);
      a = prev->first;
      s.final.erase(prev);
    }
    s.final[a] = b;
  }
  const size_t first = size_t(pos / kPiece), last = size_t((pos + len - 1) / kPiece);
  for (size_t i = first; i <= last; ++i) {
    State::Piece& p = s.pieces[i];
    const uint64_t start = uint64_t(i) * kPiece, plen = s.piece_len(i);
    while (!p.busy && p.hashed < plen) {
      // The final range that holds the piece's next byte, if any.
      const uint64_t at = start + p.hashed;
      auto it = s.final.upper_bound(at);
      if (it == s.final.begin()) break;
      --it;
      if (it->second <= at) break;
      const uint64_t to = std::min(it->second, start + plen);
      // Take [at, to) out of the final ranges: it is being hashed.
      const uint64_t a = it->first, b = it->second;
      s.final.erase(it);
      if (a < at) s.final[a] = at;
      if (to < b) s.final[to] = b;
      p.busy = true;
      lk.unlock();
      SHA256_Update(&p.ctx, s.base + at, size_t(to - at));
      lk.lock();
      p.busy = false;
      p.hashed = to - start;
      if (p.hashed == plen) SHA256_Final(s.digests.data() + i * 32, &p.ctx);
    }
  }
}

Digest OrderedDigest::finish() {
  State& s = *st_;
  std::lock_guard<std::mutex> lk(s.mu);
  for (size_t i = 0; i < s.pieces.size(); ++i)
    if (s.pieces[i].busy || s.pieces[i].hashed != s.piece_len(i))
      throw Error(ErrorKind::Io, "internal: protection digest finished before all of it was added");
  Digest d{};
  SHA256(s.digests.data(), s.digests.size(), d.data());
  return d;
}

JournalFixed serialize_fixed(const Journal& j) {
  JournalFixed f;
  ByteWriter w(f.bytes);
  w.bytes(kMagic, 8);
  w.u32le(kSlotJournalVersion);
  w.u32le(uint32_t(j.unit_hash));
  w.u32le(uint32_t(j.resilience));
  write_job(w, j);
  f.layout.record_area = kSlotAlign;
  f.layout.capacity = round_up(max_protection(j.resilience, j.hotzone), kSlotAlign);
  w.u64le(f.layout.record_area);
  w.u64le(f.layout.capacity);
  f.layout.fixed_size = round_up(f.bytes.size(), kSlotAlign);
  f.bytes.resize(size_t(f.layout.fixed_size), 0);
  return f;
}

std::vector<uint8_t> serialize_slot(const JournalFixed& fixed, unsigned slot, const JournalState& s, const Digest& d,
                                    const MacKey& key) {
  std::vector<uint8_t> rec;
  ByteWriter w(rec);
  w.u32le(slot);
  write_state(w, s);
  rec.resize(kSlotRecordSize + kMacSize);
  slot_mac(key, fixed.bytes.data(), fixed.bytes.size(), rec.data(), d, rec.data() + kSlotRecordSize);
  return rec;
}

namespace {

LoadedJournal parse_slot_journal(const std::vector<uint8_t>& bytes) {
  LoadedJournal lj;
  lj.version = kSlotJournalVersion;
  ByteReader r(bytes.data(), bytes.size());
  r.take(12);
  Journal& j = lj.job;
  const uint32_t uh = r.u32le();
  if (uh != uint32_t(UnitHash::Sha256_128) && uh != uint32_t(UnitHash::Xxh3_128))
    throw Error(ErrorKind::Format, "bad checksum hash");
  j.unit_hash = UnitHash(uh);
  const uint32_t res = r.u32le();
  if (res != 1 && res != 2) throw Error(ErrorKind::Format, "bad resilience mode");
  j.resilience = Resilience(res);
  read_job(r, j);
  if (j.hotzone > (uint64_t(1) << 30)) throw Error(ErrorKind::Format, "bad hot-zone size");
  JournalLayout& L = lj.layout;
  L.record_area = r.u64le();
  L.capacity = r.u64le();
  L.fixed_size = round_up(bytes.size() - r.left(), kSlotAlign);
  if (L.record_area != kSlotAlign || L.capacity != round_up(max_protection(j.resilience, j.hotzone), kSlotAlign))
    throw Error(ErrorKind::Format, "bad slot layout");
  if (bytes.size() != L.file_size()) throw Error(ErrorKind::Format, "size mismatch (truncated or extended)");
  // A slot whose record does not parse (torn, never written) is no candidate; the other may still be.
  for (unsigned s = 0; s < 2; ++s) {
    try {
      ByteReader rr(bytes.data() + L.slot_offset(s), kSlotRecordSize);
      if (rr.u32le() != s) continue;
      JournalSlot js;
      js.index = s;
      read_state(rr, js.state);
      if (js.state.protection_size > L.capacity) continue;
      js.state.protection = js.state.protection_size ? bytes.data() + L.protection_offset(s) : nullptr;
      lj.slots.push_back(js);
    } catch (const Error&) {
    }
  }
  if (lj.slots.empty()) throw Error(ErrorKind::Format, "neither slot holds a readable state");
  j.state = lj.slots[0].state;
  return lj;
}

}  // namespace

LoadedJournal parse_journal_file(const std::vector<uint8_t>& bytes) {
  if (bytes.size() >= 12 && std::memcmp(bytes.data(), kMagic, 8) == 0 &&
      bytes[8] == kSlotJournalVersion && bytes[9] == 0 && bytes[10] == 0 && bytes[11] == 0) {
    try {
      return parse_slot_journal(bytes);
    } catch (const Error& e) {
      throw Error(ErrorKind::Format, std::string("damaged re-encryption journal: ") + e.what());
    }
  }
  LoadedJournal lj;
  lj.job = parse_journal(bytes);
  lj.version = uint32_t(lj.job.unit_hash);
  lj.slots.push_back(JournalSlot{0, lj.job.state});
  return lj;
}

std::optional<JournalSlot> newest_authentic_slot(const std::vector<uint8_t>& bytes, const LoadedJournal& lj,
                                                 const MacKey& key) {
  if (lj.version != kSlotJournalVersion) {
    Journal j = lj.job;
    j.state = lj.slots.at(0).state;
    if (!verify_journal_mac(bytes, j, key)) return std::nullopt;
    return lj.slots[0];
  }
  std::optional<JournalSlot> best;
  for (const JournalSlot& js : lj.slots) {
    const uint8_t* rec = bytes.data() + lj.layout.slot_offset(js.index);
    const Digest d = tree_digest(js.state.protection, size_t(js.state.protection_size));
    uint8_t mac[kMacSize];
    slot_mac(key, bytes.data(), size_t(lj.layout.fixed_size), rec, d, mac);
    const bool ok = equal_ct(mac, rec + kSlotRecordSize, kMacSize);
    secure_wipe(mac, sizeof mac);
    if (ok && (!best || js.state.seq > best->state.seq)) best = js;
  }
  return best;
}

void validate_journal(const Journal& j) {
  auto bad = [](const std::string& why) { throw Error(ErrorKind::Format, "inconsistent re-encryption journal: " + why); };
  if (j.hotzone < kDataUnitSize || j.hotzone % kDataUnitSize || j.hotzone > (uint64_t(1) << 30))
    bad("hot-zone size");
  if (j.range_offset % kDataUnitSize || j.range_size % kDataUnitSize || j.range_size == 0) bad("range alignment");
  if (j.range_offset > j.container_size || j.range_size > j.container_size - j.range_offset) bad("range");
  for (const PartRecord& p : j.parts) {
    if (p.data_offset < j.range_offset || p.data_offset % kDataUnitSize || p.data_size % kDataUnitSize ||
        p.data_offset - j.range_offset > j.range_size || p.data_size > j.range_size - (p.data_offset - j.range_offset))
      bad("volume range");
  }
  if (j.parts.size() == 2 && (j.parts[0].slot != SlotKind::Normal || j.parts[1].slot != SlotKind::Hidden))
    bad("volume kinds");
  const JournalState& s = j.state;
  if (s.progress > j.range_size || s.progress % kDataUnitSize) bad("progress");
  if (s.hot_size) {
    if (s.hot_offset != s.progress || s.hot_size % kDataUnitSize || s.hot_size > j.hotzone ||
        s.hot_size > j.range_size - s.hot_offset)
      bad("hot zone");
    const uint64_t want = j.resilience == Resilience::Checksum ? s.hot_size / kDataUnitSize * kChecksumEntrySize
                                                               : s.hot_size;
    if (s.protection_size != want) bad("protection size");
  } else if (s.protection_size) {
    bad("protection without a hot zone");
  }
  if (s.phase == Phase::Marking && (s.progress != 0 || s.hot_size)) bad("progress before the headers were marked");
  if (s.phase == Phase::Finalizing && (s.progress != j.range_size || s.hot_size)) bad("finalizing before the end");
  const uint64_t sentinel_at = s.hot_size ? s.hot_offset + s.hot_size : s.progress;
  if (s.has_sentinel != (sentinel_at < j.range_size)) bad("sentinel");
}

std::unique_ptr<JournalStore> file_journal_store(const std::string& path, FileWrapper wrap) {
  return std::make_unique<FileJournalStore>(path, std::move(wrap));
}

std::string journal_path_for(const std::string& volume, const std::string& dir) {
  std::filesystem::path v(volume);
  const std::string name = v.filename().string() + kReencryptJournalSuffix;
  if (!dir.empty()) return (std::filesystem::path(dir) / name).string();
  return (v.parent_path() / name).string();
}

uint64_t max_journal_size(Resilience r, uint64_t hotzone, size_t parts) {
  const uint64_t fixed = round_up(128 + parts * (64 + 6 * kHeaderSize) + 128, kSlotAlign);
  return fixed + 2 * (kSlotAlign + round_up(max_protection(r, hotzone), kSlotAlign));
}

}  // namespace warpvol::reenc
