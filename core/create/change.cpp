#include "core/create/change.h"

#include "core/reencrypt/legacy_advice.h"

#include <cstring>
#include <map>

#include "core/create/output_file.h"
#include "core/util/error.h"
#include "core/util/random.h"

namespace warpvol {

namespace {

std::unique_ptr<BlockFile> open_rw(const std::string& path, const FileWrapper& wrap) {
  auto f = open_file(path, OpenMode::ReadWrite);
  if (wrap) f = wrap(std::move(f));
  return f;
}

// Headers warpvol rewrites: V2 normal or hidden slots with embedded backups.
void check_rewritable(const OpenedHeader& h, const char* what) {
  if (h.slot == SlotKind::System || (h.fields.flags & kFlagSystem))
    throw Error(ErrorKind::Format, std::string("cannot ") + what +
                                       " a system-encryption header (use VeraCrypt's pre-boot tools and rescue disk)");
  if (h.slot == SlotKind::LegacyNormal || h.slot == SlotKind::LegacyHidden)
    throw Error(ErrorKind::Format, std::string("cannot ") + what +
                                       " a legacy TrueCrypt (pre-6.0, V1 layout) volume: it has no backup headers "
                                       "and VeraCrypt cannot open it; its data must be re-encrypted");
}

// A read-only BlockFile of the volume's size that holds only header sectors (taken from a backup file) at the
// offsets where a volume keeps them, zeros elsewhere: lets open_header() search a backup file with the volume's
// real size, so its checks of the data area against the container apply.
class HeaderView final : public BlockFile {
 public:
  HeaderView(std::string path, uint64_t size) : path_(std::move(path)), size_(size) {}
  void put(uint64_t offset, const uint8_t* h) { sectors_[offset].assign(h, h + kHeaderSize); }
  uint64_t size() const override { return size_; }
  void read_at(uint64_t off, uint8_t* buf, size_t len) override {
    if (off + len > size_) throw Error(ErrorKind::Io, path_ + ": read past the end");
    std::memset(buf, 0, len);
    for (const auto& [o, d] : sectors_) {
      const uint64_t a = std::max(off, o), b = std::min(off + len, o + d.size());
      if (a < b) std::memcpy(buf + (a - off), d.data() + (a - o), size_t(b - a));
    }
  }
  void write_at(uint64_t, const uint8_t*, size_t) override { throw Error(ErrorKind::Io, "read-only view"); }
  void sync() override {}
  bool writable() const override { return false; }
  const std::string& path() const override { return path_; }
  void truncate(uint64_t) override { throw Error(ErrorKind::Io, "read-only view"); }

