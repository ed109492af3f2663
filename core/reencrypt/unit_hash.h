// The checksum entries of re-encryption's checksum resilience (journal.h, UnitHash): a 128-bit hash of each
// 512-byte unit.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/reencrypt/journal.h"

namespace warpvol::reenc {

// out[16 i ..] = hash of unit i of data, for nunits units, on up to `threads` threads (1: the caller's only).
void hash_units(UnitHash h, const uint8_t* data, size_t nunits, uint8_t* out, unsigned threads);

}  // namespace warpvol::reenc
