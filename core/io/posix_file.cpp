#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

#include "core/io/fd_io.h"
#include "core/io/file.h"
#include "core/io/safe_open.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

class PosixFile final : public BlockFile {
 public:
  PosixFile(int fd, std::string path, uint64_t size, bool writable, bool block_device)
      : fd_(fd), path_(std::move(path)), size_(size), writable_(writable), block_device_(block_device) {}
  ~PosixFile() override {
    if (direct_fd_ >= 0) ::close(direct_fd_);
    ::close(fd_);
  }
  uint64_t size() const override { return size_; }
  void read_at(uint64_t off, uint8_t* buf, size_t len) override {
    if (off + len > size_ || off + len < off)
      throw IoError(ErrorKind::Io, path_ + ": read past the end of the file", EIO);
    const ssize_t r = pread_full(fd_, buf, len, off);
    if (r < 0) throw_io_errno(path_, errno);
    if (size_t(r) < len) throw IoError(ErrorKind::Io, path_ + ": unexpected end of file", EIO);
  }
  void write_at(uint64_t off, const uint8_t* buf, size_t len) override {
    if (pwrite_full(fd_, buf, len, off) < 0) throw_io_errno(path_, errno);
    grow_to(off + len);
  }
  void sync() override {
    if (::fsync(fd_) != 0) throw_io_errno(path_ + ": fsync", errno);
  }
  void sync_data() override {
    if (::fdatasync(fd_) != 0) throw_io_errno(path_ + ": fdatasync", errno);
  }
  bool writable() const override { return writable_; }
  const std::string& path() const override { return path_; }
  bool write_at_direct(uint64_t off, const uint8_t* buf, size_t len) override {
    if (!writable_ || !aligned(off, buf, len) || direct_write_refused_.load(std::memory_order_relaxed)) return false;
    const int dfd = direct_fd();
    if (dfd < 0) return false;
    if (pwrite_full(dfd, buf, len, off) < 0) {
      // The file system refused direct I/O for this request (alignment rules stricter than 4 KiB): the caller
      // writes the whole request again, buffered, from now on.
      if (errno == EINVAL) {
        direct_write_refused_.store(true, std::memory_order_relaxed);
        return false;
      }
      throw_io_errno(path_, errno);
    }
    grow_to(off + len);
    return true;
  }
  // Mixing direct and buffered reads is coherent: a direct read first writes back the dirty pages of its range.
  bool read_at_direct(uint64_t off, uint8_t* buf, size_t len) override {
    if (!aligned(off, buf, len) || direct_read_refused_.load(std::memory_order_relaxed)) return false;
    if (off + len > size_ || off + len < off) return false;  // read_at reports it
    const int dfd = direct_fd();
    if (dfd < 0) return false;
    const ssize_t r = pread_full(dfd, buf, len, off);
    if (r < 0 && errno == EINVAL) {  // a device whose logical block is larger than kDirectAlign
      direct_read_refused_.store(true, std::memory_order_relaxed);
      return false;
    }
    if (r < 0) throw_io_errno(path_, errno);
    if (size_t(r) < len) throw IoError(ErrorKind::Io, path_ + ": unexpected end of file", EIO);
    return true;
  }
  bool parallel_writes() const override { return block_device_; }
  bool copy_range_from(BlockFile& src, uint64_t src_off, uint64_t off, uint64_t len) override {
    auto* from = dynamic_cast<PosixFile*>(&src);
    if (!from || !writable_ || block_device_ || from->block_device_) return false;
    if (src_off + len > from->size_ || src_off + len < src_off)
      throw IoError(ErrorKind::Io, from->path_ + ": read past the end of the file", EIO);
    loff_t in = loff_t(src_off), out = loff_t(off);
    for (uint64_t left = len; left;) {
      const ssize_t r = ::copy_file_range(from->fd_, &in, fd_, &out, size_t(left), 0);
      if (r < 0 && errno == EINTR) continue;
      // Refused before a byte was copied (a file system or kernel without it): the caller copies through memory.
      if (r < 0 && left == len && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP))
        return false;
      if (r < 0) throw_io_errno(path_ + ": copy from " + from->path_, errno);
      if (r == 0) throw IoError(ErrorKind::Io, from->path_ + ": unexpected end of file", EIO);
      left -= uint64_t(r);
    }
    grow_to(off + len);
    return true;
  }
  void truncate(uint64_t n) override {
    if (::ftruncate(fd_, off_t(n)) != 0) throw_io_errno(path_ + ": truncate", errno);
    size_.store(n);
  }

 private:
  static constexpr int kDirectUntried = -2, kDirectRefused = -1;
  static bool aligned(uint64_t off, const uint8_t* buf, size_t len) {
    return off % kDirectAlign == 0 && len % kDirectAlign == 0 && reinterpret_cast<uintptr_t>(buf) % kDirectAlign == 0;
  }
  // The O_DIRECT twin of fd_ (reopen_direct), opened on first use; kDirectRefused where the file system refuses.
  int direct_fd() {
    int d = direct_state_.load();
    if (d != kDirectUntried) return d;
    std::lock_guard<std::mutex> lk(direct_mu_);
    d = direct_state_.load();
    if (d != kDirectUntried) return d;
    d = reopen_direct(fd_, writable_ ? O_RDWR : O_RDONLY);
    direct_state_.store(d >= 0 ? d : kDirectRefused);
    if (d >= 0) direct_fd_ = d;
    return d >= 0 ? d : kDirectRefused;
  }

  void grow_to(uint64_t end) {
    uint64_t cur = size_.load();
    while (end > cur && !size_.compare_exchange_weak(cur, end)) {
    }
  }

  int fd_;
  std::string path_;
  std::atomic<uint64_t> size_;  // write_at runs from several writer threads (create's fill)
  bool writable_;
  bool block_device_;
  std::mutex direct_mu_;
  std::atomic<int> direct_state_{kDirectUntried};
  std::atomic<bool> direct_read_refused_{false}, direct_write_refused_{false};
  int direct_fd_ = -1;
};

