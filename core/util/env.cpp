#include "core/util/env.h"

#include <cstdlib>

namespace warpvol {

std::optional<long> env_number(const char* name, long lo, long hi) {
  const char* e = std::getenv(name);
  if (!e) return std::nullopt;
  const long n = std::strtol(e, nullptr, 10);
  if (n < lo || n > hi) return std::nullopt;
  return n;
}

}  // namespace warpvol
