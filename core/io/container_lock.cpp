#include "core/io/container_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "core/util/error.h"

namespace warpvol {

namespace {
bool same_file(int fd, const std::string& path) {
  struct stat a, b;
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
}  // namespace

ContainerLock::ContainerLock(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const bool busy = errno == EWOULDBLOCK;
    ::close(fd);
    if (busy)
      throw Error(ErrorKind::Busy, path + ": in use (mounted by warpvol or being re-encrypted); dismount it first");
    return;  // a filesystem without flock: nothing to hold, as nothing could hold it against us either
  }
  fd_ = fd;
}

ContainerLock& ContainerLock::operator=(ContainerLock&& o) noexcept {
  if (this != &o) {
    release();
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

bool ContainerLock::covers(const std::string& path) const { return fd_ >= 0 && same_file(fd_, path); }

void ContainerLock::release() {
  if (fd_ >= 0) ::close(fd_);  // also drops the lock
  fd_ = -1;
}

void refuse_container_in_use(const std::string& path) { ContainerLock probe(path); }

void lock_container_fd(int fd, const std::string& path) {
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      throw Error(ErrorKind::Busy, path + " is in use by another mount (or another warpvol process)");
    throw_errno("cannot lock " + path);
  }
  if (!same_file(fd, path))
    throw Error(ErrorKind::Busy, path + " was replaced or removed while it was being mounted; mount it again");
}

}  // namespace warpvol
