// `warpvol keyfile create`: a new keyfile of random bytes (CSPRNG, random.h), mode 0600, written atomically.
#pragma once
#include <cstddef>
#include <string>

namespace warpvol {

constexpr size_t kKeyfileMinSize = 64;                 // VeraCrypt's default keyfile size
constexpr size_t kKeyfileMaxSize = size_t(1) << 20;    // only the first 1 MiB of a keyfile is used (spec §4.2)

// Throws Error(Usage) for a size outside 64..1 MiB, Error(Busy) when the file exists and !force.
void create_keyfile(const std::string& path, size_t size, bool force);

}  // namespace warpvol
