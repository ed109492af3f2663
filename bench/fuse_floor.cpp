// fuse_floor: the cheapest FUSE server that can stand where warpvol-mountd stands, for bench/mount_throughput.sh.
// It serves one file, MOUNTDIR/volume, of SIZE bytes kept in memory, with warpvol-mountd's settings
// (mount/fuse_settings.h: one /dev/fuse clone per thread, four threads per core, 1 MiB requests, direct I/O with
// parallel direct writes), and does no more per request than any FUSE server must:
// - a read replies straight from the memory (the kernel's one copy into the reader's pages);
// - a write copies the request from libfuse's buffer into the memory. An encrypting server need not make that copy
//   (its cipher can write the ciphertext where it belongs), so the thread CPU time of these copies is measured and
//   reported, for the benchmark to take off.
// Runs in the foreground until MOUNTDIR is unmounted, then prints one line:
//   store-copy-cpu-s <seconds> store-copy-bytes <bytes>
// Usage (root): fuse_floor MOUNTDIR SIZE
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mount/fuse_settings.h"

namespace {

using warpvol::mount::kFileIno;
using warpvol::mount::kMaxIo;
constexpr const char* kFileName = "volume";

uint8_t* g_mem = nullptr;
uint64_t g_size = 0;
std::atomic<uint64_t> g_copy_ns{0}, g_copy_bytes{0};

uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

void fill_attr(fuse_ino_t ino, struct stat& st) {
  std::memset(&st, 0, sizeof st);
  warpvol::mount::fill_tree_attr(ino, g_size, 0600, st);
}

void op_init(void*, struct fuse_conn_info* conn) { warpvol::mount::want_large_async_io(conn); }

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  struct stat st;
  fill_attr(kFileIno, st);
  warpvol::mount::reply_lookup(req, parent, name, kFileName, st);
}

void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info*) {
  struct stat st;
  fill_attr(ino, st);
  fuse_reply_attr(req, &st, 86400);
}

void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info*) {
  if (ino != kFileIno) {
    fuse_reply_err(req, EISDIR);
    return;
  }
  warpvol::mount::reply_open(req, true);  // concurrent writes are safe: no two ranges of ext4's overlap
}

void op_read(fuse_req_t req, fuse_ino_t, size_t size, off_t off, struct fuse_file_info*) {
  if (off < 0 || uint64_t(off) >= g_size) {
    fuse_reply_buf(req, nullptr, 0);
    return;
  }
  const size_t n = size_t(std::min<uint64_t>(size, g_size - uint64_t(off)));
  fuse_reply_buf(req, reinterpret_cast<const char*>(g_mem + off), n);
}

void op_write(fuse_req_t req, fuse_ino_t, const char* buf, size_t size, off_t off, struct fuse_file_info*) {
  if (off < 0 || uint64_t(off) >= g_size) {
    fuse_reply_err(req, ENOSPC);
    return;
  }
  const size_t n = size_t(std::min<uint64_t>(size, g_size - uint64_t(off)));
  const uint64_t t0 = thread_cpu_ns();
  std::memcpy(g_mem + off, buf, n);
  g_copy_ns.fetch_add(thread_cpu_ns() - t0, std::memory_order_relaxed);
  g_copy_bytes.fetch_add(n, std::memory_order_relaxed);
  fuse_reply_write(req, n);
}

void op_fsync(fuse_req_t req, fuse_ino_t, int, struct fuse_file_info*) { fuse_reply_err(req, 0); }
void op_flush(fuse_req_t req, fuse_ino_t, struct fuse_file_info*) { fuse_reply_err(req, 0); }
void op_release(fuse_req_t req, fuse_ino_t, struct fuse_file_info*) { fuse_reply_err(req, 0); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fuse_floor MOUNTDIR SIZE\n");
    return 2;
  }
  g_size = std::strtoull(argv[2], nullptr, 10) / 512 * 512;
  void* mem = ::mmap(nullptr, g_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (g_size == 0 || mem == MAP_FAILED) {
    std::fprintf(stderr, "fuse_floor: cannot map %s bytes\n", argv[2]);
    return 1;
  }
  g_mem = static_cast<uint8_t*>(mem);

  struct fuse_lowlevel_ops ops;
  std::memset(&ops, 0, sizeof ops);
  ops.init = op_init;
  ops.lookup = op_lookup;
  ops.getattr = op_getattr;
  ops.open = op_open;
  ops.read = op_read;
  ops.write = op_write;
  ops.fsync = op_fsync;
  ops.flush = op_flush;
  ops.release = op_release;
  std::string opts = "fsname=fuse_floor,default_permissions,allow_other,max_read=" + std::to_string(kMaxIo);
  char arg0[] = "fuse_floor", arg1[] = "-o";
  char* fargv[] = {arg0, arg1, opts.data()};
  struct fuse_args args = FUSE_ARGS_INIT(3, fargv);
  struct fuse_session* se = fuse_session_new(&args, &ops, sizeof ops, nullptr);
  fuse_opt_free_args(&args);
  if (!se || fuse_set_signal_handlers(se) != 0 || fuse_session_mount(se, argv[1]) != 0) {
    std::fprintf(stderr, "fuse_floor: cannot mount FUSE at %s\n", argv[1]);
    return 1;
  }
  const int rc = warpvol::mount::serve_requests(se);
  fuse_session_unmount(se);
  fuse_remove_signal_handlers(se);
  fuse_session_destroy(se);
  std::printf("store-copy-cpu-s %.6f store-copy-bytes %llu\n", double(g_copy_ns.load()) / 1e9,
              static_cast<unsigned long long>(g_copy_bytes.load()));
  return rc < 0 ? 1 : 0;
}
