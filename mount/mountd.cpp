// warpvol-mountd: the FUSE process behind `warpvol mount`. It serves one volume's plaintext as the file
// <aux>/volume (libfuse3 low-level API, multi-threaded with one /dev/fuse clone per thread, 1 MiB requests, direct
// I/O so the loop device above it is the only page cache), reading and writing the container through
// PlainDevice (core/volume/plain_device.h) and the engine.
//
// Started by `warpvol mount` (core/mount/mounter.cpp), never by hand:
//   warpvol-mountd --container-fd 3 --spec-fd 4 --status-fd 5
// fd 3: the container, opened by warpvol; fd 4: the MountSpec (key material, layout, options; mount_spec.h);
// fd 5: one status line back (core/mount/daemon_status.h): ready with the engine once the FUSE mount exists, or
// the error's kind and message.
// stdout/stderr go to the slot's log file. It exits when its mount point is unmounted (dismount), after an fsync of
// the container whose result it records in the slot's state file (runtime.h DaemonState).
#define FUSE_USE_VERSION 312
#include <fcntl.h>
#include <fuse3/fuse_lowlevel.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "core/engine/engine_factory.h"
#include "core/io/container_lock.h"
#include "core/mount/daemon_status.h"
#include "core/io/aligned_scratch.h"
#include "core/io/fd_io.h"
#include "core/io/file.h"
#include "core/mount/mount_spec.h"
#include "core/mount/runtime.h"
#include "core/util/error.h"
#include "core/util/secure.h"
#include "core/volume/plain_device.h"
#include "mount/fuse_settings.h"

#ifdef WARPVOL_HAVE_GPU
#include "gpu/gpu_engine.h"
#endif

namespace warpvol::mount {
namespace {

constexpr fuse_ino_t kVolumeIno = kFileIno;
constexpr const char* kVolumeName = "volume";

struct Server {
  MountSpec spec;
  PlainDevice* dev = nullptr;
  std::string state_file;
  std::mutex state_mu;
  DaemonState state;
  time_t start_time = 0;
  std::atomic<uint64_t> reads{0}, writes{0}, read_bytes{0}, written_bytes{0}, max_request{0};

  void save_state() {
    std::lock_guard<std::mutex> lk(state_mu);
    state.reads = reads;
    state.writes = writes;
    state.read_bytes = read_bytes;
    state.written_bytes = written_bytes;
    state.max_request = max_request;
    try {
      write_daemon_state(state_file, state);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "warpvol-mountd: cannot write %s: %s\n", state_file.c_str(), e.what());
    }
  }
  void note_request(size_t n) {
    uint64_t m = max_request.load(std::memory_order_relaxed);
    while (n > m && !max_request.compare_exchange_weak(m, n, std::memory_order_relaxed)) {
    }
  }
};

Server* g_server = nullptr;

void log_line(const std::string& s) {
  char when[32];
  time_t t = time(nullptr);
  struct tm tm;
  localtime_r(&t, &tm);
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
  std::fprintf(stderr, "%s warpvol-mountd[%d]: %s\n", when, int(getpid()), s.c_str());
  std::fflush(stderr);
}

// Per-thread reply buffer for reads.
thread_local AlignedScratch t_read(kMaxIo);

void fill_attr(fuse_ino_t ino, struct stat& st) {
  std::memset(&st, 0, sizeof st);
  const Server& s = *g_server;
  st.st_ino = ino;
  st.st_uid = s.spec.uid;
  st.st_gid = s.spec.gid;
  st.st_atime = st.st_mtime = st.st_ctime = s.start_time;
  fill_tree_attr(ino, s.dev->size(), s.spec.read_only ? 0400 : 0600, st);
}

void op_init(void*, struct fuse_conn_info* conn) {
  want_large_async_io(conn);
  conn->time_gran = 1;
}

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  struct stat st;
  fill_attr(kVolumeIno, st);
  reply_lookup(req, parent, name, kVolumeName, st);
}

void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info*) {
  if (ino != FUSE_ROOT_ID && ino != kVolumeIno) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  struct stat st;
  fill_attr(ino, st);
  fuse_reply_attr(req, &st, 86400);
}

void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, struct fuse_file_info*) {
  if (ino != kVolumeIno) {
    fuse_reply_err(req, EPERM);
    return;
  }
  // The device has the volume's size: truncation (O_TRUNC, `> volume`) is refused, so is a change of owner or
  // mode; time updates are accepted and forgotten.
  if ((to_set & FUSE_SET_ATTR_SIZE) && uint64_t(attr->st_size) != g_server->dev->size()) {
    fuse_reply_err(req, EPERM);
    return;
  }
  if (to_set & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
    fuse_reply_err(req, EPERM);
    return;
  }
  struct stat st;
  fill_attr(ino, st);
  fuse_reply_attr(req, &st, 86400);
}

