#include "core/reencrypt/job_support.h"

#include "core/kdf/prf.h"
#include "core/util/error.h"

namespace warpvol::reenc {

std::string size_text(uint64_t n) {
  if (n % (1 << 20) == 0) return std::to_string(n >> 20) + " MiB";
  return std::to_string(n) + " bytes";
}

KdfChoice existing_kdf(PrfId prf, VolumeFormat fmt, int pim) {
  KdfChoice k;
  k.prf = prf;
  if (prf == PrfId::Argon2id) {
    k.argon2 = argon2_params(pim);
    return k;
  }
  k.iterations = pbkdf2_iterations(prf, fmt, pim, false);
  if (k.iterations == 0)
    throw Error(ErrorKind::Usage, "no iteration count for " + std::string(prf_info(prf).name) + " with this PIM");
  return k;
}

}  // namespace warpvol::reenc
