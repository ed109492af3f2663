// SIMD XTS implementations registered for Kuznyechik (see simd_xts.h):
//   AesNi level:  table-driven XTS with fused tweaks, 4 blocks in flight (kuznyechik_tables.cpp; SSE2 only);
//   Avx512 level: byte-sliced AVX-512 + GFNI kernel, 64 blocks at a time (kuznyechik_avx512.cpp). It also needs
//                 AVX512-VBMI (VPERMT2B), which the Avx512 level includes (cpu_features.cpp).
#include "core/crypto/simd/simd_xts.h"

namespace warpvol::simd {

std::unique_ptr<XtsCipher> make_kuznyechik_xts_tables(const uint8_t* key1, const uint8_t* key2);
std::unique_ptr<XtsCipher> make_kuznyechik_xts_avx512(const uint8_t* key1, const uint8_t* key2);

void add_kuznyechik_impls(std::vector<XtsImpl>& out) {
  out.push_back({CipherId::Kuznyechik, IsaLevel::AesNi, &make_kuznyechik_xts_tables});
  out.push_back({CipherId::Kuznyechik, IsaLevel::Avx512, &make_kuznyechik_xts_avx512});
}

}  // namespace warpvol::simd
