// SIMD XTS implementations registered for this cipher (see simd_xts.h). Only the portable path exists so far.
#include "core/crypto/simd/simd_xts.h"

namespace warpvol::simd {

void add_aes_impls(std::vector<XtsImpl>& out) { (void)out; }

}  // namespace warpvol::simd