void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info* fi) {
  if (ino != kVolumeIno) {
    fuse_reply_err(req, EISDIR);
    return;
  }
  if ((fi->flags & O_ACCMODE) != O_RDONLY && g_server->spec.read_only) {
    fuse_reply_err(req, EROFS);
    return;
  }
  reply_open(req, g_server->spec.direct_io);  // PlainDevice is safe for concurrent writes
}

void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info*) {
  Server& s = *g_server;
  if (ino != kVolumeIno) {
    fuse_reply_err(req, EISDIR);
    return;
  }
  if (off < 0) {
    fuse_reply_err(req, EINVAL);
    return;
  }
  const uint64_t total = s.dev->size();
  if (uint64_t(off) >= total || size == 0) {
    fuse_reply_buf(req, nullptr, 0);
    return;
  }
  const size_t n = size_t(std::min<uint64_t>(size, total - uint64_t(off)));
  uint8_t* buf = t_read.get(n);
  if (!buf) {
    fuse_reply_err(req, ENOMEM);
    return;
  }
  const int e = errno_of([&] { s.dev->read(uint64_t(off), buf, n); });
  if (e) {
    fuse_reply_err(req, -e);
    return;
  }
  s.reads.fetch_add(1, std::memory_order_relaxed);
  s.read_bytes.fetch_add(n, std::memory_order_relaxed);
  s.note_request(n);
  fuse_reply_buf(req, reinterpret_cast<const char*>(buf), n);
}

void op_write(fuse_req_t req, fuse_ino_t ino, const char* buf, size_t size, off_t off, struct fuse_file_info*) {
  Server& s = *g_server;
  if (ino != kVolumeIno) {
    fuse_reply_err(req, EISDIR);
    return;
  }
  if (off < 0) {
    fuse_reply_err(req, EINVAL);
    return;
  }
  const uint64_t total = s.dev->size();
  if (uint64_t(off) >= total) {
    fuse_reply_err(req, size ? ENOSPC : 0);
    return;
  }
  const size_t n = size_t(std::min<uint64_t>(size, total - uint64_t(off)));
  // buf points into libfuse's per-thread receive buffer, which is ours until we reply: encrypting it in place
  // saves copying every request.
  const int e = errno_of(
      [&] { s.dev->write_scratch(uint64_t(off), reinterpret_cast<uint8_t*>(const_cast<char*>(buf)), n); });
  if (e) {
    fuse_reply_err(req, -e);
    return;
  }
  s.writes.fetch_add(1, std::memory_order_relaxed);
  s.written_bytes.fetch_add(n, std::memory_order_relaxed);
  s.note_request(n);
  fuse_reply_write(req, n);
}

void op_fsync(fuse_req_t req, fuse_ino_t, int, struct fuse_file_info*) {
  const int e = errno_of([] { g_server->dev->sync(); });
  if (e) log_line(std::string("fsync of the container failed: ") + std::strerror(-e));
  fuse_reply_err(req, -e);
}

void op_flush(fuse_req_t req, fuse_ino_t, struct fuse_file_info*) { fuse_reply_err(req, 0); }
void op_release(fuse_req_t req, fuse_ino_t, struct fuse_file_info*) { fuse_reply_err(req, 0); }

void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info* fi) {
  if (ino != FUSE_ROOT_ID) {
    fuse_reply_err(req, ENOTDIR);
    return;
  }
  fuse_reply_open(req, fi);
}

void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info*) {
  if (ino != FUSE_ROOT_ID) {
    fuse_reply_err(req, ENOTDIR);
    return;
  }
  struct Entry {
    const char* name;
    fuse_ino_t ino;
    mode_t mode;
  } entries[] = {{".", FUSE_ROOT_ID, S_IFDIR}, {"..", FUSE_ROOT_ID, S_IFDIR}, {kVolumeName, kVolumeIno, S_IFREG}};
  std::vector<char> buf(size);
  size_t used = 0;
  for (off_t i = off; i < off_t(3); ++i) {
    struct stat st;
    std::memset(&st, 0, sizeof st);
    st.st_ino = entries[i].ino;
    st.st_mode = entries[i].mode;
    size_t need = fuse_add_direntry(req, buf.data() + used, size - used, entries[i].name, &st, i + 1);
    if (need > size - used) break;
    used += need;
  }
  fuse_reply_buf(req, buf.data(), used);
}

