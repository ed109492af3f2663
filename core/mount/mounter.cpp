#include "core/mount/mounter.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <thread>

#include "core/crypto/chain.h"
#include "core/kdf/prf.h"
#include "core/mount/daemon_status.h"
#include "core/mount/loop_device.h"
#include "core/mount/mount_spec.h"
#include "core/util/error.h"

extern char** environ;

namespace warpvol::mount {

namespace fs = std::filesystem;

namespace {

constexpr auto kDaemonStartTimeout = std::chrono::seconds(120);
constexpr auto kDaemonExitTimeout = std::chrono::seconds(120);

void say(const Notify& n, const std::string& m) {
  if (n) n(m);
}

std::string unescape_mountinfo(const std::string& s) {
  std::string o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string oct = s.substr(i + 1, 3);
      if (oct.size() == 3 && oct.find_first_not_of("01234567") == std::string::npos) {
        o.push_back(char(std::stoi(oct, nullptr, 8)));
        i += 3;
        continue;
      }
    }
    o.push_back(s[i]);
  }
  return o;
}

// The lines of /proc/self/mountinfo; none when it cannot be read.
std::vector<std::string> mountinfo_lines() {
  std::vector<std::string> lines;
  std::optional<std::string> t;
  try {
    t = read_small_file("/proc/self/mountinfo");
  } catch (const Error&) {
    return lines;
  }
  if (!t) return lines;
  std::istringstream in(*t);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> mount_points() {
  std::vector<std::string> v;
  for (const std::string& line : mountinfo_lines()) {
    std::istringstream ls(line);
    std::string id, parent, devno, root, mp;
    if (ls >> id >> parent >> devno >> root >> mp) v.push_back(unescape_mountinfo(mp));
  }
  return v;
}

// Mount points that are read-only, per mountinfo: the per-mount options (field 6) or the filesystem's own options
// (after the " - " separator) say "ro". A FUSE helper that only reads (fusefat without rw+) shows up here although
// the volume itself was mounted read-write.
std::vector<std::string> read_only_mount_points() {
  std::vector<std::string> v;
  auto has_ro = [](const std::string& opts) {
    std::istringstream os(opts);
    std::string o;
    while (std::getline(os, o, ','))
      if (o == "ro") return true;
    return false;
  };
  for (const std::string& line : mountinfo_lines()) {
    std::istringstream ls(line);
    std::string id, parent, devno, root, mp, mount_opts, field;
    if (!(ls >> id >> parent >> devno >> root >> mp >> mount_opts)) continue;
    bool ro = has_ro(mount_opts);
    while (ls >> field && field != "-") {
    }
    std::string fstype, source, super_opts;
    if (ls >> fstype >> source >> super_opts) ro = ro || has_ro(super_opts);
    if (ro) v.push_back(unescape_mountinfo(mp));
  }
  return v;
}

// Absolute, normalised path without touching the filesystem beyond what exists (a dead FUSE mount must not hang
// or fail us).
std::string absolute_path(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  if (ec) return p;
  fs::path c = fs::weakly_canonical(a, ec);
  if (ec) return a.lexically_normal().string();
  std::string s = c.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

bool wait_process_exit(int pid, uint64_t start, std::chrono::steady_clock::duration timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  int pidfd = int(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0 && process_alive(pid, start)) {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      struct pollfd p {pidfd, POLLIN, 0};
      int r = ::poll(&p, 1, int(std::min<int64_t>(left.count(), 1000)));
      if (r > 0) break;
      if (r < 0 && errno != EINTR) break;
    }
    ::close(pidfd);
  } else if (pidfd >= 0) {
    ::close(pidfd);
  }
  // Our own child (mount failure paths): reap it. Otherwise poll /proc.
  while (std::chrono::steady_clock::now() < until) {
    int st;
    if (::waitpid(pid, &st, WNOHANG) == pid) return true;
    if (!process_alive(pid, start)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !process_alive(pid, start);
}

std::string errno_text(int e) { return std::strerror(e); }

// mkdir -p, recording what was created (outermost first).
void make_dirs(const std::string& path, std::vector<std::string>& created) {
  fs::path p(path);
  std::vector<fs::path> missing;
  for (fs::path q = p; !q.empty() && q != q.root_path(); q = q.parent_path()) {
    struct stat st;
    if (::stat(q.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) throw Error(ErrorKind::Usage, q.string() + ": not a folder");
      break;
    }
    if (errno != ENOENT) throw_errno(q.string());
    missing.push_back(q);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0755) != 0 && errno != EEXIST) throw_errno("cannot create " + it->string());
    created.push_back(it->string());
  }
}

struct Daemon {
  int pid = 0;
  uint64_t start = 0;
  std::string engine;
};

// Starts warpvol-mountd with the spec; returns once it reports the FUSE mount ready.
Daemon start_daemon(const MountSpec& spec, int container_fd, const std::string& log_path) {
  const std::string prog = mountd_path();
  int spec_pipe[2], status_pipe[2];
  if (::pipe2(spec_pipe, O_CLOEXEC) != 0) throw_errno("pipe");
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
    int e = errno;
    ::close(spec_pipe[0]);
    ::close(spec_pipe[1]);
    throw_errno("pipe", e);
  }
  // Move what the child inherits above the target numbers, so no dup2 source is also a target.
  int src_container = ::fcntl(container_fd, F_DUPFD_CLOEXEC, 10);
  int src_spec = ::fcntl(spec_pipe[0], F_DUPFD_CLOEXEC, 10);
  int src_status = ::fcntl(status_pipe[1], F_DUPFD_CLOEXEC, 10);
  ::close(spec_pipe[0]);
  ::close(status_pipe[1]);
  int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  auto close_all = [&] {
    for (int fd : {src_container, src_spec, src_status, log_fd})
      if (fd >= 0) ::close(fd);
  };
  if (src_container < 0 || src_spec < 0 || src_status < 0 || log_fd < 0) {
    int e = errno;
    close_all();
    ::close(spec_pipe[1]);
    ::close(status_pipe[0]);
    throw_errno("cannot prepare the FUSE process", e);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, log_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, log_fd, 2);
  posix_spawn_file_actions_adddup2(&fa, src_container, 3);
  posix_spawn_file_actions_adddup2(&fa, src_spec, 4);
  posix_spawn_file_actions_adddup2(&fa, src_status, 5);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> args{prog, "--container-fd", "3", "--spec-fd", "4", "--status-fd", "5"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, prog.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close_all();
  if (rc != 0) {
    ::close(spec_pipe[1]);
    ::close(status_pipe[0]);
    throw_errno("cannot start " + prog, rc);
  }
  Daemon d;
  d.pid = pid;
  try {
    write_spec(spec_pipe[1], spec);
  } catch (...) {
    ::close(spec_pipe[1]);
    ::close(status_pipe[0]);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    throw;
  }
  ::close(spec_pipe[1]);

  std::string status;
  const auto until = std::chrono::steady_clock::now() + kDaemonStartTimeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    struct pollfd p {status_pipe[0], POLLIN, 0};
    int r = ::poll(&p, 1, int(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    char buf[512];
    ssize_t n = ::read(status_pipe[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    status.append(buf, size_t(n));
    if (status.find('\n') != std::string::npos) break;
  }
  ::close(status_pipe[0]);
  if (auto engine = engine_from_ready_line(status)) {
    d.engine = *engine;
    d.start = process_start_time(pid);
    return d;
  }
  // Failed: collect it and report its reason.
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  if (auto error = error_from_status_line(status)) throw *error;
  std::string log;
  try {
    log = read_small_file(log_path).value_or("");
  } catch (const Error&) {
  }
  while (!log.empty() && log.back() == '\n') log.pop_back();
  const size_t nl = log.find_last_of('\n');
  throw Error(ErrorKind::Io, "the FUSE process (" + prog + ") did not start" +
                                 (log.empty() ? std::string() : ": " + log.substr(nl == std::string::npos ? 0 : nl + 1)));
}

std::string chain_name(ChainId c) { return std::string(chain_info(c).name); }

std::string prf_name(const KdfChoice& k) {
  if (k.prf == PrfId::Argon2id) return "Argon2id";
  return "HMAC-" + std::string(prf_info(k.prf).name);
}

std::string slot_type(const OpenedHeader& h) { return std::string(slot_kind_name(h.slot)); }

MountSpec spec_for(const OpenedHeader& h, const Registry& reg, int slot, const std::string& container, bool ro,
                   bool direct_io, EngineChoice engine) {
  MountSpec s;
  s.slot = slot;
  s.container = container;
  s.aux_dir = reg.aux_dir(slot);
  s.state_file = reg.state_path(slot);
  s.read_only = ro;
  s.direct_io = direct_io;
  s.engine = engine;
  s.chain = h.chain;
  s.legacy = h.legacy;
  s.key_material = LockedBytes(h.fields.key_area.data(), h.fields.key_area.size());
  s.data_offset = h.data_offset;
  s.data_size = h.data_size;
  s.first_unit = h.first_unit;
  s.encrypted_begin = h.encrypted_begin;
  s.encrypted_end = h.encrypted_end;
  s.sector_size = h.fields.sector_size;
  s.uid = ::getuid();
  s.gid = ::getgid();
  return s;
}

void check_mountable_header(const OpenedHeader& h) {
  // A system partition mounts like any volume: the spec carries its layout (data offset, size, first data unit
  // and, for an encryption that did not finish, the encrypted part).
  if (h.slot != SlotKind::System && (h.fields.flags & kFlagSystem))
    throw Error(ErrorKind::Format, "a system-encryption header in a normal volume's header slot: open the drive "
                                   "with --system");
  if (h.fields.flags & kFlagInPlace)
    throw Error(ErrorKind::Format, "the volume is only partially encrypted (in-place encryption not finished)");
  if (h.data_size == 0) throw Error(ErrorKind::Format, "the volume has no data area");
}

// TrueCrypt's legacy modes are served read-only (writes would keep data in modes nobody else reads any more), and so
// is an unfinished system encryption.
void check_read_only_volume(const OpenedHeader& h, bool read_only) {
  // Half ciphertext, half plaintext as it lies: VeraCrypt mounts an unfinished system encryption read-only too.
  if (h.read_only && !read_only)
    throw Error(ErrorKind::Usage, "the system encryption did not finish (" +
                                      std::to_string(h.fields.encrypted_area_length) + " of " +
                                      std::to_string(h.fields.volume_size) +
                                      " bytes encrypted): it mounts read-only only (--read-only)");
  if (h.legacy && !read_only)
    throw Error(ErrorKind::Usage, "a TrueCrypt volume from before 5.0 (" + h.legacy->name() +
                                      ") mounts read-only only (--read-only); 'warpvol export' + 'warpvol import' move its data into a VeraCrypt volume");
}

}  // namespace

bool have_mount_privilege() {
  try {
    auto t = read_small_file("/proc/self/status");
    if (!t) return ::geteuid() == 0;
    std::istringstream in(*t);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("CapEff:", 0) == 0) {
        unsigned long long caps = std::stoull(line.substr(7), nullptr, 16);
        return (caps >> 21) & 1;  // CAP_SYS_ADMIN
      }
    }
  } catch (...) {
  }
  return ::geteuid() == 0;
}

bool fuse_user_allow_other(const std::string& conf) {
  std::optional<std::string> text;
  try {
    text = read_small_file(conf);
  } catch (...) {
    return false;
  }
  if (!text) return false;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    const auto b = line.find_first_not_of(" \t"), e = line.find_last_not_of(" \t\r");
    if (b != std::string::npos && line.substr(b, e - b + 1) == "user_allow_other") return true;
  }
  return false;
}

