// PBKDF2-HMAC-BLAKE2s iterations for up to 8 chains at once, one 32-bit lane of each AVX2 register per chain
// (blake2s.h says why this is written here). Every iteration is two compressions of a block whose second half is
// zero (a 32-byte digest) with the same counter and final flag, so the rounds are unrolled with the message
// schedule known at compile time and the additions of zero words fold away.
#include <immintrin.h>

#include <cstring>

#include "core/kdf/blake2s.h"
#include "core/util/secure.h"

namespace warpvol::blake2s::detail {

namespace {

inline __m256i add(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
inline __m256i rotr16(__m256i x) {
  return _mm256_shuffle_epi8(x, _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6,
                                                 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
}
inline __m256i rotr8(__m256i x) {
  return _mm256_shuffle_epi8(x, _mm256_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0, 5,
                                                 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12));
}
template <int N>
inline __m256i rotr(__m256i x) {
  return _mm256_or_si256(_mm256_srli_epi32(x, N), _mm256_slli_epi32(x, 32 - N));
}

inline void g(__m256i& a, __m256i& b, __m256i& c, __m256i& d, __m256i x, __m256i y) {
  a = add(add(a, b), x);
  d = rotr16(_mm256_xor_si256(d, a));
  c = add(c, d);
  b = rotr<12>(_mm256_xor_si256(b, c));
  a = add(add(a, b), y);
  d = rotr8(_mm256_xor_si256(d, a));
  c = add(c, d);
  b = rotr<7>(_mm256_xor_si256(b, c));
}

// (Writing the four G functions of a half-round side by side, step by step, was slower: more spills of the 16 state
// vectors, which already fill the 16 YMM registers; docs/perf/design-figures.md, "BLAKE2s and SHA-2 PBKDF2".)
template <int R>
inline void round(__m256i* v, const __m256i* m) {
  constexpr const uint8_t* s = kSigma[R];
  g(v[0], v[4], v[8], v[12], m[s[0]], m[s[1]]);
  g(v[1], v[5], v[9], v[13], m[s[2]], m[s[3]]);
  g(v[2], v[6], v[10], v[14], m[s[4]], m[s[5]]);
  g(v[3], v[7], v[11], v[15], m[s[6]], m[s[7]]);
  g(v[0], v[5], v[10], v[15], m[s[8]], m[s[9]]);
  g(v[1], v[6], v[11], v[12], m[s[10]], m[s[11]]);
  g(v[2], v[7], v[8], v[13], m[s[12]], m[s[13]]);
  g(v[3], v[4], v[9], v[14], m[s[14]], m[s[15]]);
}

// out = F(h, digest || zeros, t = 96, last) for every lane.
inline void compress(const __m256i* h, const __m256i* digest, __m256i* out) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i m[16] = {digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
                         zero,      zero,      zero,      zero,      zero,      zero,      zero,      zero};
  __m256i v[16];
  for (int i = 0; i < 8; ++i) v[i] = h[i];
  for (int i = 0; i < 8; ++i) v[8 + i] = _mm256_set1_epi32(int(kIv[i]));
  v[12] = _mm256_set1_epi32(int(kIv[4] ^ kIterationBytes));
  v[14] = _mm256_set1_epi32(int(~kIv[6]));
  round<0>(v, m);
  round<1>(v, m);
  round<2>(v, m);
  round<3>(v, m);
  round<4>(v, m);
  round<5>(v, m);
  round<6>(v, m);
  round<7>(v, m);
  round<8>(v, m);
  round<9>(v, m);
  for (int i = 0; i < 8; ++i) out[i] = _mm256_xor_si256(h[i], _mm256_xor_si256(v[i], v[8 + i]));
}

}  // namespace

bool iterate_avx2(const uint32_t istate[8], const uint32_t ostate[8], uint32_t (*u)[8], uint32_t (*acc)[8],
                  size_t lanes, uint32_t iterations, const std::atomic<bool>* cancel) {
  // Word-major: vector w holds word w of every chain (lanes past `lanes` compute garbage that is never stored).
  alignas(32) uint32_t t[8][8] = {};
  __m256i ih[8], oh[8], cur[8], sum[8];
  for (int w = 0; w < 8; ++w) {
    ih[w] = _mm256_set1_epi32(int(istate[w]));
    oh[w] = _mm256_set1_epi32(int(ostate[w]));
  }
  for (size_t l = 0; l < lanes; ++l)
    for (int w = 0; w < 8; ++w) t[w][l] = u[l][w];
  for (int w = 0; w < 8; ++w) cur[w] = _mm256_load_si256(reinterpret_cast<const __m256i*>(t[w]));
  for (size_t l = 0; l < lanes; ++l)
    for (int w = 0; w < 8; ++w) t[w][l] = acc[l][w];
  for (int w = 0; w < 8; ++w) sum[w] = _mm256_load_si256(reinterpret_cast<const __m256i*>(t[w]));

  bool ok = true;
  for (uint32_t i = 1; i < iterations; ++i) {
    if (pbkdf2_cancelled(cancel, i)) {
      ok = false;
      break;
    }
    __m256i inner[8];
    compress(ih, cur, inner);
    compress(oh, inner, cur);
    for (int w = 0; w < 8; ++w) sum[w] = _mm256_xor_si256(sum[w], cur[w]);
  }
  for (int w = 0; w < 8; ++w) _mm256_store_si256(reinterpret_cast<__m256i*>(t[w]), sum[w]);
  for (size_t l = 0; l < lanes; ++l)
    for (int w = 0; w < 8; ++w) acc[l][w] = t[w][l];
  secure_wipe(t, sizeof t);
  secure_wipe(cur, sizeof cur);
  secure_wipe(sum, sizeof sum);
  return ok;
}

}  // namespace warpvol::blake2s::detail
