// warpvol mount VOLUME [MOUNTPOINT]: serve the plaintext through a FUSE process and mount the filesystem on a loop
// device over it (or print the plaintext device with --filesystem none). The logic is core/mount/mounter.h; this
// file is the command line: options, the passwords (the volume's and, with --protect-hidden, the hidden volume's),
// and the output.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/command.h"
#include "cli/credentials.h"
#include "cli/mount_json.h"
#include "cli/password_input.h"
#include "core/format/header.h"
#include "core/format/header_json.h"
#include "core/mount/mounter.h"
#include "core/util/error.h"

namespace warpvol::cli {
namespace {

// What mount takes from the command line besides the volume and its credentials.
struct MountCommandRequest {
  mount::MountRequest mount;
  bool protect = false;  // --protect-hidden
};

class MountCommand final : public VolumeCommand<MountCommandRequest> {
 public:
  std::string name() const override { return "mount"; }
  std::string summary() const override {
    return "Mount a volume: FUSE plaintext device, loop device and filesystem (or the plaintext device alone)";
  }
  std::string usage() const override {
    return "mount VOLUME [MOUNTPOINT] [--read-only] [--filesystem none|auto|TYPE] [--fs-options OPTS] "
           "[--protect-hidden] [--slot N] [--engine cpu|gpu|auto] [credentials]";
  }
  std::string example() const override {
    return "warpvol mount secret.hc /mnt/secret --password-stdin < pw.txt   (later: warpvol dismount /mnt/secret)";
  }
  bool uses_engine() const override { return true; }
  bool prestarts_engine() const override { return false; }  // the mount daemon is forked
  bool has_json() const override { return true; }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    visible.add_options()
        ("read-only,r", "mount read-only (the container is opened read-only)")
        ("filesystem", po::value<std::string>()->value_name("TYPE")->default_value("auto"),
         "none: only the plaintext device (printed); auto: detect; or ext4, fat, exfat, ntfs, btrfs, xfs, ...")
        ("fs-options", po::value<std::string>()->value_name("OPTS"),
         "filesystem mount options, comma-separated (e.g. noatime,nodev or rw+ for fusefat)")
        ("slot", po::value<int>()->value_name("N"), "use slot N (1-64; default: the lowest free one)")
        ("protect-hidden", "protect the hidden volume inside this outer volume: writes into it fail and the "
                           "mount turns read-only (asks for the hidden volume's password)")
        ("protect-hidden-password-stdin", "read the hidden volume's password from stdin (after the outer one when "
                                          "both come from stdin: one line each)")
        ("protect-hidden-password-fd", po::value<int>()->value_name("N"),
         "read the hidden volume's password from file descriptor N")
        ("protect-hidden-keyfile", po::value<std::vector<std::string>>()->composing()->value_name("PATH"),
         "keyfile of the hidden volume (repeatable)")
        ("protect-hidden-pim", po::value<int>()->value_name("N"), "PIM of the hidden volume");
    hidden.add_options()
        ("volume", po::value<std::string>(), "volume")
        ("mountpoint", po::value<std::string>(), "mount point")
        // For measurements: keep the kernel's page cache on the FUSE file / buffered loop I/O.
        ("no-fuse-direct-io", "FUSE page cache on the plaintext file")
        ("no-loop-direct-io", "buffered loop device I/O");
  }
  void add_positionals(po::positional_options_description& pos) const override {
    pos.add("volume", 1).add("mountpoint", 1);
  }