std::string mountd_path() {
  if (const char* e = std::getenv("WARPVOL_MOUNTD"); e && *e) {
    if (::access(e, X_OK) != 0) throw Error(ErrorKind::Io, std::string("WARPVOL_MOUNTD=") + e + ": not executable");
    return e;
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& c : {self.parent_path() / "warpvol-mountd",
                              self.parent_path().parent_path() / "libexec" / "warpvol" / "warpvol-mountd"})
      if (::access(c.c_str(), X_OK) == 0) return c.string();
  }
  std::string p = find_program("warpvol-mountd");
  if (!p.empty()) return p;
  throw Error(ErrorKind::Io, "warpvol-mountd (the FUSE process) not found next to " + self.string() +
                                 " nor in PATH (set WARPVOL_MOUNTD)");
}

bool is_mount_point(const std::string& path) {
  const std::string a = absolute_path(path);
  for (const auto& m : mount_points())
    if (m == a) return true;
  return false;
}

MountRecord mount_volume(const MountRequest& req, int container_fd, const OpenedHeader& h) {
  check_mountable_header(h);
  check_read_only_volume(h, req.read_only);
  const std::string volume = absolute_path(req.volume);
  struct stat vst;
  if (::fstat(container_fd, &vst) != 0) throw_errno(volume);

  // Everything that can be refused is refused before anything starts.
  std::string fstype;
  const bool no_fs = req.filesystem == "none";
  if (!no_fs && req.filesystem != "auto") fstype = kernel_fs_type(req.filesystem);
  if (!no_fs && !have_mount_privilege())
    throw Error(ErrorKind::Usage,
                "mounting a filesystem needs root: loop devices and mount(2) require CAP_SYS_ADMIN, which this "
                "process lacks (run it with sudo, or use --filesystem none to get only the plaintext device through "
                "FUSE)");
  if (req.allow_root_access && !have_mount_privilege() && !fuse_user_allow_other())
    throw Error(ErrorKind::Usage,
                "/etc/fuse.conf has no user_allow_other line: without it the FUSE plaintext device of a normal user "
                "is closed to root, so the loop device that udisks2 attaches as root would be empty (add the line "
                "user_allow_other to /etc/fuse.conf)");
  if (!fstype.empty() && !kernel_has_filesystem(fstype) && !fuse_helper_for(fstype))
    throw Error(ErrorKind::Usage, "this kernel has no " + fstype + " driver (not in /proc/filesystems) and no FUSE "
                                  "helper for it is installed; use --filesystem none and the tools of your choice");
  std::string mount_point;
  if (!no_fs && !req.mount_point.empty()) {
    mount_point = absolute_path(req.mount_point);
    struct stat st;
    if (::stat(mount_point.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) throw Error(ErrorKind::Usage, mount_point + ": not a folder");
      if (is_mount_point(mount_point)) throw Error(ErrorKind::Busy, mount_point + ": something is already mounted there");
    } else if (errno != ENOENT) {
      throw_errno(mount_point);
    }
  }

  Registry reg;
  MountRecord rec;
  rec.owner_pid = ::getpid();
  rec.volume = volume;
  rec.volume_dev = uint64_t(vst.st_dev);
  rec.volume_ino = uint64_t(vst.st_ino);
  rec.read_only = req.read_only;
  rec.protect_hidden = req.protect_hidden;
  rec.protected_start = req.protect_start;
  rec.protected_end = req.protect_end;
  rec.volume_type = slot_type(h);
  rec.format = h.format == VolumeFormat::TrueCrypt ? "TrueCrypt" : "VeraCrypt";
  rec.chain = h.legacy ? h.legacy->name() : chain_name(h.chain);
  rec.prf = prf_name(h.kdf);
  rec.size = h.data_size;
  rec.uid = ::getuid();
  rec.header_info = req.header_info;
  {
    auto lock = reg.lock();
    for (const auto& r : reg.load_all()) {
      if (r.volume_dev == rec.volume_dev && r.volume_ino == rec.volume_ino)
        throw Error(ErrorKind::Busy, volume + " is already mounted (slot " + std::to_string(r.slot) + ")");
    }
    rec.slot = reg.reserve(req.slot, rec);
  }
  rec.aux_dir = reg.aux_dir(rec.slot);
  rec.plaintext_device = rec.aux_dir + "/volume";

  try {
    // FUSE process.
    make_dirs(rec.aux_dir, rec.created_dirs);
    reg.save(rec);
    MountSpec spec = spec_for(h, reg, rec.slot, volume, req.read_only, req.direct_io, req.engine);
    spec.protect = req.protect_hidden;
    spec.protect_start = req.protect_start;
    spec.protect_end = req.protect_end;
    spec.allow_other = req.allow_root_access;
    say(req.verbose, "starting the FUSE process for slot " + std::to_string(rec.slot) + " at " + rec.aux_dir);
    Daemon d = start_daemon(spec, container_fd, reg.log_path(rec.slot));
    rec.pid = d.pid;
    rec.pid_start = d.start;
    rec.engine = d.engine;
    reg.save(rec);
    say(req.verbose, "plaintext device " + rec.plaintext_device + " served by pid " + std::to_string(d.pid) +
                         " (engine " + d.engine + ")");

    if (!no_fs) {
      if (fstype.empty()) {
        const std::string found = probe_filesystem(rec.plaintext_device);
        if (found.empty())
          throw Error(ErrorKind::Format, "no filesystem recognised on the volume (wrong volume, hidden volume "
                                         "not formatted yet?); use --filesystem none to get the plaintext device, "
                                         "or --filesystem TYPE");
        fstype = kernel_fs_type(found);
        say(req.verbose, "filesystem detected: " + fstype);
      }
      if (mount_point.empty()) mount_point = default_mount_root() + "/slot" + std::to_string(rec.slot);
      if (is_mount_point(mount_point)) throw Error(ErrorKind::Busy, mount_point + ": something is already mounted there");
      make_dirs(mount_point, rec.created_dirs);
      rec.mount_point = mount_point;
      reg.save(rec);
      MountFlags mf = parse_fs_options(req.fs_options, req.read_only);
      if (kernel_has_filesystem(fstype)) {
        LoopDevice loop = LoopDevice::attach(rec.plaintext_device, req.read_only, h.fields.sector_size,
                                             req.loop_direct_io);
        rec.loop_device = loop.path();
        reg.save(rec);
        say(req.verbose, "loop device " + loop.path() + " attached to " + rec.plaintext_device);
        if (::mount(loop.path().c_str(), mount_point.c_str(), fstype.c_str(), mf.flags,
                    mf.data.empty() ? nullptr : mf.data.c_str()) != 0) {
          const int e = errno;
          std::string why = errno_text(e);
          if (e == EINVAL) why += " (not a valid " + fstype + " filesystem, or a bad mount option; see dmesg)";
          throw Error(e == EBUSY ? ErrorKind::Busy : ErrorKind::Io,
                      "cannot mount " + fstype + " from " + loop.path() + " at " + mount_point + ": " + why);
        }
        loop.release();  // the mount holds the device now; autoclear detaches it on unmount
      } else {
        auto helper = fuse_helper_for(fstype);
        if (!helper) throw Error(ErrorKind::Usage, "this kernel has no " + fstype + " driver and no FUSE helper is installed");
        std::string opts = mf.data;
        if (helper->name == "fusefat" && !req.read_only && opts.find("rw+") == std::string::npos)
          say(req.notice, "this kernel has no vfat driver: mounting through fusefat, read-only (its write support "
                          "is experimental: add --fs-options rw+ to enable it)");
        say(req.verbose, "mounting " + fstype + " with the FUSE helper " + helper->program);
        // exfat-fuse started by root mounts with FUSE's blkdev option, which refuses a regular file ("Block device
        // required"): it gets a loop device over the plaintext file, detached (autoclear) when the helper exits.
        std::optional<LoopDevice> helper_loop;
        std::string device = rec.plaintext_device;
        if (helper->name.find("exfat-fuse") != std::string::npos && ::geteuid() == 0) {
          helper_loop.emplace(LoopDevice::attach(rec.plaintext_device, req.read_only, h.fields.sector_size,
                                                 req.loop_direct_io));
          rec.loop_device = helper_loop->path();
          reg.save(rec);
          device = helper_loop->path();
        }
        std::string out;
        int rc = run_program(helper->argv(device, mount_point, mf.read_only, opts), &out);
        if (rc == 0 && helper_loop) helper_loop->release();
        if (rc != 0) {
          while (!out.empty() && out.back() == '\n') out.pop_back();
          throw Error(ErrorKind::Io, helper->name + " could not mount " + fstype + " at " + mount_point + " (exit " +
                                         std::to_string(rc) + ")" + (out.empty() ? "" : ": " + out));
        }
        rec.mount_helper = helper->name;
      }
      rec.filesystem = fstype;
    }
    rec.state = "mounted";
    rec.owner_pid = 0;
    rec.mounted_at = int64_t(std::time(nullptr));
    reg.save(rec);
    return rec;
  } catch (...) {
    try {
      dismount(reg, rec, true);
    } catch (...) {
      // Best effort: the original error matters more.
    }
    throw;
  }
}

