// Checksum entries (core/reencrypt/unit_hash.h) against xxHash's scalar code compiled here (no vector unit), on
// every instruction-set level the CPU offers: the AVX2 copy of XXH3 (core/crypto/unit_xxh3_avx2.cpp) must give the same
// entries as the portable build, or a journal written on one machine would not resume on another.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

// The reference: xxHash's scalar accumulator, whatever this file is compiled for.
#define XXH_INLINE_ALL
#define XXH_VECTOR 0
#include <xxhash.h>

#include "core/crypto/cpu_features.h"
#include "core/reencrypt/unit_hash.h"

using namespace warpvol;
using namespace warpvol::reenc;

TEST_CASE("reencrypt: XXH3-128 checksum entries equal xxHash's scalar code on every instruction-set level",
          "[reencrypt][journal]") {
  constexpr size_t kUnits = 3000;  // several threads' worth (hash_units splits from 2048 units per thread)
  std::vector<uint8_t> data(kUnits * kDataUnitSize);
  std::mt19937_64 rng(5);
  for (auto& b : data) b = uint8_t(rng());
  std::vector<uint8_t> want(kUnits * kUnitHashSize);
  for (size_t i = 0; i < kUnits; ++i) {
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(data.data() + i * kDataUnitSize, kDataUnitSize));
    std::memcpy(want.data() + i * kUnitHashSize, c.digest, kUnitHashSize);
  }
  for (IsaLevel level : {IsaLevel::Portable, IsaLevel::AesNi, IsaLevel::Avx2, IsaLevel::Avx512}) {
    if (level > detected_isa()) continue;
    set_isa_override(level);
    INFO("isa " << isa_name(level));
    for (unsigned threads : {1u, 2u}) {
      std::vector<uint8_t> got(want.size(), 0);
      hash_units(UnitHash::Xxh3_128, data.data(), kUnits, got.data(), threads);
      CHECK(got == want);
      // A run that starts at an odd unit (the engine hands pieces over wherever they begin).
      std::vector<uint8_t> part(10 * kUnitHashSize, 0);
      hash_units(UnitHash::Xxh3_128, data.data() + 7 * kDataUnitSize, 10, part.data(), threads);
      CHECK(std::memcmp(part.data(), want.data() + 7 * kUnitHashSize, part.size()) == 0);
    }
  }
  set_isa_override(std::nullopt);
}
