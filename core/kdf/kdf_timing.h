// Time of one key derivation per PRF with VeraCrypt's parameters: what `warpvol benchmark` prints (one PBKDF2
// block, as opening an AES volume costs; Argon2id with its full parameters) and the GUI's benchmark window shows.
#pragma once
#include <string>

#include "core/kdf/prf.h"

namespace warpvol {

struct KdfTiming {
  PrfId prf;
  std::string parameters;  // "500000 iterations, 1 block" or "t=..., m=..."
  double seconds = 0;
};

// pim 0: VeraCrypt's defaults (TrueCrypt's count for PRFs VeraCrypt no longer offers). Throws Error(Usage) for a
// PRF without an iteration count.
KdfTiming measure_kdf(PrfId prf, int pim);

}  // namespace warpvol
