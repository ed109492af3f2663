// Camellia-XTS with AVX-512 + GFNI: 64 blocks (two data units, 4 lanes of 16 blocks) per batch, each S-box one
// vgf2p8affineqb and one vgf2p8affineinvqb per plane of 64 bytes. See camellia_xts.h.
// GCC 12 warns falsely inside its own AVX-512 headers (_mm512_undefined_epi32, GCC bug 105593, fixed in 12.3).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "core/crypto/simd/camellia_consts.h"
#include "core/crypto/simd/camellia_kernel.h"
#include "core/crypto/simd/vec_avx512.h"

namespace warpvol::simd::camellia {

namespace {

struct V512 : VecAvx512<V512> {
  template <int s, bool kD2>  // GFNI permutes nothing: one form for both halves
  static CAMELLIA_INLINE V512 sbox(V512 x) {
    const __m512i z = _mm512_gf2p8affine_epi64_epi8(x.v, _mm512_set1_epi64(int64_t(kGfniPre[s - 1])), kGfniPreC[s - 1]);
    return {_mm512_gf2p8affineinv_epi64_epi8(z, _mm512_set1_epi64(int64_t(kGfniPost[s - 1])), kGfniPostC[s - 1])};
  }
  static CAMELLIA_INLINE V512 to_d2_order(V512 x) { return x; }
  static CAMELLIA_INLINE V512 from_d2_order(V512 x) { return x; }
};

using X = Xts<V512>;

}  // namespace

void xts_encrypt_avx512(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k, unit0, data, nunits);
}
void xts_decrypt_avx512(const CamelliaXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k, unit0, data, nunits);
}

}  // namespace warpvol::simd::camellia
