#include "core/io/safe_open.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "core/util/error.h"

namespace warpvol {

int open_regular_or_block(const std::string& path, int flags, const std::string& what, struct stat* st_out,
                          mode_t create_mode) {
  const std::string name = what.empty() ? path : what;
  int fd = ::open(path.c_str(), flags | O_NONBLOCK | O_CLOEXEC, create_mode);
  if (fd < 0) {
    // O_WRONLY|O_NONBLOCK on a FIFO without a reader fails with ENXIO: it is a FIFO, say so.
    if (errno == ENXIO) {
      struct stat st;
      if (::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode))
        throw Error(ErrorKind::Io, name + ": not a regular file or block device");
    }
    if (errno == EISDIR) throw Error(ErrorKind::Io, name + ": is a directory");
    throw_errno(name);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw_errno(name, e);
  }
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
    ::close(fd);
    if (S_ISDIR(st.st_mode)) throw Error(ErrorKind::Io, name + ": is a directory");
    throw Error(ErrorKind::Io, name + ": not a regular file or block device");
  }
  // Regular files and block devices never block on open; reads and writes must block as usual.
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0 || ::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    const int e = errno;
    ::close(fd);
    throw_errno(name + ": fcntl", e);
  }
  if (st_out) *st_out = st;
  return fd;
}

}  // namespace warpvol
