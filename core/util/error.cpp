#include "core/util/error.h"

#include <cerrno>
#include <cstring>

namespace warpvol {

void throw_errno(const std::string& what, int err) {
  ErrorKind kind = ErrorKind::Io;
  if (err == EEXIST || err == EBUSY || err == ETXTBSY) kind = ErrorKind::Busy;
  if (err == EINTR) kind = ErrorKind::Interrupted;
  throw Error(kind, what + ": " + std::strerror(err));
}

void throw_errno(const std::string& what) { throw_errno(what, errno); }

}  // namespace warpvol
