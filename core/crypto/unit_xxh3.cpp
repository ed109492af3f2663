#include "core/crypto/unit_xxh3.h"

#include <cstring>

// xxHash's inline build: the functions are compiled here (header only), so static builds need no library.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/crypto/cpu_features.h"
#include "core/crypto/unit_xxh3_simd.h"
#include "core/crypto/xts.h"

namespace warpvol {

void xxh3_128_units(const uint8_t* data, size_t nunits, uint8_t* out) {
  static_assert(detail::kUnitBytes == kDataUnitSize && detail::kEntryBytes == kUnitXxh3Bytes);
  if (active_isa() >= IsaLevel::Avx2) return detail::xxh3_128_units_avx2(data, nunits, out);
  for (size_t i = 0; i < nunits; ++i) {
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(data + i * kDataUnitSize, kDataUnitSize));
    std::memcpy(out + i * kUnitXxh3Bytes, c.digest, kUnitXxh3Bytes);
  }
}

}  // namespace warpvol
