// Migration of a V1-layout TrueCrypt volume into a VeraCrypt volume in place; the protocol and the journal layout
// are in migrate.h (step names C0, G, M, C1, R_k, W_k, C_k, F1..F4 refer to it).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "core/reencrypt/migrate.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "core/format/header_writer.h"
#include "core/io/free_space.h"
#include "core/reencrypt/job_support.h"
#include "core/reencrypt/marker.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/random.h"

namespace warpvol::reenc {

namespace {

constexpr char kMagic[8] = {'W', 'V', 'M', 'I', 'G', 'R', 'T', '1'};
constexpr uint32_t kFormatVersion = 1;
// V1 layout: the data area starts right after the only header; V2: after the primary + hidden header slots.
constexpr uint64_t kOldDataOffset = kHeaderSize;
constexpr uint64_t kNewDataOffset = kHeaderGroupSize;
constexpr uint64_t kShift = kNewDataOffset - kOldDataOffset;  // 130560 = 255 units
constexpr uint64_t kNewOverhead = 2 * kHeaderGroupSize;       // header slots at both ends of a V2 container

enum class MPhase : uint32_t { Grow = 1, Move = 2, Finalize = 3 };
// Segments no larger than the shift, each source intact until its segment is durable (no copies; resilience
// "checksum" asks for it), or hot-zone-sized segments with a journal copy of the old ciphertext (resilience
// "journal"; far fewer commits, twice the writes).
enum class SegMode : uint32_t { Datashift = 1, Journal = 2 };
constexpr uint64_t kMinJournalSegment = uint64_t(1) << 20;  // >= 131072: see the sentinel

using Sha256 = std::array<uint8_t, 32>;
Sha256 sha256(const uint8_t* p, size_t n) {
  Sha256 out;
  SHA256(p, n, out.data());
  return out;
}

std::string prf_name(PrfId p) { return "HMAC-" + std::string(prf_info(p).name); }

// The export + import route, for what cannot move in place.
std::string export_import_advice(const std::string& path) {
  return "move its data into a new volume instead: warpvol export " + path + " IMAGE && warpvol import IMAGE " +
         "NEW.hc --encryption aes (IMAGE is plaintext: delete it securely afterwards)";
}

// A little-endian writer/reader for the journal.
struct Writer {
  std::vector<uint8_t> b;
  void u32(uint32_t v) {
    uint8_t t[4];
    store_le32(t, v);
    b.insert(b.end(), t, t + 4);
  }
  void u64(uint64_t v) {
    uint8_t t[8];
    store_le64(t, v);
    b.insert(b.end(), t, t + 8);
  }
  void raw(const uint8_t* p, size_t n) { b.insert(b.end(), p, p + n); }
};
struct Reader {
  const std::vector<uint8_t>& b;
  size_t pos = 0;
  void need(size_t n) const {
    if (pos + n > b.size()) throw Error(ErrorKind::Format, "truncated migration journal");
  }
  uint32_t u32() {
    need(4);
    pos += 4;
    return load_le32(b.data() + pos - 4);
  }
  uint64_t u64() {
    need(8);
    pos += 8;
    return load_le64(b.data() + pos - 8);
  }
  void raw(uint8_t* p, size_t n) {
    need(n);
    std::memcpy(p, b.data() + pos, n);
    pos += n;
  }
};

}  // namespace

bool is_migration_journal(const std::vector<uint8_t>& bytes) {
  return bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0;
}

struct Migration::Impl {
  std::string path, journal_path;
  JobOptions opt;
  OpenContainer c;
  std::unique_ptr<JournalStore> store;
  bool resuming = false, on_disk = false;

  // The job (journal fields).
  uint64_t H0 = 0, H1 = 0, D = 0, seg = kShift;
  SegMode mode = SegMode::Datashift;
  bool old_legacy = false;
  LegacySuite suite{LegacyEaId::Aes, LegacyMode::Lrw};
  ChainId old_chain = ChainId::Aes, new_chain = ChainId::Aes;
  PrfId old_prf = PrfId::Sha512, new_prf = PrfId::Sha512;
  EncryptedHeader orig{}, marked{}, final_primary{}, final_backup{};
  // State.
  uint64_t seq = 0;
  MPhase phase = MPhase::Grow;
  uint64_t done = 0;  // data-area bytes [done, D) are moved (new ciphertext at 131072 + offset)
  bool has_sentinel = false;
  Sha256 sentinel{};
  // Journal mode: the committed hot segment [hot_a, hot_a + hot_len) (data-area offsets) and the copy of its old
  // ciphertext (SHA-256 in the MAC-covered part, the bytes after it).
  uint64_t hot_a = 0, hot_len = 0;
  Sha256 copy_hash{};
  const uint8_t* copy = nullptr;
  std::vector<uint8_t> loaded;  // the journal read at resume (copy points into it)
  size_t prefix_size = 0;       // of the loaded journal: the MAC-covered part