uint64_t size_of(int fd, const struct stat& st, const std::string& path) {
  uint64_t size = uint64_t(st.st_size);
  if (S_ISBLK(st.st_mode) && ::ioctl(fd, BLKGETSIZE64, &size) != 0) {
    const int e = errno;
    ::close(fd);
    throw_errno(path + ": BLKGETSIZE64", e);
  }
  return size;
}

}  // namespace

void throw_io_errno(const std::string& what, int err) {
  try {
    throw_errno(what, err);
  } catch (const Error& e) {
    throw IoError(e.kind(), e.what(), err);
  }
}

int reopen_direct(int fd, int access) {
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  return ::open(self.c_str(), access | O_DIRECT | O_CLOEXEC);
}

std::unique_ptr<BlockFile> open_file(const std::string& path, OpenMode mode) {
  int flags = 0;
  switch (mode) {
    case OpenMode::ReadOnly: flags = O_RDONLY; break;
    case OpenMode::ReadWrite: flags = O_RDWR; break;
    case OpenMode::CreateNew: flags = O_RDWR | O_CREAT | O_EXCL; break;
    case OpenMode::CreateTruncate: flags = O_RDWR | O_CREAT | O_TRUNC; break;
  }
  struct stat st {};
  if (mode == OpenMode::ReadOnly || mode == OpenMode::ReadWrite) {
    if (::stat(path.c_str(), &st) != 0) throw_errno(path);
    if (S_ISDIR(st.st_mode)) throw Error(ErrorKind::Io, path + ": is a directory, not a volume");
  }
  int fd = -1;
  try {
    fd = open_regular_or_block(path, flags, path, &st);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Busy && mode == OpenMode::CreateNew)
      throw Error(ErrorKind::Busy, path + ": file exists (use --force to overwrite)");
    throw;
  }
  const uint64_t size = size_of(fd, st, path);
  return std::make_unique<PosixFile>(fd, path, size, mode != OpenMode::ReadOnly, S_ISBLK(st.st_mode));
}

std::unique_ptr<BlockFile> adopt_file(int fd, const std::string& path, bool writable) {
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw_errno(path, e);
  }
  const uint64_t size = size_of(fd, st, path);
  return std::make_unique<PosixFile>(fd, path, size, writable, S_ISBLK(st.st_mode));
}

bool is_block_device(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISBLK(st.st_mode);
}

}  // namespace warpvol
