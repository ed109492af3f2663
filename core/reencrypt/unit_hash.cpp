#include "core/reencrypt/unit_hash.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cstring>

// xxHash's inline build: the functions are compiled here (header only), so static builds need no library.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/crypto/cpu_features.h"
#include "core/crypto/xts.h"
#include "core/reencrypt/unit_hash_simd.h"
#include "core/util/parallel.h"

namespace warpvol::reenc {

namespace {

void hash_range(UnitHash h, const uint8_t* data, size_t from, size_t to, uint8_t* out) {
  static_assert(kUnitHashSize == 16, "both hashes give 128 bits");
  static_assert(detail::kUnitBytes == kDataUnitSize && detail::kEntryBytes == kUnitHashSize);
  if (h == UnitHash::Xxh3_128 && active_isa() >= IsaLevel::Avx2) {
    detail::xxh3_128_units_avx2(data + from * kDataUnitSize, to - from, out + from * kUnitHashSize);
    return;
  }
  for (size_t i = from; i < to; ++i) {
    const uint8_t* unit = data + i * kDataUnitSize;
    uint8_t* dst = out + i * kUnitHashSize;
    if (h == UnitHash::Xxh3_128) {
      XXH128_canonical_t c;
      XXH128_canonicalFromHash(&c, XXH3_128bits(unit, kDataUnitSize));
      std::memcpy(dst, c.digest, kUnitHashSize);
    } else {
      uint8_t d[32];
      SHA256(unit, kDataUnitSize, d);
      std::memcpy(dst, d, kUnitHashSize);
    }
  }
}

}  // namespace

void hash_units(UnitHash h, const uint8_t* data, size_t nunits, uint8_t* out, unsigned threads) {
  const unsigned T = std::max(1u, std::min<unsigned>(threads, unsigned(nunits / 2048)));
  const size_t per = (nunits + T - 1) / T;
  run_parts(T, [&](unsigned t) {
    hash_range(h, data, std::min(nunits, t * per), std::min(nunits, (t + 1) * per), out);
  });
}

}  // namespace warpvol::reenc