  LockedBytes old_area{256}, new_area{256};
  MacKey mac{};
  std::shared_ptr<const EngineKey> old_key, new_key;
  uint64_t bytes_this_run = 0;

  ~Impl() {
    secure_wipe(mac.data(), mac.size());
    if (c.lock_fd >= 0) ::close(c.lock_fd);
  }

  void notice(const std::string& m) const {
    if (opt.notice) opt.notice(m);
  }
  void report(const char* what, bool finished = false) const {
    if (!opt.progress) return;
    ProgressUpdate u;
    u.item = path;
    u.phase = what;
    u.bytes_done = phase == MPhase::Finalize ? D : D - done;
    u.bytes_total = D;
    u.finished = finished;
    opt.progress(u);
  }

  // ---- journal ----

  std::vector<uint8_t> body() const {
    Writer w;
    w.raw(reinterpret_cast<const uint8_t*>(kMagic), sizeof kMagic);
    w.u32(kFormatVersion);
    w.u64(H0);
    w.u64(H1);
    w.u64(D);
    w.u64(seg);
    w.u32(uint32_t(mode));
    w.u32(old_legacy ? 1 : 0);
    w.u32(uint32_t(suite.ea));
    w.u32(uint32_t(suite.mode));
    w.u32(uint32_t(old_chain));
    w.u32(uint32_t(old_prf));
    w.u32(uint32_t(new_chain));
    w.u32(uint32_t(new_prf));
    for (const EncryptedHeader* h : {&orig, &marked, &final_primary, &final_backup}) w.raw(h->data(), h->size());
    w.u64(seq);
    w.u32(uint32_t(phase));
    w.u64(done);
    w.u32(has_sentinel ? 1 : 0);
    w.raw(sentinel.data(), sentinel.size());
    w.u64(hot_a);
    w.u64(hot_len);
    w.raw(copy_hash.data(), copy_hash.size());
    return w.b;
  }

  std::array<uint8_t, kMacSize> mac_of(const std::vector<uint8_t>& b) const {
    std::array<uint8_t, kMacSize> out{};
    unsigned len = 0;
    if (!HMAC(EVP_sha512(), mac.data(), int(mac.size()), b.data(), b.size(), out.data(), &len) || len != kMacSize)
      throw Error(ErrorKind::Io, "HMAC-SHA-512 failed (OpenSSL)");
    return out;
  }

  // Stores the journal with the state now in the members (a commit or safe point when it returns).
  void commit() {
    ++seq;
    JournalBytes jb;
    jb.prefix = body();
    jb.protection = hot_len ? copy : nullptr;
    jb.protection_size = hot_len ? size_t(hot_len) : 0;
    jb.mac = mac_of(jb.prefix);
    // The whole journal, replaced atomically (JournalStore::create): prefix, the hot segment's copy, the MAC.
    store->create(jb.total(), {{0, jb.prefix.data(), jb.prefix.size()},
                               {jb.prefix.size(), jb.protection, jb.protection_size},
                               {jb.prefix.size() + jb.protection_size, jb.mac.data(), jb.mac.size()}});
    on_disk = true;
  }