std::string MountStatus::status() const {
  if (record.state == "mounting") return process_alive(record.owner_pid, 0) ? "mounting" : "incomplete (mount interrupted)";
  if (record.state == "detached") return fuse_alive ? "detached (closes when its last user goes)" : "closed";
  if (!fuse_alive) return "FUSE process dead";
  if (!record.mount_point.empty() && !mount_point_mounted) return "filesystem not mounted";
  return "mounted";
}

std::vector<MountStatus> list_mounts(const Registry& reg) {
  std::vector<MountStatus> v;
  const auto mps = mount_points();
  const auto ro_mps = read_only_mount_points();
  for (auto& r : reg.load_all()) {
    MountStatus s;
    s.fuse_alive = r.pid > 0 && process_alive(r.pid, r.pid_start);
    if (r.state == "detached" && !s.fuse_alive) {
      // A lazily detached slot whose FUSE process has finished: it closed. The process removes its record itself,
      // but it may have looked before dismount marked the record detached; whoever sees it gone cleans up.
      try {
        auto lock = reg.lock();
        reg.remove(r.slot);
      } catch (const std::exception&) {
        // Not ours to remove (another user's registry): it is still closed, so not listed.
      }
      continue;
    }
    s.daemon = read_daemon_state(reg.state_path(r.slot));
    for (const auto& m : mps)
      if (!r.mount_point.empty() && m == r.mount_point) s.mount_point_mounted = true;
    for (const auto& m : ro_mps)
      if (!r.mount_point.empty() && m == r.mount_point) s.filesystem_read_only = true;
    s.record = std::move(r);
    v.push_back(std::move(s));
  }
  return v;
}

