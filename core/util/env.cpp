#include "core/util/env.h"

#include <cerrno>
#include <cstdlib>

namespace warpvol {

std::optional<long> env_number(const char* name, long lo, long hi) {
  const char* e = std::getenv(name);
  if (!e || !*e) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(e, &end, 10);
  if (*end != '\0' || errno == ERANGE || n < lo || n > hi) return std::nullopt;
  return n;
}

}  // namespace warpvol
