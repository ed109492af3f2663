// The XXH3-128 unit hash compiled for a vector instruction set (unit_hash_avx2.cpp), for unit_hash.cpp's dispatch.
// Plain C types only: this header is included where AVX2 code is generated.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace warpvol::reenc::detail {

constexpr size_t kUnitBytes = 512;   // kDataUnitSize
constexpr size_t kEntryBytes = 16;   // kUnitHashSize

// out[16 i ..] = canonical XXH3-128 of the 512 bytes at data + 512 i, for nunits units.
void xxh3_128_units_avx2(const uint8_t* data, size_t nunits, uint8_t* out);

}  // namespace warpvol::reenc::detail