  // Structure only; nothing in it is trusted before the MAC is verified.
  void parse(const std::vector<uint8_t>& bytes) {
    const std::string bad = journal_path + " is not a migration journal of this version";
    if (!is_migration_journal(bytes)) throw Error(ErrorKind::Format, bad);
    Reader r{bytes, sizeof kMagic};
    if (r.u32() != kFormatVersion) throw Error(ErrorKind::Format, bad);
    H0 = r.u64();
    H1 = r.u64();
    D = r.u64();
    seg = r.u64();
    const uint32_t md = r.u32();
    if (md < 1 || md > 2) throw Error(ErrorKind::Format, bad + " (bad mode)");
    mode = SegMode(md);
    const uint32_t leg = r.u32(), ea = r.u32(), mode = r.u32(), oc = r.u32(), op = r.u32(), nc = r.u32(),
                   np = r.u32();
    auto chain_ok = [](uint32_t v) {
      for (const ChainInfo& i : all_chains())
        if (uint32_t(i.id) == v) return true;
      return false;
    };
    auto prf_ok = [](uint32_t v) {
      for (const PrfInfo& i : all_prfs())
        if (uint32_t(i.id) == v) return true;
      return false;
    };
    if (leg > 1 || ea > uint32_t(LegacyEaId::AesBlowfishSerpent) || mode > uint32_t(LegacyMode::InnerCbc) ||
        !chain_ok(oc) || !chain_ok(nc) || !prf_ok(op) || !prf_ok(np))
      throw Error(ErrorKind::Format, bad + " (bad algorithm ids)");
    old_legacy = leg == 1;
    suite = LegacySuite{LegacyEaId(ea), LegacyMode(mode)};
    if (old_legacy) {
      const auto& modes = legacy_ea_info(suite.ea).modes;
      if (std::find(modes.begin(), modes.end(), suite.mode) == modes.end())
        throw Error(ErrorKind::Format, bad + " (bad legacy suite)");
    }
    old_chain = ChainId(oc);
    new_chain = ChainId(nc);
    old_prf = PrfId(op);
    new_prf = PrfId(np);
    for (EncryptedHeader* h : {&orig, &marked, &final_primary, &final_backup}) r.raw(h->data(), h->size());
    seq = r.u64();
    const uint32_t ph = r.u32();
    if (ph < 1 || ph > 3) throw Error(ErrorKind::Format, bad + " (bad phase)");
    phase = MPhase(ph);
    done = r.u64();
    const uint32_t hs = r.u32();
    if (hs > 1) throw Error(ErrorKind::Format, bad);
    has_sentinel = hs == 1;
    r.raw(sentinel.data(), sentinel.size());
    hot_a = r.u64();
    hot_len = r.u64();
    r.raw(copy_hash.data(), copy_hash.size());
    prefix_size = r.pos;
    if (hot_len > bytes.size() || bytes.size() != r.pos + hot_len + kMacSize)
      throw Error(ErrorKind::Format, bad + " (wrong size)");
    copy = hot_len ? bytes.data() + r.pos : nullptr;
  }

  // ---- headers ----

  size_t old_key_len() const {
    return old_legacy ? suite.key_bytes() : 2 * chain_info(old_chain).key_size();
  }
  // Decrypts (d = Decrypt) or encrypts the legacy header bytes `h` in place under the derived header key.
  void crypt_old_header(Direction d, const uint8_t* hkey, uint8_t* h) const {
    if (old_legacy)
      LegacyCrypt(suite, hkey, 0).header(d, h + 64);
    else if (d == Direction::Decrypt)
      decrypt_header(old_chain, hkey, h);
    else
      encrypt_header(old_chain, hkey, h);
  }

  // Decrypts the legacy header `enc` with the old credentials into `plain`; false when it does not decrypt.
  // `hkey` receives the header key (kHeaderKeyMaterial bytes).
  bool open_old_header(const EncryptedHeader& enc, const Credentials& cr, SecureBytes& plain, SecureBytes& hkey) {
    const KdfChoice kdf = existing_kdf(old_prf, VolumeFormat::TrueCrypt, cr.pim);
    const LockedBytes pw = header_kdf_password(cr, VolumeFormat::TrueCrypt);
    hkey.CleanNew(kHeaderKeyMaterial);
    derive_header_key(kdf, pw, enc.data(), hkey.data(), old_key_len());
    plain.Assign(enc.data(), enc.size());
    crypt_old_header(Direction::Decrypt, hkey.data(), plain.data());
    return check_header(plain.data(), kMagicTrue) == HeaderCheck::Ok;
  }

  // The marked copy of the legacy header: same salt, key and fields, required program version = the marker.
  EncryptedHeader mark_of(const SecureBytes& plain, const SecureBytes& hkey) const {
    SecureBytes m(plain.data(), plain.size());
    store_be16(m.data() + 70, kReencryptMarkerVersion);
    if (load_be16(m.data() + 68) >= 4) store_be32(m.data() + 252, crc32(m.data() + 64, 188));
    crypt_old_header(Direction::Encrypt, hkey.data(), m.data());
    EncryptedHeader out;
    std::memcpy(out.data(), m.data(), out.size());
    return out;
  }

  std::optional<HeaderFields> open_new_header(const EncryptedHeader& enc, const Credentials& cr) const {
    const KdfChoice kdf = existing_kdf(new_prf, VolumeFormat::VeraCrypt, cr.pim);
    const LockedBytes pw = header_kdf_password(cr, VolumeFormat::VeraCrypt);
    SecureBytes key(kHeaderKeyMaterial);
    derive_header_key(kdf, pw, enc.data(), key.data(), 2 * chain_info(new_chain).key_size());
    SecureBytes buf(enc.data(), enc.size());
    decrypt_header(new_chain, key.data(), buf.data());
    if (check_header(buf.data(), kMagicVera) != HeaderCheck::Ok) return std::nullopt;
    return parse_header(buf.data());
  }

  void make_keys_and_mac() {
    old_key = old_legacy ? opt.engine->prepare_legacy(suite, old_area.data(), kOldDataOffset / kDataUnitSize)
                         : opt.engine->prepare(old_chain, old_area.data());
    new_key = opt.engine->prepare(new_chain, new_area.data());
    mac = journal_mac_key({old_area.data(), new_area.data()});
  }

