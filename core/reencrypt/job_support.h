// Small pieces that re-encryption (reencrypt.cpp) and legacy migration (migrate.cpp) share.
#pragma once
#include <cstdint>
#include <string>

#include "core/format/header.h"
#include "core/kdf/prf.h"

namespace warpvol::reenc {

// "32 MiB" for whole MiB, else "N bytes" (messages).
std::string size_text(uint64_t n);

// KDF parameters of an existing header from its PRF, format and the PIM the user gives: never from numbers in a
// journal, so a forged journal cannot ask for an endless derivation. Error(Usage) for a PIM without an iteration
// count.
KdfChoice existing_kdf(PrfId prf, VolumeFormat fmt, int pim);

}  // namespace warpvol::reenc
