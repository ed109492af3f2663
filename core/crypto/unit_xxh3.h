// XXH3-128 of each 512-byte data unit, in its canonical (big-endian) form: re-encryption's checksum entries
// (core/reencrypt/journal.h, UnitHash::Xxh3_128), which an engine may compute beside the data it transforms
// (XtsEngine::reencrypt_hashed; the GPU engine's kernel in gpu/xxh3_device.cuh gives the same bytes).
#pragma once
#include <cstddef>
#include <cstdint>

namespace warpvol {

constexpr size_t kUnitXxh3Bytes = 16;

// out[16 i ..] = XXH3-128 of the 512 bytes at data + 512 i, for nunits units, on the caller's thread.
void xxh3_128_units(const uint8_t* data, size_t nunits, uint8_t* out);

}  // namespace warpvol
