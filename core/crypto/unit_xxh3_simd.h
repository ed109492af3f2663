// XXH3-128 of 512-byte units compiled for a vector instruction set (unit_xxh3_avx2.cpp), for unit_xxh3.cpp's
// dispatch. Plain C types only: this header is included where AVX2 code is generated.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace warpvol::detail {

constexpr size_t kUnitBytes = 512;  // kDataUnitSize
constexpr size_t kEntryBytes = 16;  // kUnitXxh3Bytes

// out[16 i ..] = canonical XXH3-128 of the 512 bytes at data + 512 i, for nunits units.
void xxh3_128_units_avx2(const uint8_t* data, size_t nunits, uint8_t* out);

}  // namespace warpvol::detail
