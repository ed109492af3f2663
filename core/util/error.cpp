#include "core/util/error.h"

#include <cerrno>
#include <cstring>

namespace warpvol {

std::string_view error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Usage: return "usage";
    case ErrorKind::Auth: return "auth";
    case ErrorKind::Io: return "io";
    case ErrorKind::Format: return "format";
    case ErrorKind::Busy: return "busy";
    case ErrorKind::Interrupted: return "interrupted";
  }
  return "io";
}

std::optional<ErrorKind> error_kind_from_name(std::string_view name) {
  for (ErrorKind k : kAllErrorKinds)
    if (error_kind_name(k) == name) return k;
  return std::nullopt;
}

void throw_errno(const std::string& what, int err) {
  ErrorKind kind = ErrorKind::Io;
  if (err == EEXIST || err == EBUSY || err == ETXTBSY) kind = ErrorKind::Busy;
  if (err == EINTR) kind = ErrorKind::Interrupted;
  throw Error(kind, what + ": " + std::strerror(err));
}

void throw_errno(const std::string& what) { throw_errno(what, errno); }

}  // namespace warpvol