  // ---- pre-flight ----

  void require_regular_file() const {
    struct stat st;
    if (::fstat(c.lock_fd, &st) != 0) throw_errno(path);
    if (!S_ISREG(st.st_mode))
      throw Error(ErrorKind::Format,
                  path + " is a device, not a file: migrating its TrueCrypt volume (V1 layout) in place would move the "
                         "data 130560 bytes further and need 261632 bytes more than the device has (VeraCrypt keeps "
                         "headers at both ends). " + export_import_advice(path));
  }

  void check_space(uint64_t journal_existing) const {
    std::filesystem::path vp(path), jp(journal_path);
    // Whether p's folder, plus what an existing journal frees, holds `need` bytes (a file system that reports no
    // size: the writes find out).
    auto has_room = [journal_existing](const std::filesystem::path& p, uint64_t need) {
      const std::string dir = p.parent_path().empty() ? "." : p.parent_path().string();
      struct statvfs vfs;
      if (::statvfs(dir.c_str(), &vfs) != 0) throw_errno("folder " + dir);
      if (vfs.f_flag & ST_RDONLY) throw Error(ErrorKind::Io, dir + " is on a read-only filesystem");
      const std::optional<uint64_t> avail = available_bytes(vfs);
      return !avail || *avail + journal_existing >= need;
    };
    const std::string jdir = jp.parent_path().empty() ? "." : jp.parent_path().string();
    if (::access(jdir.c_str(), W_OK | X_OK) != 0)
      throw Error(ErrorKind::Io, "journal folder " + jdir + " is not writable (give --journal-dir)");
    const uint64_t journal = 2 * (mode == SegMode::Journal ? seg : 0) + 2 * 4096 + (1 << 20);
    const uint64_t grow = phase == MPhase::Grow ? H1 - std::min(H1, c.file->size()) : 0;
    if (!has_room(vp, grow + journal) || !has_room(jp, journal))
      throw Error(ErrorKind::Io, "not enough free space to migrate " + path + " in place: the container grows by " +
                                     std::to_string(grow) + " bytes and the journal needs " +
                                     std::to_string(journal) + " bytes");
  }