void op_statfs(fuse_req_t req, fuse_ino_t) {
  struct statvfs sv;
  std::memset(&sv, 0, sizeof sv);
  sv.f_bsize = 512;
  sv.f_frsize = 512;
  sv.f_blocks = g_server->dev->size() / 512;
  sv.f_files = 1;
  sv.f_namemax = 255;
  fuse_reply_statfs(req, &sv);
}

int fd_arg(int argc, char** argv, const char* name) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  return -1;
}

void write_status(int fd, const std::string& line) {
  if (fd < 0) return;
  (void)write_full(fd, line.data(), line.size());  // nobody to tell when the parent went away
}

// After a lazy dismount nobody waits for us: remove our record when we are done.
void remove_record_if_detached(const MountSpec& spec) {
  try {
    Registry reg(std::filesystem::path(spec.state_file).parent_path().string());
    auto lock = reg.lock();
    auto r = reg.load(spec.slot);
    if (r && r->pid == int(getpid()) && r->state == "detached") {
      reg.remove(spec.slot);
      ::rmdir(spec.aux_dir.c_str());
    }
  } catch (const std::exception& e) {
    log_line(std::string("cannot remove the slot record: ") + e.what());
  }
}

int run(int argc, char** argv) {
  const int container_fd = fd_arg(argc, argv, "--container-fd");
  const int spec_fd = fd_arg(argc, argv, "--spec-fd");
  int status_fd = fd_arg(argc, argv, "--status-fd");
  if (container_fd < 0 || spec_fd < 0 || status_fd < 0) {
    std::fprintf(stderr, "warpvol-mountd is started by 'warpvol mount'; it is not meant to be run by hand\n");
    return 1;
  }
  for (int fd : {container_fd, spec_fd, status_fd}) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  ::signal(SIGPIPE, SIG_IGN);
  // Keep no folder busy while serving: the caller's working folder could otherwise not be unmounted. Nothing to do
  // if it fails; the result is only taken because glibc declares chdir warn_unused_result.
  [[maybe_unused]] const int chdir_rc = ::chdir("/");

  Server server;
  g_server = &server;
  struct fuse_session* se = nullptr;
  bool mounted = false;
  try {
    server.spec = read_spec(spec_fd);
    ::close(spec_fd);
    MountSpec& spec = server.spec;
    server.state_file = spec.state_file;
    server.start_time = time(nullptr);

    struct stat cst;
    if (::fstat(container_fd, &cst) != 0) throw_errno(spec.container);
    if (S_ISREG(cst.st_mode) && uint64_t(cst.st_size) < spec.data_offset + spec.data_size)
      throw Error(ErrorKind::Format, spec.container + ": the file is shorter than its header's data area");
    // One mount per container, whoever mounts it: the lock lives as long as this process.
    lock_container_fd(container_fd, spec.container);

    EngineOptions eo;
    eo.choice = spec.engine;
    std::shared_ptr<XtsEngine> engine = make_engine(eo);
    std::shared_ptr<const EngineKey> key =
        spec.legacy ? engine->prepare_legacy(*spec.legacy, spec.key_material.data(), spec.data_offset / kDataUnitSize)
                    : engine->prepare(spec.chain, spec.key_material.data());
    secure_wipe(spec.key_material.data(), spec.key_material.size());
    spec.key_material = LockedBytes();

    DataLayout layout{spec.data_offset, spec.data_size, spec.first_unit, spec.encrypted_begin, spec.encrypted_end};
    DeviceOptions dopt;
    dopt.read_only = spec.read_only;
    dopt.direct_reads = true;
    if (spec.protect) dopt.protection = HiddenProtection(spec.protect_start, spec.protect_end);
    dopt.serialize_writes = S_ISREG(cst.st_mode);  // see DeviceOptions::serialize_writes
    std::unique_ptr<BlockFile> container = adopt_file(container_fd, spec.container, !spec.read_only);
    auto dev = std::make_unique<PlainDevice>(*container, layout, engine, key, dopt);
    server.dev = dev.get();
    dev->on_trigger([&server](const std::string& what) {
      log_line("hidden volume protection triggered: " + what + "; every further write is refused");
      {
        std::lock_guard<std::mutex> lk(server.state_mu);
        server.state.protection_triggered = true;
        server.state.trigger_detail = what;
      }
      server.save_state();
    });
    server.save_state();

    struct fuse_lowlevel_ops ops;
    std::memset(&ops, 0, sizeof ops);
    ops.init = op_init;
    ops.lookup = op_lookup;
    ops.getattr = op_getattr;
    ops.setattr = op_setattr;
    ops.open = op_open;
    ops.read = op_read;
    ops.write = op_write;
    ops.flush = op_flush;
    ops.release = op_release;
    ops.fsync = op_fsync;
    ops.opendir = op_opendir;
    ops.readdir = op_readdir;
    ops.statfs = op_statfs;

    std::string opts = "fsname=warpvol" + std::to_string(spec.slot) + ",subtype=warpvol,default_permissions,max_read=" +
                       std::to_string(kMaxIo);
    if (::geteuid() == 0 || spec.allow_other) opts += ",allow_other";
    if (spec.read_only) opts += ",ro";
    std::vector<std::string> fargs{"warpvol-mountd", "-o", opts};
    std::vector<char*> fargv;
    for (auto& a : fargs) fargv.push_back(a.data());
    struct fuse_args args = FUSE_ARGS_INIT(int(fargv.size()), fargv.data());
    se = fuse_session_new(&args, &ops, sizeof ops, &server);
    fuse_opt_free_args(&args);  // the options it parsed are copied into the session; what parsing added is freed
    if (!se) throw Error(ErrorKind::Io, "cannot create the FUSE session (see " + spec.state_file + ")");
    if (fuse_set_signal_handlers(se) != 0) throw Error(ErrorKind::Io, "cannot install signal handlers");
    // Only SIGTERM ends the process (cleanly); a stray SIGINT/SIGHUP must not take a mounted volume away.
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGHUP, SIG_IGN);
    if (fuse_session_mount(se, spec.aux_dir.c_str()) != 0)
      throw Error(ErrorKind::Io, "cannot mount FUSE at " + spec.aux_dir +
                                     (::geteuid() == 0 ? std::string()
                                                       : std::string(spec.allow_other
                                                                         ? " (needs access to /dev/fuse, fusermount3 "
                                                                           "and user_allow_other in /etc/fuse.conf)"
                                                                         : " (needs access to /dev/fuse and fusermount3)")));
    mounted = true;
    log_line("serving " + spec.container + " (" + std::to_string(spec.data_size) + " bytes, " +
             (spec.read_only ? "read-only" : "read-write") + (spec.protect ? ", hidden volume protected" : "") +
             ") at " + spec.aux_dir + "/" + kVolumeName + ", engine " + engine->name() + " (" + engine->detail() + ")");
    write_status(status_fd, ready_status_line(engine->name() + " (" + engine->detail() + ")"));
    ::close(status_fd);
    status_fd = -1;

    const int rc = serve_requests(se);
    fuse_session_unmount(se);
    fuse_remove_signal_handlers(se);
    fuse_session_destroy(se);
    se = nullptr;

    const int e = errno_of([&] { dev->sync(); });
    {
      std::lock_guard<std::mutex> lk(server.state_mu);
      server.state.closed = e ? std::string("error: fsync: ") + std::strerror(-e) : "ok";
    }
    server.save_state();
    log_line("closed " + spec.container + " (loop " + std::to_string(rc) + "): " + server.state.closed + "; " +
             std::to_string(server.reads.load()) + " reads (" + std::to_string(server.read_bytes.load()) +
             " bytes), " + std::to_string(server.writes.load()) + " writes (" +
             std::to_string(server.written_bytes.load()) + " bytes), largest request " +
             std::to_string(server.max_request.load()) + " bytes, " + std::to_string(dev->direct_reads()) +
             " container reads with O_DIRECT" +
             (dev->direct_reads() ? "" : " (refused by its file system, or no aligned request)"));
    server.dev = nullptr;
    dev.reset();
    container.reset();  // closes the container, which releases its lock
    remove_record_if_detached(spec);
    return e ? 3 : 0;
  } catch (const Error& err) {
    log_line(err.what());
    write_status(status_fd, error_status_line(err.kind(), err.what()));
  } catch (const std::exception& err) {
    log_line(err.what());
    write_status(status_fd, error_status_line(ErrorKind::Io, err.what()));
  }
  if (se) {
    if (mounted) fuse_session_unmount(se);
    fuse_session_destroy(se);
  }
  return 3;
}

}  // namespace
}  // namespace warpvol::mount

int main(int argc, char** argv) {
  warpvol::make_process_undumpable();  // it holds the master key for as long as the volume is mounted
#ifdef WARPVOL_HAVE_GPU
  warpvol::gpu::register_engine();
#endif
  return warpvol::mount::run(argc, argv);
}
