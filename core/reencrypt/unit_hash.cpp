#include "core/reencrypt/unit_hash.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cstring>

#include "core/crypto/unit_xxh3.h"
#include "core/crypto/xts.h"
#include "core/util/parallel.h"

namespace warpvol::reenc {

namespace {

void hash_range(UnitHash h, const uint8_t* data, size_t from, size_t to, uint8_t* out) {
  static_assert(kUnitHashSize == 16, "both hashes give 128 bits");
  static_assert(kUnitXxh3Bytes == kUnitHashSize);
  if (h == UnitHash::Xxh3_128) {
    xxh3_128_units(data + from * kDataUnitSize, to - from, out + from * kUnitHashSize);
    return;
  }
  for (size_t i = from; i < to; ++i) {
    uint8_t d[32];
    SHA256(data + i * kDataUnitSize, kDataUnitSize, d);
    std::memcpy(out + i * kUnitHashSize, d, kUnitHashSize);
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