  void prepare_new(const VolumeRequest& req, const OpenedHeader& o) {
    require_regular_file();
    if (o.slot == SlotKind::LegacyHidden)
      throw Error(ErrorKind::Format,
                  path + ": the credentials open a hidden volume inside a TrueCrypt volume with the V1 layout; it "
                         "cannot move in place (it sits against the container's end, where VeraCrypt keeps "
                         "its backup headers). " + export_import_advice(path));
    if (o.slot != SlotKind::LegacyNormal || (o.fields.flags & kFlagSystem))
      throw Error(ErrorKind::Format, path + ": system-encryption volumes are not migrated by warpvol");
    if (o.format != VolumeFormat::TrueCrypt)  // VeraCrypt alphas of 2013 wrote V1 headers too
      throw Error(ErrorKind::Format, path + " is a VeraCrypt volume with the V1 layout (an early VeraCrypt alpha): it "
                                            "is not migrated in place; " + export_import_advice(path));
    if (req.hidden)
      throw Error(ErrorKind::Usage,
                  path + " is a TrueCrypt volume with the V1 layout: a hidden volume inside it cannot be migrated "
                         "along with it (it cannot move in place). Export the hidden volume first (warpvol export " +
                         path + " IMAGE with the hidden volume's password), then migrate the outer volume with "
                         "--no-hidden-volume; or " + export_import_advice(path));
    if (!req.no_hidden_volume)
      throw Error(ErrorKind::Usage,
                  path + " is a TrueCrypt volume with the V1 layout: migrating it in place moves its whole data "
                         "area, which DESTROYS a hidden volume inside it (a hidden volume cannot be detected "
                         "without its password, and cannot move with it). If it holds one, export the hidden volume "
                         "first; then give --no-hidden-volume to state that there is none or that you accept its loss");
    notice(path + ": migrating in place (--no-hidden-volume: a hidden volume inside it, if there is one, will not "
                  "survive)");
    if (opt.resilience == Resilience::Journal) {
      mode = SegMode::Journal;
      seg = std::max(opt.hotzone ? opt.hotzone : kDefaultHotzone, kMinJournalSegment) / kDataUnitSize * kDataUnitSize;
    } else {
      mode = SegMode::Datashift;
      seg = kShift;
    }
    H0 = c.file->size();
    if (H0 != o.data_offset + o.data_size || o.data_offset != kOldDataOffset || o.first_unit != 1)
      throw Error(ErrorKind::Format, path + ": unexpected V1 data area (offset " + std::to_string(o.data_offset) + ")");
    if (H0 % kDataUnitSize || H0 <= kOldDataOffset)
      throw Error(ErrorKind::Format, path + ": the container's size is not a whole number of 512-byte units");
    D = o.data_size;
    H1 = D + kNewOverhead;
    old_legacy = o.legacy.has_value();
    if (old_legacy) suite = *o.legacy;
    old_chain = old_legacy ? ChainId::Aes : o.chain;  // a legacy suite's header names no XTS chain
    old_prf = o.kdf.prf;

    if (req.next.chain) {
      new_chain = *req.next.chain;
    } else if (old_legacy && legacy_ea_info(suite.ea).xts_chain) {
      new_chain = *legacy_ea_info(suite.ea).xts_chain;
    } else if (!old_legacy) {
      new_chain = old_chain;
    } else {
      throw Error(ErrorKind::Usage, path + " uses " + suite.name() + ", which has no XTS form in VeraCrypt: choose "
                                           "the new encryption with --new-encryption (e.g. aes)");
    }
    if (req.next.prf) {
      if (!prf_info(*req.next.prf).veracrypt)
        throw Error(ErrorKind::Usage,
                    std::string(prf_info(*req.next.prf).name) + " is not available in VeraCrypt 1.26");
      new_prf = *req.next.prf;
    } else {
      new_prf = prf_info(old_prf).veracrypt ? old_prf : PrfId::Sha512;
      if (new_prf != old_prf)
        notice(path + ": VeraCrypt 1.26 no longer opens " + prf_name(old_prf) + " headers: the new header uses " +
               prf_name(new_prf) + " (choose with --new-hash)");
    }

    // The legacy header as it is on disk, and its marked copy (the KDF is TrueCrypt's: cheap).
    const Credentials oc = req.open.credentials;
    c.file->read_at(0, orig.data(), kHeaderSize);
    {
      const KdfChoice want = existing_kdf(old_prf, VolumeFormat::TrueCrypt, oc.pim);
      if (want.iterations != o.kdf.iterations)
        throw Error(ErrorKind::Format, path + ": unexpected KDF parameters of the TrueCrypt header");
      SecureBytes plain, hkey;
      if (!open_old_header(orig, oc, plain, hkey))
        throw Error(ErrorKind::Format, path + ": the header at byte 0 is not the one that opened (moved?)");
      marked = mark_of(plain, hkey);
      std::memcpy(old_area.data(), plain.data() + 256, 256);
    }
    if (std::memcmp(old_area.data(), o.fields.key_area.data(), 256) != 0)
      throw Error(ErrorKind::Format, path + ": the header at byte 0 is not the one that opened");

    // The new VeraCrypt headers: fresh master keys, the new credentials.
    Credentials nc;
    nc.password = req.next.password ? *req.next.password : oc.password;
    nc.keyfiles = req.next.keyfiles ? *req.next.keyfiles : oc.keyfiles;
    nc.pim = req.next.pim ? *req.next.pim : oc.pim;
    const LockedBytes mk = new_master_key(new_chain);
    // VeraCrypt's minimum size is for creating volumes (it mounts smaller ones): the fields of the smallest, with
    // this volume's data size.
    HeaderFields f = normal_volume_fields(std::max(H1, kMinVolumeSize), 512, new_chain, mk);
    f.volume_size = f.encrypted_area_length = D;
    std::memcpy(new_area.data(), f.key_area.data(), 256);
    const auto hs = build_headers(f, new_chain, new_header_kdf(new_prf, VolumeFormat::VeraCrypt, nc.pim),
                                  header_kdf_password(nc, VolumeFormat::VeraCrypt), 2);
    final_primary = hs[0];
    final_backup = hs[1];

    make_keys_and_mac();
    phase = MPhase::Grow;
    done = D;
    set_sentinel();
    check_space(0);
    if (mode == SegMode::Datashift && D > (uint64_t(64) << 20))
      notice(path + ": checksum resilience moves the data in " + std::to_string(kShift) + "-byte segments with a "
             "commit each (no copies); --resilience journal moves --hotzone-size segments through a journal copy, "
             "with far fewer commits");
  }

  // ---- resume ----