std::vector<MountRecord> find_mounts(const Registry& reg, const std::string& target) {
  const std::string a = absolute_path(target);
  struct stat st;
  const bool have_st = ::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  std::vector<MountRecord> v;
  for (auto& r : reg.load_all()) {
    if (a == r.volume || a == r.mount_point || a == r.plaintext_device || a == r.aux_dir ||
        (!r.loop_device.empty() && a == r.loop_device) ||
        (have_st && uint64_t(st.st_dev) == r.volume_dev && uint64_t(st.st_ino) == r.volume_ino))
      v.push_back(std::move(r));
  }
  return v;
}

DismountResult dismount(const Registry& reg, const MountRecord& rec_in, bool force) {
  MountRecord rec = rec_in;
  DismountResult res;
  const bool alive = rec.pid > 0 && process_alive(rec.pid, rec.pid_start);
  if (rec.state == "mounting" && process_alive(rec.owner_pid, 0) && rec.owner_pid != ::getpid())
    throw Error(ErrorKind::Busy, "slot " + std::to_string(rec.slot) + " is being mounted right now (pid " +
                                     std::to_string(rec.owner_pid) + ")");

  // The FUSE process writes to the file it opened at mount time; if the path now names another file (a create
  // --force or a copy replaced it), everything written through the mount is in the old, unlinked file.
  if (rec.volume_ino != 0) {
    struct stat cur;
    if (::stat(rec.volume.c_str(), &cur) != 0)
      res.warnings.push_back("warning: " + rec.volume + " was removed while mounted: what was written through the "
                             "mount went to the deleted file and is lost after this dismount");
    else if (uint64_t(cur.st_dev) != rec.volume_dev || uint64_t(cur.st_ino) != rec.volume_ino)
      res.warnings.push_back("warning: " + rec.volume + " was replaced by another file while mounted: what was "
                             "written through the mount went to the old file and is lost after this dismount");
  }

  // 1. The filesystem.
  if (rec.mount_helper == "udisks2" && !have_mount_privilege() && is_mount_point(rec.mount_point))
    throw Error(ErrorKind::Usage, "slot " + std::to_string(rec.slot) + " was mounted through udisks2 (by "
                                  "warpvol-gui): dismount it there, or run: udisksctl unmount -b " + rec.loop_device +
                                  " && udisksctl loop-delete -b " + rec.loop_device + ", then dismount again");
  if (!rec.mount_point.empty() && is_mount_point(rec.mount_point)) {
    if (::umount2(rec.mount_point.c_str(), force ? MNT_DETACH : 0) != 0) {
      const int e = errno;
      if (e == EBUSY)
        throw Error(ErrorKind::Busy, rec.mount_point + " is busy: a process has files open there or uses it as its "
                                     "folder (find them with: fuser -vm " + rec.mount_point +
                                     "); close them, or use --force for a lazy unmount");
      if (e == EPERM)
        throw Error(ErrorKind::Usage, "cannot unmount " + rec.mount_point + ": unmounting needs root (CAP_SYS_ADMIN)");
      throw_errno("cannot unmount " + rec.mount_point, e);
    }
    if (force) res.lazy = true;  // a lazy unmount may leave the filesystem (and its loop device) in use
  }

  // 2. The loop device (autoclear detaches it when the filesystem let go of it).
  if (!rec.loop_device.empty()) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(res.lazy ? 1 : 10);
    while (loop_backing_file(rec.loop_device) == rec.plaintext_device && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (loop_backing_file(rec.loop_device) == rec.plaintext_device) {
      if (!detach_loop(rec.loop_device)) {
        if (!force)
          throw Error(ErrorKind::Busy, "loop device " + rec.loop_device + " (over " + rec.plaintext_device +
                                       ") is still in use; close what uses it, or use --force");
        res.lazy = true;  // autoclear detaches it on last close
      }
    }
  }

  // 3. The FUSE process: unmounting its folder ends it; it fsyncs the container and reports.
  bool fuse_lazy = false;
  if (!rec.aux_dir.empty() && is_mount_point(rec.aux_dir)) {
    int rc = ::umount2(rec.aux_dir.c_str(), alive ? 0 : MNT_DETACH);
    // A FUSE filesystem on top (fusefat, ntfs-3g) closes the plaintext file only when its own process exits, which
    // happens a moment after its umount2() returned: give it the same grace as the loop device above.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(res.lazy ? 1 : 10);
    while (rc != 0 && errno == EBUSY && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      rc = ::umount2(rec.aux_dir.c_str(), alive ? 0 : MNT_DETACH);
    }
    if (rc != 0 && errno == EBUSY) {
      if (!force && !res.lazy)
        throw Error(ErrorKind::Busy, "the plaintext device " + rec.plaintext_device + " is in use (a loop device or "
                                     "a program has it open: see losetup -j " + rec.plaintext_device +
                                     " and fuser -v " + rec.plaintext_device + "); close it, or use --force");
      rc = ::umount2(rec.aux_dir.c_str(), MNT_DETACH);
      fuse_lazy = true;
    }
    if (rc != 0 && errno != EINVAL && errno != ENOENT) {
      // A non-root user's FUSE mount: fusermount3 does it.
      std::string fm = find_program("fusermount3");
      std::string out;
      if (fm.empty() || run_program({fm, "-u", "-z", rec.aux_dir}, &out) != 0)
        throw_errno("cannot unmount " + rec.aux_dir);
    }
  }
  if (fuse_lazy) res.lazy = true;

  if (alive && !res.lazy) {
    if (!wait_process_exit(rec.pid, rec.pid_start, kDaemonExitTimeout))
      throw Error(ErrorKind::Busy, "the FUSE process " + std::to_string(rec.pid) + " did not exit after its "
                                   "unmount; try again later");
    const DaemonState st = read_daemon_state(reg.state_path(rec.slot));
    res.final_state = st;
    res.protection_triggered = st.protection_triggered;
    if (st.closed.rfind("error", 0) == 0)
      throw Error(ErrorKind::Io, "closing " + rec.volume + " failed (" + st.closed + "): the container may not be "
                                 "up to date");
    if (st.closed != "ok")
      res.warnings.push_back("the FUSE process exited without confirming the final flush of " + rec.volume);
  } else if (!alive && rec.pid > 0) {
    res.warnings.push_back("the FUSE process (pid " + std::to_string(rec.pid) + ") of slot " +
                           std::to_string(rec.slot) + " had died: writes it had not completed are lost; cleaned up");
  }

  // The FUSE process records a refused write in its state file as it happens; a lazily detached or dead one may not
  // have written a final state, so the file is read again here in every case.
  if (rec.protect_hidden) {
    res.protection_triggered = res.protection_triggered || read_daemon_state(reg.state_path(rec.slot)).protection_triggered;
    if (res.protection_triggered)
      res.warnings.push_back("hidden volume protection was TRIGGERED on slot " + std::to_string(rec.slot) + " (" +
                             rec.volume + "): a write into the hidden volume was refused and every write after it "
                             "failed; damage to the hidden volume was prevented, but data written to the outer "
                             "volume since then was not saved");
  }

  // 4. Folders we created, deepest first, and the record.
  for (auto it = rec.created_dirs.rbegin(); it != rec.created_dirs.rend(); ++it) {
    // A parent folder we created (e.g. /media/warpvol) may hold other slots' mount points: keep it quietly.
    if (::rmdir(it->c_str()) != 0 && errno != ENOENT && !(errno == ENOTEMPTY && it != rec.created_dirs.rbegin()))
      res.warnings.push_back("left the folder " + *it + " in place: " + errno_text(errno));
  }
  if (res.lazy && alive) {
    // The FUSE process serves until its last user goes; it removes the record itself then.
    rec.state = "detached";
    rec.created_dirs.clear();
    reg.save(rec);
    // The FUSE process removes a detached record when it exits, but it may have exited already (its last user left
    // while we were unmounting) and found the record not yet marked: then it is ours to remove.
    if (!process_alive(rec.pid, rec.pid_start)) reg.remove(rec.slot);
    res.warnings.push_back("slot " + std::to_string(rec.slot) + " was detached lazily: it closes (and the container "
                           "is flushed) when the last program using it lets go");
  } else {
    reg.remove(rec.slot);
  }
  return res;
}

