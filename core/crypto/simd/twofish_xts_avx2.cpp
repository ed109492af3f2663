// Twofish-XTS, AVX2: 8 blocks per register set word-sliced across the 32-bit lanes of 4 ymm, 2 sets per batch; each
// of the 8 table lookups of a round is one vpgatherdd over the 4 KiB of MDS-combined S-box tables. See
// twofish_xts.h; which of this and the scalar kernel is registered is decided in twofish_impls.cpp.
#include <immintrin.h>

#include "core/crypto/simd/twofish_kernel.h"
#include "core/crypto/simd/vec_avx2.h"

namespace warpvol::simd::twofish {

namespace {

struct V256 : VecAvx2<V256> {};

using X = Xts<V256, 2>;

}  // namespace

void xts_encrypt_avx2(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<true>(k, unit0, data, nunits);
}
void xts_decrypt_avx2(const TwofishXtsKeys* k, uint64_t unit0, uint8_t* data, size_t nunits) {
  X::run<false>(k, unit0, data, nunits);
}

}  // namespace warpvol::simd::twofish