  void prepare_resume(const VolumeRequest& req, std::vector<uint8_t> bytes_in) {
    resuming = on_disk = true;
    loaded = std::move(bytes_in);
    const std::vector<uint8_t>& bytes = loaded;
    const std::string refused = "refusing to resume the migration of " + path + " (nothing was changed): ";
    try {
      parse(bytes);
    } catch (const Error& e) {
      throw Error(ErrorKind::Format, refused + e.what());
    }
    const Credentials oc = req.open.credentials;
    Credentials nc;
    nc.password = req.next.password ? *req.next.password : oc.password;
    nc.keyfiles = req.next.keyfiles ? *req.next.keyfiles : oc.keyfiles;
    nc.pim = req.next.pim ? *req.next.pim : oc.pim;
    SecureBytes plain, hkey;
    if (!open_old_header(orig, oc, plain, hkey))
      throw Error(ErrorKind::Auth, refused + "the current password or keyfiles do not open the journal's copy of the "
                                             "TrueCrypt header (wrong credentials, or " + journal_path +
                                             " was tampered with)");
    std::memcpy(old_area.data(), plain.data() + 256, 256);
    const auto nf = open_new_header(final_primary, nc);
    if (!nf)
      throw Error(ErrorKind::Auth, refused + "the new password, PIM or keyfiles do not open the journal's copy of the "
                                             "new header (give the same --new-* options as when the migration "
                                             "started; or " + journal_path + " was tampered with)");
    std::memcpy(new_area.data(), nf->key_area.data(), 256);
    mac = journal_mac_key({old_area.data(), new_area.data()});
    const std::vector<uint8_t> b(bytes.begin(), bytes.begin() + std::ptrdiff_t(prefix_size));
    const auto want = mac_of(b);
    if (!equal_ct(want.data(), bytes.data() + bytes.size() - kMacSize, kMacSize))
      throw Error(ErrorKind::Format, refused + journal_path + " fails authentication: it was modified, truncated, or "
                                                             "belongs to another container or job");
    // Authentic from here: semantic checks, then bind it to this container.
    if (D == 0 || D % kDataUnitSize || H0 != D + kOldDataOffset || H1 != D + kNewOverhead || seg == 0 ||
        seg % kDataUnitSize || (mode == SegMode::Datashift ? seg != kShift : seg < kMinJournalSegment) ||
        done > D || done % kDataUnitSize ||
        (hot_len && (mode != SegMode::Journal || phase != MPhase::Move || hot_len > seg || hot_len % kDataUnitSize ||
                     hot_a + hot_len != done || sha256(copy, size_t(hot_len)) != copy_hash)) ||
        nf->volume_size != D || nf->encrypted_area_start != kNewDataOffset ||
        (phase == MPhase::Finalize && done != 0) || mark_of(plain, hkey) != marked)
      throw Error(ErrorKind::Format, refused + journal_path + " is inconsistent");
    if (req.next.chain && *req.next.chain != new_chain)
      throw Error(ErrorKind::Usage, path + ": the interrupted migration goes to " +
                                        std::string(chain_info(new_chain).name) + "; resume it with the same "
                                        "--new-encryption (or none)");
    if (req.next.prf && *req.next.prf != new_prf)
      throw Error(ErrorKind::Usage, path + ": the interrupted migration uses " + prf_name(new_prf) +
                                        " for the new header; resume it with the same --new-hash (or none)");
    const uint64_t H = c.file->size();
    if (phase == MPhase::Grow ? (H < H0 || H > H1) : H != H1)
      throw Error(ErrorKind::Format, refused + journal_path + " belongs to a container of " + std::to_string(H1) +
                                         " bytes, this one has " + std::to_string(H));
    EncryptedHeader at0;
    c.file->read_at(0, at0.data(), kHeaderSize);
    const bool bound = phase == MPhase::Grow     ? at0 == orig || at0 == marked
                       : phase == MPhase::Move ? at0 == marked
                                               : at0 == marked || at0 == final_primary;
    if (!bound)
      throw Error(ErrorKind::Format, refused + "the header at byte 0 of " + path + " is not one that " + journal_path +
                                         " wrote or expects: the journal belongs to another container (or a copy)");
    if (has_sentinel) {
      uint8_t unit[kDataUnitSize];
      c.file->read_at(sentinel_offset(), unit, sizeof unit);
      if (sha256(unit, sizeof unit) != sentinel)
        throw Error(ErrorKind::Format, refused + "the data the journal would move next was already overwritten: " +
                                           journal_path + " is older than the container (restored from a backup?)");
    }
    make_keys_and_mac();
    check_space(bytes.size());
  }

  // ---- the protocol ----

  // The sentinel: a unit that keeps what it held at the commit exactly as long as resuming from that commit is
  // safe (a journal restored from a backup is refused instead of moving new ciphertext again). The next segment
  // (below the hot one, or below `done`) ends at e.
  //   Datashift: the last unit of its SOURCE, at 512 + e - 512. Moving that segment leaves it alone (its
  //   destination starts at >= 131072 + e - S = 512 + e); moving the segment below it overwrites it, and then the
  //   next segment's source is gone: exactly the case a resume must refuse.
  //   Journal mode: the last unit of the next segment's DESTINATION, at 131072 + e - 512: nothing writes it before
  //   the next segment's own commit, and that segment's write always does.
  //   Phase Grow (the file may not have grown yet): the source unit, which the first segment's destination covers
  //   in both modes (S = 130560 < 131072 <= a journal segment).
  uint64_t sentinel_offset() const {
    const uint64_t e = hot_len ? hot_a : done;
    if (phase == MPhase::Grow || mode == SegMode::Datashift) return kOldDataOffset + e - kDataUnitSize;
    return kNewDataOffset + e - kDataUnitSize;
  }
  void set_sentinel() {
    has_sentinel = (hot_len ? hot_a : done) > 0 && phase != MPhase::Finalize;
    sentinel = {};
    if (!has_sentinel) return;
    uint8_t unit[kDataUnitSize];
    c.file->read_at(sentinel_offset(), unit, sizeof unit);
    sentinel = sha256(unit, sizeof unit);
  }

