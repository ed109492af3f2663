#include "core/io/container_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "core/util/error.h"

namespace warpvol {

void refuse_container_in_use(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  const bool busy = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // also drops the probe's own lock
  if (busy)
    throw Error(ErrorKind::Busy, path + ": in use (mounted by warpvol or being re-encrypted); dismount it first");
}

}  // namespace warpvol
