#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "core/io/file.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

class PosixFile final : public BlockFile {
 public:
  PosixFile(int fd, std::string path, uint64_t size, bool writable)
      : fd_(fd), path_(std::move(path)), size_(size), writable_(writable) {}
  ~PosixFile() override { ::close(fd_); }
  uint64_t size() const override { return size_; }
  void read_at(uint64_t off, uint8_t* buf, size_t len) override {
    if (off + len > size_ || off + len < off) throw Error(ErrorKind::Io, path_ + ": read past the end of the file");
    while (len) {
      ssize_t r = ::pread(fd_, buf, len, off_t(off));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw_errno(path_);
      if (r == 0) throw Error(ErrorKind::Io, path_ + ": unexpected end of file");
      buf += r;
      off += uint64_t(r);
      len -= size_t(r);
    }
  }
  void write_at(uint64_t off, const uint8_t* buf, size_t len) override {
    while (len) {
      ssize_t r = ::pwrite(fd_, buf, len, off_t(off));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw_errno(path_);
      buf += r;
      off += uint64_t(r);
      len -= size_t(r);
    }
    if (off > size_) size_ = off;
  }
  void sync() override {
    if (::fsync(fd_) != 0) throw_errno(path_ + ": fsync");
  }
  bool writable() const override { return writable_; }
  const std::string& path() const override { return path_; }
  void truncate(uint64_t n) override {
    if (::ftruncate(fd_, off_t(n)) != 0) throw_errno(path_ + ": truncate");
    size_ = n;
  }

 private:
  int fd_;
  std::string path_;
  uint64_t size_;
  bool writable_;
};

}  // namespace

std::unique_ptr<BlockFile> open_file(const std::string& path, OpenMode mode) {
  int flags = O_CLOEXEC;
  switch (mode) {
    case OpenMode::ReadOnly: flags |= O_RDONLY; break;
    case OpenMode::ReadWrite: flags |= O_RDWR; break;
    case OpenMode::CreateNew: flags |= O_RDWR | O_CREAT | O_EXCL; break;
    case OpenMode::CreateTruncate: flags |= O_RDWR | O_CREAT | O_TRUNC; break;
  }
  struct stat st {};
  if (mode == OpenMode::ReadOnly || mode == OpenMode::ReadWrite) {
    if (::stat(path.c_str(), &st) != 0) throw_errno(path);
    if (S_ISDIR(st.st_mode)) throw Error(ErrorKind::Io, path + ": is a directory, not a volume");
  }
  int fd = ::open(path.c_str(), flags, 0600);
  if (fd < 0) {
    if (errno == EEXIST) throw Error(ErrorKind::Busy, path + ": file exists (use --force to overwrite)");
    throw_errno(path);
  }
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    throw_errno(path, e);
  }
  uint64_t size = uint64_t(st.st_size);
  if (S_ISBLK(st.st_mode)) {
    if (::ioctl(fd, BLKGETSIZE64, &size) != 0) {
      int e = errno;
      ::close(fd);
      throw_errno(path + ": BLKGETSIZE64", e);
    }
  } else if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(ErrorKind::Io, path + ": not a regular file or block device");
  }
  return std::make_unique<PosixFile>(fd, path, size, mode != OpenMode::ReadOnly);
}

}  // namespace warpvol