  void grow() {  // G
    if (c.file->size() < H1) {
      // Preallocate where the filesystem can (a full disk fails here, before any data moved).
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) throw_errno(path);
      const uint64_t from = c.file->size();
      const int r = ::posix_fallocate(fd, off_t(from), off_t(H1 - from));
      ::close(fd);
      if (r == ENOSPC || r == EFBIG || r == EIO) throw_errno(path + ": growing to " + std::to_string(H1) + " bytes", r);
      c.file->truncate(H1);
    }
    c.file->sync();
  }

  // Puts the file back as it was before C0 after a failure in M or G (not a crash: the journal resumes those).
  // Returns false when that failed too (the journal stays; resuming finishes the job).
  bool roll_back() {
    try {
      EncryptedHeader at0;
      c.file->read_at(0, at0.data(), kHeaderSize);
      if (at0 != orig) {
        write_header(*c.file, 0, orig);
        c.file->sync();
      }
      if (::truncate(path.c_str(), off_t(H0)) != 0) return false;
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
      }
      store->remove();
      on_disk = false;
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }

  // Re-encrypts the old ciphertext of data-area bytes [a, a + len) in buf for its new place.
  void reencrypt_segment(uint64_t a, uint8_t* buf, uint64_t len) {
    const size_t n = size_t(len / kDataUnitSize);
    opt.engine->process(*old_key, Direction::Decrypt, (kOldDataOffset + a) / kDataUnitSize, buf, n);
    opt.engine->process(*new_key, Direction::Encrypt, (kNewDataOffset + a) / kDataUnitSize, buf, n);
  }

  // Journal mode, resume: the committed hot segment again from the journal's copy, whatever its destination holds.
  void recover_hot_segment() {
    IoBuffer buf = opt.engine->io_buffer_for(size_t(hot_len), *old_key, new_key.get());
    std::memcpy(buf.data(), copy, size_t(hot_len));
    reencrypt_segment(hot_a, buf.data(), hot_len);
    c.file->write_at(kNewDataOffset + hot_a, buf.data(), size_t(hot_len));
    c.file->sync();
    secure_wipe(buf.data(), buf.size());
    bytes_this_run += hot_len;
    done = hot_a;  // in memory; the next commit records it
    hot_a = hot_len = 0;
    copy = nullptr;
  }

  void move_segments() {
    if (hot_len) recover_hot_segment();
    IoBuffer buf = opt.engine->io_buffer_for(size_t(seg), *old_key, new_key.get());
    struct Wipe {
      IoBuffer& b;
      ~Wipe() { secure_wipe(b.data(), b.size()); }
    } wipe{buf};
    while (done > 0) {
      const uint64_t a = done > seg ? done - seg : 0, len = done - a;
      c.file->read_at(kOldDataOffset + a, buf.data(), size_t(len));  // R_k
      if (mode == SegMode::Journal) {  // the journal takes the old ciphertext from buf, before it is re-encrypted
        hot_a = a;
        hot_len = len;
        copy = buf.data();
        copy_hash = sha256(copy, size_t(len));
        set_sentinel();
        commit();  // J_k: COMMIT POINT (journal mode): the old ciphertext is in the journal
      }
      reencrypt_segment(a, buf.data(), len);
      c.file->write_at(kNewDataOffset + a, buf.data(), size_t(len));  // W_k
      c.file->sync();
      bytes_this_run += len;
      done = a;
      hot_a = hot_len = 0;
      copy = nullptr;
      copy_hash = {};
      if (mode == SegMode::Datashift) {
        set_sentinel();
        commit();  // C_k: COMMIT POINT (datashift): segment k durable
      }
      report("migrate");
      if (done > 0 && opt.cancel()) {
        if (mode == SegMode::Journal) {
          set_sentinel();
          commit();  // S: SAFE POINT (journal mode)
        }
        throw Error(ErrorKind::Interrupted, "stopped at a safe point: " + path + " is half migrated (" +
                                                std::to_string(D - done) + " of " + std::to_string(D) +
                                                " bytes moved); run the same command again to resume");
      }
    }
  }