  MountCommandRequest parse_request(Context& ctx, const po::variables_map& vm, const std::string& path) const override {
    MountCommandRequest request;
    mount::MountRequest& req = request.mount;
    req.volume = path;
    req.read_only = vm.count("read-only") > 0;
    req.filesystem = vm["filesystem"].as<std::string>();
    for (auto& c : req.filesystem) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (req.filesystem.empty()) throw Error(ErrorKind::Usage, "--filesystem needs a value (none, auto or a type)");
    if (vm.count("fs-options")) req.fs_options = vm["fs-options"].as<std::string>();
    if (vm.count("mountpoint")) {
      if (req.filesystem == "none")
        throw Error(ErrorKind::Usage, "--filesystem none mounts no filesystem: drop MOUNTPOINT");
      req.mount_point = vm["mountpoint"].as<std::string>();
    }
    if (vm.count("slot")) {
      req.slot = vm["slot"].as<int>();
      if (req.slot < 1 || req.slot > mount::kMaxSlots)
        throw Error(ErrorKind::Usage, "--slot must be between 1 and " + std::to_string(mount::kMaxSlots));
    }
    req.engine = engine_choice_from(vm);
    req.direct_io = vm.count("no-fuse-direct-io") == 0;
    req.loop_direct_io = vm.count("no-loop-direct-io") == 0;
    req.verbose = [&ctx](const std::string& m) { ctx.verbose_line(m); };
    req.notice = [&ctx](const std::string& m) { ctx.message(m); };
    const bool protect = request.protect = vm.count("protect-hidden") > 0;
    const bool protect_opts = vm.count("protect-hidden-password-stdin") || vm.count("protect-hidden-password-fd") ||
                              vm.count("protect-hidden-keyfile") || vm.count("protect-hidden-pim");
    if (protect_opts && !protect)
      throw Error(ErrorKind::Usage, "the --protect-hidden-* options need --protect-hidden");
    if (protect && vm.count("hidden"))
      throw Error(ErrorKind::Usage, "--protect-hidden protects a hidden volume while its outer volume is mounted; "
                                    "it cannot be combined with --hidden");
    if (protect && vm.count("protect-hidden-password-stdin") && vm.count("protect-hidden-password-fd"))
      throw Error(ErrorKind::Usage, "give the hidden volume's password one way");
    if (req.filesystem != "none" && !mount::have_mount_privilege())
      throw Error(ErrorKind::Usage,
                  "mounting a filesystem needs root: loop devices and mount(2) require CAP_SYS_ADMIN, which this "
                  "process lacks (run it with sudo, or use --filesystem none to get only the plaintext device)");
    return request;
  }

