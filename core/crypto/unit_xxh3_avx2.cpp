// XXH3-128 of 512-byte units, compiled for AVX2 (the file name's suffix: core/CMakeLists.txt). xxHash picks its
// vector code at compile time, and the portable build's SSE2 code took about twice as long per unit; unit_xxh3.cpp
// calls this where the CPU runs the AVX2 paths. The hash is the same whichever code computes it.
#include "core/crypto/unit_xxh3_simd.h"

// Inline build (static functions, local to this file), so this copy's vector code stays here.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace warpvol::detail {

void xxh3_128_units_avx2(const uint8_t* data, size_t nunits, uint8_t* out) {
  for (size_t i = 0; i < nunits; ++i) {
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(data + i * kUnitBytes, kUnitBytes));
    __builtin_memcpy(out + i * kEntryBytes, c.digest, kEntryBytes);
  }
}

}  // namespace warpvol::detail