 private:
  std::string path_;
  uint64_t size_;
  std::map<uint64_t, std::vector<uint8_t>> sectors_;
};

}  // namespace

bool veracrypt_supports_prf(PrfId prf) {
  switch (prf) {
    case PrfId::Sha512:
    case PrfId::Sha256:
    case PrfId::Blake2s:
    case PrfId::Whirlpool:
    case PrfId::Streebog:
    case PrfId::Argon2id:  // Windows build of 1.26.27 only (docs/format-spec.md §5.4)
      return true;
    default:
      return false;  // RIPEMD-160 (removed in 1.26), SHA-1 (TrueCrypt 5 and older)
  }
}

bool veracrypt_supports_chain(ChainId chain) {
  // VeraCrypt 1.26's 15 EAs (spec §6.3). GOST89 (VeraCrypt <= 1.25) and TrueCrypt's Blowfish/CAST5/3DES
  // cascades have no ChainId at all, so they never open here in the first place.
  const auto v = static_cast<uint8_t>(chain);
  return v >= 1 && v <= 15;
}

ChangeResult change_credentials(const std::string& path, const ChangeOptions& opt) {
  auto f = open_rw(path, opt.wrap_file);
  ChangeResult res;
  res.old_header = open_header(*f, opt.open);
  const OpenedHeader& h = res.old_header;
  check_rewritable(h, "change the credentials of");
  const PrfId prf = opt.new_prf.value_or(h.kdf.prf);
  res.new_kdf = new_header_kdf(prf, h.format, opt.new_credentials.pim);
  LockedBytes pw = header_kdf_password(opt.new_credentials, h.format);
  res.restored_primary = h.from_backup;
  // Same fields and master keys; two fresh salts (primary, backup), KDFs in parallel.
  auto headers = build_headers(h.fields, h.chain, res.new_kdf, pw, 2);
  // Write order (rewrite_header_pair): 1. embedded backup + fsync, 2. primary + fsync. A crash before step 1's
  // fsync leaves the old primary (old credentials); after it the new backup (new credentials) is durable.
  rewrite_header_pair(*f, h.slot, headers[0], headers[1]);
  return res;
}

BackupResult backup_headers(const std::string& volume, const std::string& file, const BackupOptions& opt) {
  check_target(file, opt.force);
  auto vf = open_file(volume, OpenMode::ReadOnly);
  const uint64_t H = vf->size();
  BackupResult res;
  OpenedHeader first = open_header(*vf, opt.open);
  check_rewritable(first, "back up");
  res.first_slot = first.slot;
  std::optional<OpenedHeader> hidden;
  if (opt.hidden) {
    if (first.slot == SlotKind::Hidden)
      throw Error(ErrorKind::Usage, "the first credentials already opened the hidden volume; give the outer "
                                    "volume's credentials first and the hidden volume's second");
    OpenOptions ho = *opt.hidden;
    ho.slot = SlotKind::Hidden;
    hidden = open_header(*vf, ho);
    check_rewritable(*hidden, "back up");
    res.hidden_backed_up = true;
  }
  auto seal_again = [](const OpenedHeader& h, const OpenOptions& o) {
    LockedBytes pw = header_kdf_password(o.credentials, h.format);
    return build_header(h.fields, h.chain, h.kdf, pw);  // fresh salt, same KDF
  };
  EncryptedHeader normal_slot{}, hidden_slot{};
  if (first.slot == SlotKind::Normal) {
    normal_slot = seal_again(first, opt.open);
    hidden_slot = hidden ? seal_again(*hidden, *opt.hidden) : build_fake_header(first.chain, H, first.fields.sector_size);
  } else {
    hidden_slot = seal_again(first, opt.open);
    normal_slot = build_fake_header(first.chain, H, first.fields.sector_size);
  }
  AtomicFile out(file, opt.force, opt.wrap_file);
  if (opt.force) out.lock_target();
  write_header_slot(out.file(), 0, normal_slot);
  write_header_slot(out.file(), kHeaderSlotSize, hidden_slot);
  out.commit();
  return res;
}

RestoreResult restore_headers(const std::string& volume, const RestoreOptions& opt) {
  auto vf = open_rw(volume, opt.wrap_file);
  const uint64_t H = vf->size();
  if (H < 2 * kHeaderGroupSize)
    throw Error(ErrorKind::Format, volume + ": too small for a volume with backup headers");
  RestoreResult res;
  OpenOptions o = opt.open;
  o.system = false;
  if (!opt.from_file.empty()) {
    auto bf = open_file(opt.from_file, OpenMode::ReadOnly);
    if (bf->size() != kBackupFileSize)
      throw Error(ErrorKind::Format, opt.from_file + ": not a header backup (" + std::to_string(bf->size()) +
                                         " bytes; a VeraCrypt header backup has " + std::to_string(kBackupFileSize) +
                                         ")");
    HeaderView view(opt.from_file, H);
    uint8_t h[kHeaderSize];
    bf->read_at(0, h, kHeaderSize);
    view.put(header_offset(SlotKind::Normal, false, H), h);
    bf->read_at(kHeaderSlotSize, h, kHeaderSize);
    view.put(header_offset(SlotKind::Hidden, false, H), h);
    o.backup_only = false;
    o.allow_backup_fallback = false;
    try {
      res.header = open_header(view, o);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Auth)
        throw Error(ErrorKind::Auth, opt.from_file + ": no header in the backup decrypts with these credentials "
                                                     "(wrong password, PIM or keyfile, or not a header backup); "
                                                     "nothing was written");
      throw;
    }
  } else {
    o.backup_only = true;
    try {
      res.header = open_header(*vf, o);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Auth)
        throw Error(ErrorKind::Auth, "the embedded backup header does not decrypt with these credentials "
                                     "(wrong password, PIM or keyfile, or damaged); nothing was written");
      throw;
    }
  }
  const OpenedHeader& h = res.header;
  check_rewritable(h, "restore");
  LockedBytes pw = header_kdf_password(opt.open.credentials, h.format);
  auto headers = build_headers(h.fields, h.chain, h.kdf, pw, 2);
  // External: backup first, then primary (either old header keeps opening until the new one is durable).
  // Embedded: primary first, so the backup we restore from stays intact until the primary is durable.
  rewrite_header_pair(*vf, h.slot, headers[0], headers[1], true, /*primary_first=*/opt.from_file.empty());
  return res;
}

