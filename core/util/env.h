// Numbers from the environment: the tuning and measurement settings (WARPVOL_STREAM_*, WARPVOL_AUTO_*, ...) that
// bench/ and docs/perf runs set to compare a default against another value in one binary.
#pragma once
#include <optional>

namespace warpvol {

// The leading whole number of environment variable `name` (strtol: none reads as 0) when it is set and within
// [lo, hi]; nullopt otherwise.
std::optional<long> env_number(const char* name, long lo, long hi);

}  // namespace warpvol