void format_filesystem(const std::string& container, const OpenedHeader& h, const MkfsTool& tool,
                       EngineChoice engine, const std::string& label, Notify verbose) {
  check_mountable_header(h);
  int fd = ::open(container.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw_errno("cannot open " + container);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  MountRequest req;
  req.volume = container;
  req.filesystem = "none";
  req.engine = engine;
  req.verbose = verbose;
  MountRecord rec = mount_volume(req, fd, h);
  Registry reg;
  say(verbose, "running " + tool.program + " on " + rec.plaintext_device);
  try {
    std::string out;
    run_mkfs(tool, rec.plaintext_device, label, &out);
  } catch (...) {
    try {
      dismount(reg, rec, true);
    } catch (...) {
    }
    throw;
  }
  DismountResult r = dismount(reg, rec, false);
  for (const auto& w : r.warnings) say(verbose, w);
}

void format_filesystem(const std::string& container, const OpenOptions& opt, const MkfsTool& tool,
                       EngineChoice engine, const std::string& label, Notify verbose) {
  OpenedHeader h = [&] {
    auto f = open_file(container, OpenMode::ReadOnly);
    return open_header(*f, opt);
  }();
  format_filesystem(container, h, tool, engine, label, std::move(verbose));
}

MkfsTool check_filesystem_creation(const std::string& fs) {
  MkfsTool t = check_mkfs_available(fs);
  if (::access("/dev/fuse", R_OK | W_OK) != 0) {
    const int e = errno;
    throw Error(e == ENOENT ? ErrorKind::Io : ErrorKind::Usage,
                "creating a filesystem goes through the FUSE plaintext device, but /dev/fuse is " +
                    std::string(e == ENOENT ? "missing (load the fuse module)" : "not accessible (run as root)") +
                    "; nothing was written");
  }
  (void)mountd_path();
  return t;
}

}  // namespace warpvol::mount