  int execute_with_volume(Context& ctx, const po::variables_map& vm, const std::string& path,
                          std::unique_ptr<BlockFile> checked, MountCommandRequest& request) const override {
    checked.reset();  // the header is read through the descriptor the FUSE process gets, below
    mount::MountRequest& req = request.mount;
    const bool protect = request.protect;
    int fd = ::open(path.c_str(), (req.read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
    if (fd < 0) {
      const int e = errno;
      if (!req.read_only && (e == EROFS || e == EACCES))
        throw Error(ErrorKind::Io, path + ": cannot open for writing (" + std::strerror(e) + "); use --read-only");
      throw_errno("cannot open " + path, e);
    }
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    // The header is read from the very file the FUSE process will serve.
    const std::string fd_path = "/proc/self/fd/" + std::to_string(fd);
    auto file = open_file(fd_path, OpenMode::ReadOnly);
    // Messages about the header (e.g. "half re-encrypted: run warpvol reencrypt --resume on it") name the
    // container the user gave, not the descriptor path it was read through.
    auto open_named = [&](const OpenOptions& o) {
      try {
        return open_header(*file, o);
      } catch (const Error& e) {
        std::string m = e.what();
        for (size_t at; (at = m.find(fd_path)) != std::string::npos;) m.replace(at, fd_path.size(), path);
        throw Error(e.kind(), m);
      }
    };

    OpenOptions opt = open_options_from(vm, path, ctx);
    OpenedHeader h = open_named(opt);
    if (h.read_only && !req.read_only) {
      // An unfinished system encryption (its notice said so): read-only, as VeraCrypt mounts it.
      req.read_only = true;
      ctx.message("mounting read-only");
    }
    if (h.legacy && !req.read_only) {
      // Writing through LRW/CBC would keep data in modes nobody else reads any more: migrate instead.
      req.read_only = true;
      ctx.message("mounting read-only: to change this volume's data, migrate it into a VeraCrypt volume first ('warpvol reencrypt --new-encryption aes' in place, or 'warpvol export' + 'warpvol import')");
    }
    ctx.verbose_line("opened the " + std::string(slot_kind_name(h.slot)) + " volume: data area " +
                     std::to_string(h.data_size) + " bytes at offset " + std::to_string(h.data_offset));

    if (protect) {
      if (h.slot == SlotKind::Hidden || h.slot == SlotKind::LegacyHidden)
        throw Error(ErrorKind::Usage, "the password opened the hidden volume itself: --protect-hidden needs the outer "
                                      "volume's password (and the hidden volume's for protection)");
      OpenOptions popt = protection_options(vm, path, ctx, opt);
      OpenedHeader hh = [&] {
        try {
          return open_named(popt);
        } catch (const Error& e) {
          if (e.kind() == ErrorKind::Auth)
            throw Error(ErrorKind::Auth, "hidden volume protection: the protection password, PIM or keyfiles do not "
                                         "open a hidden volume in " + path);
          throw;
        }
      }();
      const uint64_t hsize = std::max<uint64_t>(hh.data_size, hh.fields.hidden_volume_size);
      req.protect_hidden = true;
      req.protect_start = hh.data_offset;
      req.protect_end = hh.data_offset + hsize;
      ctx.verbose_line("protecting the hidden volume: container bytes [" + std::to_string(req.protect_start) + ", " +
                       std::to_string(req.protect_end) + ")");
    }

    req.header_info = header_json(h, path).dump();
    mount::MountRecord rec = mount::mount_volume(req, fd, h);
    if (ctx.json) {
      ctx.out << mount_record_json(rec).dump(2) << std::endl;
    } else if (rec.mount_point.empty()) {
      ctx.out << rec.plaintext_device << std::endl;
      ctx.message("slot " + std::to_string(rec.slot) + ": plaintext device of " + rec.volume + " is " +
                  rec.plaintext_device + " (dismount with: warpvol dismount --slot " + std::to_string(rec.slot) + ")");
    } else {
      ctx.out << "Mounted " << rec.volume << " at " << rec.mount_point << " (slot " << rec.slot << ", "
              << rec.filesystem
              << (rec.loop_device.empty() ? (rec.mount_helper.empty() ? "" : " via " + rec.mount_helper)
                                          : " on " + rec.loop_device)
              << (rec.read_only ? ", read-only" : "") << (rec.protect_hidden ? ", hidden volume protected" : "")
              << ")" << std::endl;
    }
    return 0;
  }

 private:
  static OpenOptions protection_options(const po::variables_map& vm, const std::string& path, const Context& ctx,
                                        const OpenOptions& outer) {
    OpenOptions o;
    o.slot = SlotKind::Hidden;
    o.format = outer.format;
    o.notice = outer.notice;
    if (vm.count("protect-hidden-pim")) {
      int pim = vm["protect-hidden-pim"].as<int>();
      if (pim < 0 || pim > kMaxPim) throw Error(ErrorKind::Usage, "PIM must be between 0 and " + std::to_string(kMaxPim));
      o.credentials.pim = pim;
    }
    if (vm.count("protect-hidden-keyfile"))
      o.credentials.keyfiles = vm["protect-hidden-keyfile"].as<std::vector<std::string>>();
    const size_t max_len = outer.format == VolumeFormat::TrueCrypt ? kMaxTrueCryptPasswordBytes : kMaxPasswordBytes;
    // One source was checked before the volume was opened (there is no --protect-hidden-password).
    if (auto pw = password_from_options(vm, "protect-hidden-", max_len, ctx)) {
      o.credentials.password = std::move(*pw);
    } else if (!vm.count("non-interactive") && ::isatty(STDIN_FILENO)) {
      o.credentials.password =
          prompt_password(ctx, "Enter the hidden volume's password (to protect it) for " + path, max_len);
    } else if (o.credentials.keyfiles.empty()) {
      throw Error(ErrorKind::Usage, "--protect-hidden needs the hidden volume's password: "
                                    "--protect-hidden-password-stdin, --protect-hidden-password-fd N or "
                                    "--protect-hidden-keyfile");
    }
    if (o.credentials.password.empty() && o.credentials.keyfiles.empty())
      throw Error(ErrorKind::Usage, "empty hidden-volume password: give a password or a keyfile");
    return o;
  }
};

}  // namespace

std::unique_ptr<Command> make_mount_command() { return std::make_unique<MountCommand>(); }

}  // namespace warpvol::cli
