// Numbers from the environment: the tuning and measurement settings (WARPVOL_STREAM_*, WARPVOL_AUTO_*, ...) that
// bench/ and docs/perf runs set to compare a default against another value in one binary.
#pragma once
#include <optional>

namespace warpvol {

// Environment variable `name` as a whole number when it is one (nothing else in it: empty, "8x" or "1.5" read as
// unset, so a stray value never becomes 0) and within [lo, hi]; nullopt otherwise.
std::optional<long> env_number(const char* name, long lo, long hi);

}  // namespace warpvol
