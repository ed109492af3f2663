// The FUSE settings and the file tree of warpvol-mountd, in one place so that bench/fuse_floor.cpp (the cheapest
// server that can stand where mountd stands, for bench/mount_throughput.sh) runs with exactly the same ones. Needs
// libfuse3's low-level header; header-only because both programs link libfuse3 but core/ must not.
#pragma once
#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 312
#endif
#include <fuse3/fuse_lowlevel.h>
#include <linux/fuse.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/util/cores.h"

namespace warpvol::mount {

constexpr size_t kMaxIo = size_t(1) << 20;  // the kernel's limit with the default fuse max_pages_limit (256)
#ifdef FOPEN_PARALLEL_DIRECT_WRITES
constexpr uint32_t kFopenParallelDirectWrites = FOPEN_PARALLEL_DIRECT_WRITES;
#else
constexpr uint32_t kFopenParallelDirectWrites = 1u << 6;
#endif

// The tree both serve: the root folder and one regular file in it, of this inode.
constexpr fuse_ino_t kFileIno = 2;

// The type, links and size of the tree's two inodes (st's other fields are the caller's).
inline void fill_tree_attr(fuse_ino_t ino, uint64_t file_size, mode_t file_permissions, struct stat& st) {
  st.st_ino = ino;
  if (ino == FUSE_ROOT_ID) {
    st.st_mode = S_IFDIR | 0700;
    st.st_nlink = 2;
  } else {
    st.st_mode = S_IFREG | file_permissions;
    st.st_nlink = 1;
    st.st_size = off_t(file_size);
    st.st_blocks = blkcnt_t(file_size / 512);
    st.st_blksize = blksize_t(kMaxIo);
  }
}

// The lookup op: only the file, by its name, in the root folder; attributes cached for a day (nothing else changes
// them).
inline void reply_lookup(fuse_req_t req, fuse_ino_t parent, const char* name, const char* file_name,
                         const struct stat& file_attr) {
  if (parent != FUSE_ROOT_ID || std::strcmp(name, file_name) != 0) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  struct fuse_entry_param e;
  std::memset(&e, 0, sizeof e);
  e.ino = kFileIno;
  e.attr_timeout = 86400;
  e.entry_timeout = 86400;
  e.attr = file_attr;
  fuse_reply_entry(req, &e);
}

// For the init op: 1 MiB requests, asynchronous direct I/O and reads, no writeback cache (the loop device above the
// file is the only page cache).
inline void want_large_async_io(struct fuse_conn_info* conn) {
  conn->max_write = unsigned(kMaxIo);
  conn->max_read = unsigned(kMaxIo);
  conn->max_readahead = unsigned(kMaxIo);
  conn->max_background = 64;
  conn->congestion_threshold = 48;
  if (conn->capable & FUSE_CAP_ASYNC_DIO) conn->want |= FUSE_CAP_ASYNC_DIO;
  if (conn->capable & FUSE_CAP_ASYNC_READ) conn->want |= FUSE_CAP_ASYNC_READ;
  conn->want &= ~unsigned(FUSE_CAP_WRITEBACK_CACHE);
}

// The reply to open. Built here rather than with fuse_reply_open(): libfuse 3.14 cannot set
// FOPEN_PARALLEL_DIRECT_WRITES (kernel >= 6.2), without which the kernel serialises every direct write to the file
// under its inode lock — one 1 MiB request at a time, the crypto of the next never overlapping the copy and pwrite of
// the current one. The server must be safe for concurrent writes. Older kernels ignore the flag.
inline void reply_open(fuse_req_t req, bool direct_io) {
  struct fuse_open_out out;
  std::memset(&out, 0, sizeof out);
  out.fh = 0;
  out.open_flags = FOPEN_NOFLUSH;
  if (direct_io)
    out.open_flags |= FOPEN_DIRECT_IO | kFopenParallelDirectWrites;
  else
    out.open_flags |= FOPEN_KEEP_CACHE;  // nobody else changes the container while it is mounted
  struct iovec iov {&out, sizeof out};
  fuse_reply_iov(req, &iov, 1);
}

// Serves requests until the file system is unmounted: one /dev/fuse clone per thread, four request threads per
// core (4 to 16). Each thread has one request in flight. Since warpvol-mountd reads the container with O_DIRECT, a
// thread waits out the disk's latency on every read, and two threads per core left a disk idle between requests.
// Many more only take turns on the cores, evicting each other's 1 MiB buffers (docs/perf/design-figures.md,
// "Mount").
// Returns fuse_session_loop_mt's result.
inline int serve_requests(struct fuse_session* se) {
  struct fuse_loop_config* cfg = fuse_loop_cfg_create();
  fuse_loop_cfg_set_clone_fd(cfg, 1);
  const unsigned threads = std::clamp(4 * usable_cores(), 4u, 16u);
  fuse_loop_cfg_set_max_threads(cfg, threads);
  fuse_loop_cfg_set_idle_threads(cfg, threads);
  const int rc = fuse_session_loop_mt(se, cfg);
  fuse_loop_cfg_destroy(cfg);
  return rc;
}

}  // namespace warpvol::mount
