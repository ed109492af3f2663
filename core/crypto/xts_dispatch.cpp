// Chooses the XTS implementation for a cipher: the registered SIMD path with the highest ISA level not above the
// requested one, else the portable path.
#include "core/crypto/simd/simd_xts.h"

namespace warpvol {

namespace simd {
const std::vector<XtsImpl>& all_impls() {
  static const std::vector<XtsImpl> impls = [] {
    std::vector<XtsImpl> v;
    add_aes_impls(v);
    add_serpent_impls(v);
    add_twofish_impls(v);
    add_camellia_impls(v);
    add_kuznyechik_impls(v);
    return v;
  }();
  return impls;
}
}  // namespace simd

std::unique_ptr<XtsCipher> make_xts(CipherId id, const uint8_t* key1, const uint8_t* key2, IsaLevel max_level) {
  const simd::XtsImpl* best = nullptr;
  const IsaLevel limit = static_cast<int>(max_level) < static_cast<int>(detected_isa()) ? max_level : detected_isa();
  for (const auto& impl : simd::all_impls()) {
    if (impl.cipher != id || static_cast<int>(impl.level) > static_cast<int>(limit)) continue;
    if (!best || static_cast<int>(impl.level) > static_cast<int>(best->level)) best = &impl;
  }
  if (best) return best->make(key1, key2);
  return make_xts_portable(id, key1, key2);
}

std::unique_ptr<XtsCipher> make_xts(CipherId id, const uint8_t* key1, const uint8_t* key2) {
  return make_xts(id, key1, key2, active_isa());
}

}  // namespace warpvol
