#include "core/create/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <vector>

#include "core/io/container_lock.h"
#include "core/util/error.h"

namespace warpvol {

namespace {
std::string folder_of(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return dir.empty() ? std::string(".") : dir.string();
}

std::string human(uint64_t n) {
  char buf[64];
  if (n >= (uint64_t(1) << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", double(n) / double(uint64_t(1) << 30));
  else if (n >= (uint64_t(1) << 20)) std::snprintf(buf, sizeof buf, "%.2f MiB", double(n) / double(1 << 20));
  else std::snprintf(buf, sizeof buf, "%llu bytes", (unsigned long long)n);
  return buf;
}
}  // namespace

TargetCheck check_target(const std::string& path, bool force) {
  if (path.empty()) throw Error(ErrorKind::Usage, "empty file name");
  TargetCheck t;
  t.folder = folder_of(path);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    t.exists = true;
    if (S_ISDIR(st.st_mode)) throw Error(ErrorKind::Usage, path + ": is a folder (give a file name)");
    if (S_ISBLK(st.st_mode)) {
      if (!force)
        throw Error(ErrorKind::Busy, path + ": is a block device; its content would be destroyed (use --force)");
      refuse_container_in_use(path);
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) throw_errno(path);
      uint64_t sz = 0;
      int r = ::ioctl(fd, BLKGETSIZE64, &sz);
      int e = errno;
      ::close(fd);
      if (r != 0) throw_errno(path + ": BLKGETSIZE64", e);
      t.is_block_device = true;
      t.device_size = sz;
      if (::access(path.c_str(), W_OK) != 0) throw_errno(path + ": not writable");
      return t;
    }
    if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::Usage, path + ": not a regular file or block device");
    if (!force) throw Error(ErrorKind::Busy, path + ": file exists (use --force to overwrite)");
    // Replacing a mounted container would send the mount's writes to the unlinked old file.
    refuse_container_in_use(path);
  } else if (errno != ENOENT) {
    throw_errno(path);
  }
  struct stat dst;
  if (::stat(t.folder.c_str(), &dst) != 0) throw_errno("folder " + t.folder);
  if (!S_ISDIR(dst.st_mode)) throw Error(ErrorKind::Io, t.folder + ": not a folder");
  if (::access(t.folder.c_str(), W_OK | X_OK) != 0) throw_errno("folder " + t.folder + " is not writable");
  struct statvfs vfs;
  if (::statvfs(t.folder.c_str(), &vfs) != 0) throw_errno("statvfs " + t.folder);
  t.free_bytes = uint64_t(vfs.f_bavail) * uint64_t(vfs.f_frsize);
  return t;
}

AtomicOutput::AtomicOutput(std::string target, bool replace,
                           std::function<std::unique_ptr<BlockFile>(std::unique_ptr<BlockFile>)> wrap)
    : target_(std::move(target)), replace_(replace), wrap_(std::move(wrap)) {
  if (replace_) target_lock_ = ContainerLock(target_);
  std::filesystem::path p(target_);
  std::filesystem::path dir = p.parent_path();
  std::string tmpl = (dir.empty() ? std::string() : dir.string() + "/") + "." + p.filename().string() +
                     ".warpvol-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  int fd = ::mkostemp(buf.data(), O_CLOEXEC);  // mode 0600
  if (fd < 0) throw_errno("cannot create a file in " + (dir.empty() ? std::string(".") : dir.string()));
  ::fchmod(fd, 0600);
  ::close(fd);
  temp_ = buf.data();
}

BlockFile& AtomicOutput::file() {
  if (!file_) {
    file_ = open_file(temp_, OpenMode::ReadWrite);
    if (wrap_) file_ = wrap_(std::move(file_));
  }
  return *file_;
}

AtomicOutput::~AtomicOutput() {
  file_.reset();
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void AtomicOutput::reserve(uint64_t size) {
  if (file_) throw Error(ErrorKind::Io, "internal: AtomicOutput::reserve after file()");
  int fd = ::open(temp_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw_errno(temp_);
  int r = ::fallocate(fd, 0, 0, off_t(size));
  int e = r == 0 ? 0 : errno;
  if (r != 0 && (e == EOPNOTSUPP || e == ENOSYS || e == EINVAL)) {
    r = ::ftruncate(fd, off_t(size));
    e = r == 0 ? 0 : errno;
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

void AtomicOutput::commit() {
  file().sync();
  file_.reset();
  if (replace_) {
    // A target that appeared or was replaced since construction is locked now; the lock is dropped only once
    // the rename is done, so no mount can start on the old file in between.
    if (!target_lock_.covers(target_)) target_lock_ = ContainerLock(target_);
    if (::rename(temp_.c_str(), target_.c_str()) != 0) throw_errno("cannot rename the new file into " + target_);
    target_lock_.release();
  } else if (::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, target_.c_str(), RENAME_NOREPLACE) != 0) {
    if (errno == EEXIST) throw Error(ErrorKind::Busy, target_ + ": file exists (use --force to overwrite)");
    if (errno != EINVAL && errno != ENOSYS) throw_errno("cannot rename the new file into " + target_);
    if (::link(temp_.c_str(), target_.c_str()) != 0) {
      if (errno == EEXIST) throw Error(ErrorKind::Busy, target_ + ": file exists (use --force to overwrite)");
      throw_errno("cannot move the new file into " + target_);
    }
    ::unlink(temp_.c_str());
  }
  committed_ = true;
  int dfd = ::open(folder_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace warpvol
