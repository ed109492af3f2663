#include "core/create/create.h"

#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <future>
#include <vector>

#include "core/create/outer_fs.h"
#include "core/io/container_lock.h"
#include "core/util/error.h"
#include "core/util/random.h"
#include "core/volume/volume.h"

namespace warpvol {

namespace {

constexpr uint64_t kMaxDataSize = uint64_t(1) << 50;  // TC_MAX_128BIT_BLOCK_VOLUME_SIZE (1 PiB)
constexpr uint64_t kMinDataSize = kMinVolumeSize - 2 * kHeaderGroupSize;  // 36864

std::string bytes_text(uint64_t n) { return std::to_string(n) + " bytes"; }

uint64_t round_up(uint64_t v, uint64_t m) { return (v + m - 1) / m * m; }

void check_common(const CreateOptions& opt) {
  if (opt.sector_size != 512 && opt.sector_size != 4096)
    throw Error(ErrorKind::Usage, "sector size must be 512 or 4096");
  if (opt.credentials.password.empty() && opt.credentials.keyfiles.empty())
    throw Error(ErrorKind::Usage, "empty password: give a password or a keyfile");
  if (opt.credentials.password.size() > 128)
    throw Error(ErrorKind::Usage, "password is longer than 128 bytes");
}

void notice(const CreateOptions& opt, const std::string& m) {
  if (opt.notice) opt.notice(m);
}

}  // namespace

CreatePlan plan_create(const CreateOptions& opt) {
  check_common(opt);
  CreatePlan plan;
  plan.kdf = new_header_kdf(opt.prf, VolumeFormat::VeraCrypt, opt.pim);
  // Keyfiles are read now: an unreadable or empty one must fail before anything is written.
  (void)header_kdf_password(opt.credentials, VolumeFormat::VeraCrypt);
  const uint32_t ss = opt.sector_size;

  if (opt.type == CreateType::Hidden) {
    if (!opt.import_path.empty()) throw Error(ErrorKind::Usage, "--type hidden cannot import a raw image");
    if (opt.path.empty()) throw Error(ErrorKind::Usage, "empty file name");
    struct stat st;
    if (::stat(opt.path.c_str(), &st) != 0) {
      if (errno == ENOENT)
        throw Error(ErrorKind::Usage, opt.path + ": no such file; a hidden volume is created inside an existing "
                                                 "outer volume (create that first with --type normal)");
      throw_errno(opt.path);
    }
    if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
      throw Error(ErrorKind::Usage, opt.path + ": not a regular file or block device");
    auto f = open_file(opt.path, OpenMode::ReadWrite);  // writable? (no write yet)
    plan.host_size = f->size();
    plan.device = S_ISBLK(st.st_mode);
    if (opt.size_max) throw Error(ErrorKind::Usage, "--size max is not available for hidden volumes; give the size");
    if (opt.size == 0) throw Error(ErrorKind::Usage, "--size is required for a hidden volume");
    if (plan.host_size % ss)
      throw Error(ErrorKind::Usage, "the outer container's size is not a multiple of the sector size " +
                                        std::to_string(ss));
    plan.hidden = hidden_layout(plan.host_size, opt.size, ss);
    plan.data_offset = plan.hidden.data_start;
    plan.data_size = plan.hidden.data_size;
    return plan;
  }

  plan.target = check_target(opt.path, opt.force);
  plan.device = plan.target.is_block_device;
  if (!opt.import_path.empty()) {
    if (opt.size || opt.size_max) throw Error(ErrorKind::Usage, "import takes its size from the raw image; drop --size");
    struct stat rs, ts;
    if (::stat(opt.import_path.c_str(), &rs) != 0) throw_errno(opt.import_path);
    if (S_ISDIR(rs.st_mode)) throw Error(ErrorKind::Usage, opt.import_path + ": is a folder");
    if (plan.target.exists && ::stat(opt.path.c_str(), &ts) == 0 && ts.st_dev == rs.st_dev && ts.st_ino == rs.st_ino)
      throw Error(ErrorKind::Usage, "the raw image and the output are the same file");
    auto raw = open_file(opt.import_path, OpenMode::ReadOnly);
    plan.import_size = raw->size();
    if (plan.import_size == 0) throw Error(ErrorKind::Usage, opt.import_path + ": the raw image is empty");
    // VeraCrypt needs the data area to be a whole number of sectors and at least 36864 bytes (min volume 299008).
    plan.data_size = std::max(round_up(plan.import_size, ss), round_up(kMinDataSize, ss));
    plan.padding = plan.data_size - plan.import_size;
    plan.host_size = plan.data_size + 2 * kHeaderGroupSize;
    if (plan.device && plan.host_size > plan.target.device_size)
      throw Error(ErrorKind::Usage, "the device (" + bytes_text(plan.target.device_size) + ") is too small for " +
                                        bytes_text(plan.host_size));
    if (plan.device) {
      plan.host_size = plan.target.device_size / ss * ss;
      plan.data_size = plan.host_size - 2 * kHeaderGroupSize;
      plan.padding = plan.data_size - plan.import_size;
    }
  } else if (plan.device) {
    if (opt.size && opt.size != plan.target.device_size)
      throw Error(ErrorKind::Usage, "--size does not apply to a block device (the whole device, " +
                                        bytes_text(plan.target.device_size) + ", is used)");
    plan.host_size = plan.target.device_size / ss * ss;
  } else if (opt.size_max) {
    if (!plan.target.free_bytes)
      throw Error(ErrorKind::Usage, "--size max: the file system of " + plan.target.folder +
                                        " reports no size (tmpfs without a limit?): give the size");
    const uint64_t free_bytes = *plan.target.free_bytes;
    // Leave a little room for the filesystem's own metadata (extent trees, ...).
    const uint64_t margin = std::max<uint64_t>(uint64_t(1) << 20, free_bytes / 1000);
    const uint64_t avail = free_bytes > margin ? free_bytes - margin : 0;
    plan.host_size = std::min(avail, kMaxDataSize + 2 * kHeaderGroupSize) / 4096 * 4096;
    if (plan.host_size < kMinVolumeSize)
      throw Error(ErrorKind::Io, "not enough free space in " + plan.target.folder + " for the smallest volume (" +
                                     bytes_text(kMinVolumeSize) + "; " + bytes_text(free_bytes) + " available)");
  } else {
    if (opt.size == 0) throw Error(ErrorKind::Usage, "--size is required (e.g. --size 100M, or --size max)");
    plan.host_size = opt.size;
  }
  const uint64_t H = plan.host_size;
  if (H < kMinVolumeSize)
    throw Error(ErrorKind::Usage, "volume size " + bytes_text(H) + " is below the minimum of " +
                                      bytes_text(kMinVolumeSize));
  if (H % ss)
    throw Error(ErrorKind::Usage, "volume size " + bytes_text(H) + " is not a multiple of the sector size (" +
                                      std::to_string(ss) + ")");
  if (H - 2 * kHeaderGroupSize > kMaxDataSize)
    throw Error(ErrorKind::Usage, "volume size above VeraCrypt's maximum (1 PiB of data)");
  plan.data_offset = kDataOffsetV2;
  plan.data_size = H - 2 * kHeaderGroupSize;
  if (!plan.device && plan.target.free_bytes && *plan.target.free_bytes < H)
    throw Error(ErrorKind::Io, "not enough free space in " + plan.target.folder + ": the volume needs " +
                                   bytes_text(H) + ", " + bytes_text(*plan.target.free_bytes) + " are available");
  if ((!opt.quick || !opt.import_path.empty()) && !opt.engine)
    throw Error(ErrorKind::Usage, "internal: no engine for the data fill");
  return plan;
}

namespace {

// The key the data area is encrypted under: the volume's master key for an import, a throw-away key for a fill
// (nobody decrypts it); none for a quick create.
std::shared_ptr<const EngineKey> data_key(const CreateOptions& opt, const LockedBytes& master_key) {
  if (!opt.import_path.empty()) return opt.engine->prepare(opt.chain, master_key.data());
  if (opt.quick) return nullptr;
  const LockedBytes throwaway = new_master_key(opt.chain);
  return opt.engine->prepare(opt.chain, throwaway.data());
}

void write_data(const CreateOptions& opt, const CreatePlan& plan, BlockFile& f,
                const std::shared_ptr<const EngineKey>& key, CreateResult& res) {
  const uint64_t first_unit = plan.data_offset / kDataUnitSize;
  const auto t0 = std::chrono::steady_clock::now();
  if (!opt.import_path.empty()) {
    auto raw = open_file(opt.import_path, OpenMode::ReadOnly);
    if (raw->size() != plan.import_size)
      throw Error(ErrorKind::Io, opt.import_path + ": the raw image changed size while being imported");
    BlockFile& r = *raw;
    const uint64_t rsize = plan.import_size;
    FillOptions fo = opt.fill;
    fo.phase = "import";
    encrypt_to_file(
        f, plan.data_offset, plan.data_size, first_unit, *opt.engine, key,
        [&r, rsize](uint64_t pos, uint8_t* buf, size_t len) {
          size_t have = pos < rsize ? size_t(std::min<uint64_t>(len, rsize - pos)) : 0;
          if (have) r.read_at(pos, buf, have);
          if (have < len) std::memset(buf + have, 0, len - have);
        },
        fo);
    res.fill = "the raw image (" + std::to_string(plan.import_size) + " bytes) + " + std::to_string(plan.padding) +
               " zero bytes of padding, encrypted under the volume's master key";
  } else if (key) {
    encrypt_to_file(
        f, plan.data_offset, plan.data_size, first_unit, *opt.engine, key, PlaintextSource{}, opt.fill);
    res.fill = "zeros, then the ring's own ciphertext, encrypted under a random throw-away key (" +
               std::string(chain_info(opt.chain).name) + ")";
  } else {
    res.fill = plan.device ? "left as it was (quick)" : "not written (quick): reads as zeros on disk";
  }
  res.fill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

CreateResult create_hidden(const CreateOptions& opt, CreatePlan plan) {
  CreateResult res;
  const uint64_t H = plan.host_size;
  if (opt.outer) {
    // Check the outer volume's filesystem so the hidden volume does not overwrite used space.
    auto outer_file = open_file(opt.path, OpenMode::ReadOnly);
    OpenOptions oo = *opt.outer;
    oo.slot = SlotKind::Normal;
    const Credentials& oc = oo.credentials;
    if (oc.password.size() == opt.credentials.password.size() && oc.keyfiles == opt.credentials.keyfiles &&
        std::equal(oc.password.data(), oc.password.data() + oc.password.size(), opt.credentials.password.data()))
      throw Error(ErrorKind::Usage, "the hidden volume's password and keyfiles must differ from the outer volume's "
                                    "(the same credentials would open only one of them)");
    OpenedHeader oh = [&] {
      try {
        return open_header(*outer_file, oo);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::Auth) throw;
        throw Error(ErrorKind::Auth, "the OUTER volume's password, PIM or keyfiles do not open " + opt.path +
                                         " (nothing was written; the hidden volume's password was not used yet)");
      }
    }();
    require_xts_volume(oh, "creating a hidden volume inside an outer volume");
    if (oh.fields.sector_size != opt.sector_size)
      throw Error(ErrorKind::Usage, "the outer volume's sector size is " + std::to_string(oh.fields.sector_size) +
                                        "; the hidden volume must use the same (--sector-size)");
    std::shared_ptr<XtsEngine> eng = opt.engine;
    Volume outer(std::move(outer_file), oh, eng);
    OuterFsInfo fs = scan_outer_filesystem(
        [&outer](uint64_t off, uint8_t* buf, size_t len) { outer.read(off, buf, len); }, outer.size());
    if (!fs.understood)
      throw Error(ErrorKind::Usage,
                  (fs.type == "none" ? std::string("no filesystem that warpvol can analyse was found on the outer volume")
                                     : "the outer volume holds a " + fs.type + " filesystem, whose used space warpvol "
                                       "cannot analyse") +
                      " (it analyses FAT, exFAT, NTFS and ext2/3/4), so it cannot place the hidden volume safely; "
                      "nothing was written. If the outer volume has no filesystem, or you know where its data ends, "
                      "use --trust-size");
    const uint64_t used_end_host = outer.header().data_offset + fs.used_end;
    if (used_end_host > plan.hidden.data_start) {
      const uint64_t max_s = H - kHeaderGroupSize > used_end_host
                                 ? (H - kHeaderGroupSize - used_end_host) / opt.sector_size * opt.sector_size
                                 : 0;
      throw Error(ErrorKind::Usage, "the hidden volume would overwrite used space of the outer " + fs.type +
                                        " filesystem (used up to byte " + std::to_string(used_end_host) +
                                        " of the container, hidden data would start at " +
                                        std::to_string(plan.hidden.data_start) + "); the largest --size that fits is " +
                                        std::to_string(max_s));
    }
    notice(opt, "outer filesystem: " + fs.type + ", used space ends at byte " + std::to_string(used_end_host) +
                    "; hidden data starts at " + std::to_string(plan.hidden.data_start));
  } else {
    notice(opt, "no outer credentials given: the hidden volume takes the last " + std::to_string(opt.size) +
                    " bytes of the outer volume's space without checking the outer filesystem");
  }
  if (opt.fill.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
  LockedBytes pw = header_kdf_password(opt.credentials, VolumeFormat::VeraCrypt);
  LockedBytes mk = new_master_key(opt.chain);
  HeaderFields fields = hidden_volume_fields(plan.hidden, opt.sector_size, opt.chain, mk);
  auto headers = build_headers(fields, opt.chain, plan.kdf, pw, 2);
  if (opt.fill.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
  std::unique_ptr<BlockFile> f = open_file(opt.path, OpenMode::ReadWrite);
  if (opt.wrap_file) f = opt.wrap_file(std::move(f));
  // Replaces the (fake) hidden header pair; the outer volume's headers and data are not touched. The hidden data
  // area is not filled: the outer volume's fill already made it random (docs/format-spec.md §8.3).
  rewrite_header_pair(*f, SlotKind::Hidden, headers[0], headers[1]);
  res.plan = plan;
  res.fill = "not written: the outer volume's random fill is kept (hidden volumes are always quick)";
  return res;
}

}  // namespace

CreateResult create_volume(const CreateOptions& opt) {
  CreatePlan plan = plan_create(opt);
  if (opt.type == CreateType::Hidden) return create_hidden(opt, plan);
  CreateResult res;
  res.plan = plan;
  const uint64_t H = plan.host_size;

  LockedBytes pw = header_kdf_password(opt.credentials, VolumeFormat::VeraCrypt);
  LockedBytes mk = new_master_key(opt.chain);
  HeaderFields fields = normal_volume_fields(H, opt.sector_size, opt.chain, mk);
  const EncryptedHeader fake1 = build_fake_header(opt.chain, H, opt.sector_size);
  const EncryptedHeader fake2 = build_fake_header(opt.chain, H, opt.sector_size);
  // Before the header KDF's threads start: an engine that times itself to choose its path for the job (auto) must
  // not find them on its cores.
  const std::shared_ptr<const EngineKey> key = data_key(opt, mk);
  if (key) opt.engine->plan_job(*key);
  // The header KDF (two headers, different salts, in parallel) does not depend on the fill, so it runs beside it,
  // in the time a core would idle: during reserve() (fallocate allocates the file) and while the engine waits for the
  // disk (docs/perf/design-figures.md, "Create"). Declared after everything it reads: a throwing fill leaves
  // through this future's destructor, which waits for the KDF.
  std::future<std::vector<EncryptedHeader>> kdf =
      std::async(std::launch::async, [&] { return build_headers(fields, opt.chain, plan.kdf, pw, 2); });

  if (plan.device) {
    // A device is overwritten in place: a KDF that fails (Argon2 out of memory) must fail before the first write.
    std::vector<EncryptedHeader> headers = kdf.get();
    if (opt.fill.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
    // Held until the last write: a mount cannot start on the device while it is being overwritten.
    const ContainerLock device_lock(opt.path);
    std::unique_ptr<BlockFile> f = open_file(opt.path, OpenMode::ReadWrite);
    if (opt.wrap_file) f = opt.wrap_file(std::move(f));
    write_header_slot(*f, header_offset(SlotKind::Normal, false, H), headers[0]);
    write_header_slot(*f, header_offset(SlotKind::Hidden, false, H), fake1);
    write_data(opt, plan, *f, key, res);
    write_header_slot(*f, header_offset(SlotKind::Normal, true, H), headers[1]);
    write_header_slot(*f, header_offset(SlotKind::Hidden, true, H), fake2);
    if (opt.fill.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
    f->sync();
    return res;
  }
  // A file is written under a temporary name and renamed into place only at commit(): whatever fails before it,
  // the KDF included, leaves no file behind, so the data can go first and the real headers last.
  AtomicFile out(opt.path, opt.force, opt.wrap_file);
  if (opt.force) out.lock_target();
  const auto t_reserve = std::chrono::steady_clock::now();
  out.reserve(H);  // a full disk or a file-size limit fails here, before the long fill
  res.reserve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_reserve).count();
  BlockFile& f = out.file();
  write_header_slot(f, header_offset(SlotKind::Hidden, false, H), fake1);
  write_data(opt, plan, f, key, res);
  write_header_slot(f, header_offset(SlotKind::Hidden, true, H), fake2);
  std::vector<EncryptedHeader> headers = kdf.get();
  write_header_slot(f, header_offset(SlotKind::Normal, false, H), headers[0]);
  write_header_slot(f, header_offset(SlotKind::Normal, true, H), headers[1]);
  if (opt.fill.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
  out.commit();    // fsync, rename into place, fsync the folder
  return res;
}

}  // namespace warpvol
