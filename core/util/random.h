// Randomness for everything warpvol creates (master keys, salts, fake headers, throw-away fill keys, keyfiles):
// the kernel CSPRNG through getrandom(2), blocking until it is seeded, never /dev/random-style entropy estimates.
//
// Optional mixing with a user-supplied random source (`--random-source FILE`, as in VeraCrypt):
//   D = SHA-512(first up to 1 MiB of FILE)                        (set once by set_random_source)
//   output block i (64 bytes) = G_i XOR SHA-512(D || LE64(i))
// where G_i are fresh getrandom bytes and i is a process-wide counter that never repeats. For a fixed D the map
// G_i -> output is a bijection, so the output is exactly as unpredictable as getrandom alone even to someone who
// knows the file; and someone who could predict G_i but not the file still faces SHA-512 of the file's bytes.
// Without a random source the output is exactly getrandom's bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/util/secure.h"

namespace warpvol {

// Fills p[0..n) with CSPRNG bytes. Thread-safe. Throws Error(Io) if the kernel RNG fails.
void random_bytes(uint8_t* p, size_t n);
LockedBytes random_locked(size_t n);

// Reads up to 1 MiB of `path` and mixes its SHA-512 into all later output (see above). Throws Error(Io) when the
// file cannot be read, Error(Usage) when it is empty. Returns the number of bytes used.
size_t set_random_source(const std::string& path);
// Forgets the random source (tests).
void clear_random_source();
bool random_source_set();

}  // namespace warpvol