ConvertResult convert_to_veracrypt(const std::string& path, const ConvertOptions& opt) {
  auto f = open_rw(path, opt.wrap_file);
  OpenOptions o = opt.open;
  o.format = VolumeFormat::TrueCrypt;
  ConvertResult res;
  try {
    res.old_header = open_header(*f, o);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Auth)
      throw Error(ErrorKind::Auth, "no TrueCrypt header decrypts with these credentials (wrong password or keyfile, "
                                   "or not a TrueCrypt volume)");
    throw;
  }
  const OpenedHeader& h = res.old_header;
  // V1 layouts (TrueCrypt 5.x; before 5.0 also LRW/CBC data): a new header cannot help, the data must move.
  if (h.slot == SlotKind::LegacyNormal || h.slot == SlotKind::LegacyHidden || h.fields.version < 4 || h.legacy)
    throw Error(ErrorKind::Format, "not convertible by a header rewrite (VeraCrypt never opened it): " +
                                       reenc::v1_layout_advice(path, h, f->size()));
  check_rewritable(h, "convert");
  if (!veracrypt_supports_chain(h.chain))
    throw Error(ErrorKind::Format, "VeraCrypt 1.26 no longer supports " + std::string(chain_info(h.chain).name) +
                                       "; a header conversion cannot help: the data must be re-encrypted");
  const PrfId prf = opt.new_prf.value_or(h.kdf.prf);
  if (opt.new_prf && !veracrypt_supports_prf(prf))
    throw Error(ErrorKind::Usage, "VeraCrypt 1.26 cannot open volumes whose header uses HMAC-" +
                                      std::string(prf_info(prf).name) + "; choose another --hash");
  if (!veracrypt_supports_prf(prf))
    throw Error(ErrorKind::Usage, "the volume's header uses HMAC-" + std::string(prf_info(prf).name) +
                                      ", which VeraCrypt 1.26 no longer supports; choose the new header's PRF with "
                                      "--hash (sha512, sha256, blake2s, whirlpool, streebog): the header key is "
                                      "derived anew, the data stays as it is");
  res.new_kdf = new_header_kdf(prf, VolumeFormat::VeraCrypt, opt.new_pim);
  HeaderFields fields = h.fields;
  fields.magic = kMagicVera;
  fields.version = kHeaderVersion;
  fields.required_version = kVeraRequiredVersion;
  fields.volume_creation_time = 0;
  fields.header_creation_time = 0;
  if (h.fields.version < 5) fields.sector_size = 512;
  // TrueCrypt passwords are at most 64 bytes, so VeraCrypt's keyfile pool is 64 bytes too: same keyfiles work.
  LockedBytes pw = header_kdf_password(opt.open.credentials, VolumeFormat::VeraCrypt);
  auto headers = build_headers(fields, h.chain, res.new_kdf, pw, 2);
  rewrite_header_pair(*f, h.slot, headers[0], headers[1]);  // backup first, then primary, fsync after each
  return res;
}

}  // namespace warpvol
