#include "core/io/atomic_file.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "core/io/fd_io.h"
#include "core/io/free_space.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

std::string human(uint64_t n) {
  char buf[64];
  if (n >= (uint64_t(1) << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", double(n) / double(uint64_t(1) << 30));
  else if (n >= (uint64_t(1) << 20)) std::snprintf(buf, sizeof buf, "%.2f MiB", double(n) / double(1 << 20));
  else std::snprintf(buf, sizeof buf, "%llu bytes", (unsigned long long)n);
  return buf;
}

[[noreturn]] void exists(const std::string& target) {
  throw Error(ErrorKind::Busy, target + ": file exists (use --force to overwrite)");
}

}  // namespace

AtomicFile::AtomicFile(std::string target, bool replace, FileWrapper wrap, std::string temp_path)
    : target_(std::move(target)), temp_(std::move(temp_path)), replace_(replace), wrap_(std::move(wrap)) {
  int fd;
  if (temp_.empty()) {
    const std::filesystem::path p(target_);
    const std::string tmpl = folder_of(target_) + "/." + p.filename().string() + ".warpvol-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    fd = ::mkostemp(buf.data(), O_CLOEXEC);  // mode 0600: the content may be plaintext or key material
    if (fd < 0) throw_errno("cannot create a file in " + folder_of(target_));
    temp_ = buf.data();
  } else {
    fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) throw_errno("cannot create " + temp_);
  }
  ::fchmod(fd, 0600);
  ::close(fd);
}

AtomicFile::~AtomicFile() {
  file_.reset();
  if (!committed_) ::unlink(temp_.c_str());
}

BlockFile& AtomicFile::file() {
  std::lock_guard<std::mutex> lk(file_mu_);
  if (!file_) {
    file_ = open_file(temp_, OpenMode::ReadWrite);
    if (wrap_) file_ = wrap_(std::move(file_));
  }
  return *file_;
}

void AtomicFile::reserve(uint64_t size) {
  if (file_) throw Error(ErrorKind::Io, "internal: AtomicFile::reserve after file()");
  const int fd = ::open(temp_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw_errno(temp_);
  int r = 0, e = 0;
  struct statfs fs {};
  if (::fstatfs(fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC) {
    // tmpfs has no unwritten extents: fallocate allocates and zeroes every page before the first write, a pass
    // over memory that the writes then read back, where a write into a hole fills each page it allocates while
    // that page is in the cache (docs/perf/measurements-2026-11-29-session27.md). There the free space is checked
    // instead: a short file system still fails here; one that another process fills meanwhile fails in the
    // writes, which leave no file behind either (the temporary file is removed).
    struct statvfs vfs {};
    const std::optional<uint64_t> avail = ::fstatvfs(fd, &vfs) == 0 ? available_bytes(vfs) : std::nullopt;
    if (avail && *avail < size) {
      r = -1;
      e = ENOSPC;
    } else if ((r = ::ftruncate(fd, off_t(size))) != 0) {
      e = errno;
    }
  } else {
    r = ::fallocate(fd, 0, 0, off_t(size));
    e = r == 0 ? 0 : errno;
    if (r != 0 && (e == EOPNOTSUPP || e == ENOSYS || e == EINVAL)) {
      r = ::ftruncate(fd, off_t(size));
      e = r == 0 ? 0 : errno;
    }
  }
  ::close(fd);
  if (r != 0) {
    if (e == ENOSPC)
      throw Error(ErrorKind::Io, "not enough free space for " + human(size) + " in " + folder_of(target_));
    if (e == EFBIG)
      throw Error(ErrorKind::Io, target_ + ": the filesystem does not allow files of " + human(size) +
                                     " (file-size limit, e.g. FAT32's 4 GiB)");
    throw_errno("cannot allocate " + human(size) + " for " + target_, e);
  }
}

void AtomicFile::lock_target() {
  lock_target_ = true;
  target_lock_ = ContainerLock(target_);
}

void AtomicFile::commit() {
  file().sync();
  file_.reset();
  if (replace_) {
    // A target that appeared or was replaced since lock_target() is locked now; the lock is dropped only once the
    // rename is done, so no mount can start on the old file in between.
    if (lock_target_ && !target_lock_.covers(target_)) target_lock_ = ContainerLock(target_);
    if (::rename(temp_.c_str(), target_.c_str()) != 0) throw_errno("cannot rename the new file into " + target_);
    target_lock_.release();
  } else if (::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, target_.c_str(), RENAME_NOREPLACE) != 0) {
    if (errno == EEXIST) exists(target_);
    if (errno != EINVAL && errno != ENOSYS) throw_errno("cannot rename the new file into " + target_);
    // The file system has no RENAME_NOREPLACE: link() refuses to replace too.
    if (::link(temp_.c_str(), target_.c_str()) != 0) {
      if (errno == EEXIST) exists(target_);
      throw_errno("cannot move the new file into " + target_);
    }
    ::unlink(temp_.c_str());
  }
  committed_ = true;
  fsync_folder(folder_of(target_));
}

void atomic_replace(const std::string& path, const void* data, size_t len) {
  AtomicFile f(path);
  if (len) f.file().write_at(0, static_cast<const uint8_t*>(data), len);
  f.commit();
}

}  // namespace warpvol