  void finalize() {
    if (phase != MPhase::Finalize) {
      phase = MPhase::Finalize;  // F1: SAFE POINT "all data moved"
      has_sentinel = false;
      sentinel = {};
      commit();
    }
    report("finalize");
    // F2: every header slot byte except the primary header; random where no header is (as create writes them).
    std::vector<uint8_t> fill(kHeaderGroupSize / 2 - kHeaderSize);
    random_bytes(fill.data(), fill.size());
    c.file->write_at(kHeaderSize, fill.data(), fill.size());
    write_header_slot(*c.file, header_offset(SlotKind::Hidden, false, H1), build_fake_header(new_chain, H1, 512));
    write_header_slot(*c.file, header_offset(SlotKind::Normal, true, H1), final_backup);
    write_header_slot(*c.file, header_offset(SlotKind::Hidden, true, H1), build_fake_header(new_chain, H1, 512));
    c.file->sync();
    write_header(*c.file, 0, final_primary);  // F3: FINAL COMMIT POINT
    c.file->sync();
    store->remove();  // F4
    on_disk = false;
  }

  JobResult run() {
    const auto t0 = std::chrono::steady_clock::now();
    JobResult r;
    r.resumed = resuming;
    if (phase == MPhase::Grow) {
      if (!on_disk) commit();  // C0: COMMIT POINT "migration recorded"
      report(resuming ? "recover" : "migrate");
      try {
        EncryptedHeader at0;
        c.file->read_at(0, at0.data(), kHeaderSize);
        if (at0 != marked) {
          write_header(*c.file, 0, marked);  // M
          c.file->sync();
        }
        grow();  // G
      } catch (const Error& e) {
        if (roll_back())
          throw Error(e.kind(), std::string(e.what()) + " (" + path + " is as it was: nothing was migrated)");
        throw;
      }
      phase = MPhase::Move;  // C1: COMMIT POINT "grown and marked"
      set_sentinel();
      commit();
    }
    if (phase == MPhase::Move) move_segments();
    finalize();
    report("done", true);
    r.bytes = bytes_this_run;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (opt.summary)
      opt.summary(path + ": migrated in " + std::to_string(r.seconds) + " s (" + std::to_string(bytes_this_run) +
                  " bytes moved by this run, " + std::to_string(seg) + "-byte segments)");
    return r;
  }

  std::string describe() const {
    const std::string from = old_legacy ? suite.name() : std::string(chain_info(old_chain).name) + " (XTS)";
    return "normal volume " + size_text(D) + ": " + from + " -> " + std::string(chain_info(new_chain).name) + ", " +
           prf_name(old_prf) + " -> " + prf_name(new_prf) +
           " (TrueCrypt V1 layout -> VeraCrypt: data moves from byte 512 to 131072, the container grows by " +
           std::to_string(H1 - H0) + " bytes), new master keys";
  }
};

Migration::Migration(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Migration::~Migration() = default;

namespace {
std::unique_ptr<Migration::Impl> make_impl(const JobOptions& opt, OpenContainer c, const std::string& path,
                                           const std::string& journal_path) {
  auto m = std::make_unique<Migration::Impl>();
  m->path = path;
  m->journal_path = journal_path;
  m->opt = opt;
  m->c = std::move(c);
  m->store = file_journal_store(journal_path, opt.wrap_journal);
  return m;
}
}  // namespace

std::unique_ptr<Migration> Migration::start(const VolumeRequest& req, const JobOptions& opt,
                                            const OpenedHeader& legacy, OpenContainer c,
                                            const std::string& journal_path) {
  auto m = make_impl(opt, std::move(c), req.path, journal_path);
  m->prepare_new(req, legacy);
  return std::unique_ptr<Migration>(new Migration(std::move(m)));
}

std::unique_ptr<Migration> Migration::resume(const VolumeRequest& req, const JobOptions& opt,
                                             std::vector<uint8_t> bytes, OpenContainer c,
                                             const std::string& journal_path) {
  auto m = make_impl(opt, std::move(c), req.path, journal_path);
  m->prepare_resume(req, std::move(bytes));
  return std::unique_ptr<Migration>(new Migration(std::move(m)));
}

const std::string& Migration::path() const { return impl_->path; }
const std::string& Migration::journal_path() const { return impl_->journal_path; }
bool Migration::resuming() const { return impl_->resuming; }
uint64_t Migration::total_bytes() const { return impl_->D; }
uint64_t Migration::done_bytes() const {
  return impl_->phase == MPhase::Finalize ? impl_->D : impl_->D - impl_->done;
}
uint64_t Migration::segment_bytes() const { return impl_->seg; }
std::string Migration::describe() const { return impl_->describe(); }
JobResult Migration::run() { return impl_->run(); }

}  // namespace warpvol::reenc
