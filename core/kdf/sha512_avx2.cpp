// PBKDF2-HMAC-SHA-512 iterations for up to 4 chains, one 64-bit lane of each YMM register per chain (sha512_lanes.h
// says why this is written here). AVX2 has no 64-bit rotate or three-input logic: shifts, ORs and XORs instead.
#include <immintrin.h>

#include "core/kdf/sha512_lanes_kernel.h"

namespace warpvol::sha512::detail {

namespace {

struct Avx2 {
  using Reg = __m256i;
  static Reg add(Reg a, Reg b) { return _mm256_add_epi64(a, b); }
  static Reg xor2(Reg a, Reg b) { return _mm256_xor_si256(a, b); }
  static Reg xor3(Reg a, Reg b, Reg c) { return _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
  static Reg ch(Reg e, Reg f, Reg g) { return _mm256_xor_si256(_mm256_and_si256(e, f), _mm256_andnot_si256(e, g)); }
  static Reg maj(Reg a, Reg b, Reg c) {
    return _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(c, _mm256_or_si256(a, b)));
  }
  template <int N>
  static Reg ror(Reg x) { return _mm256_or_si256(_mm256_srli_epi64(x, N), _mm256_slli_epi64(x, 64 - N)); }
  template <int N>
  static Reg shr(Reg x) { return _mm256_srli_epi64(x, N); }
  static Reg set1(uint64_t v) { return _mm256_set1_epi64x(static_cast<long long>(v)); }
  static Reg gather(const uint64_t (*w)[8], size_t lanes, int i) {
    alignas(32) uint64_t v[4] = {};
    for (size_t l = 0; l < lanes; ++l) v[l] = w[l][i];
    const Reg r = _mm256_load_si256(reinterpret_cast<const Reg*>(v));
    secure_wipe(v, sizeof v);
    return r;
  }
  static void scatter(Reg r, uint64_t (*w)[8], size_t lanes, int i) {
    alignas(32) uint64_t v[4];
    _mm256_store_si256(reinterpret_cast<Reg*>(v), r);
    for (size_t l = 0; l < lanes; ++l) w[l][i] = v[l];
    secure_wipe(v, sizeof v);
  }
};

}  // namespace

bool iterate_avx2(const uint64_t istate[8], const uint64_t ostate[8], uint64_t (*u)[8], uint64_t (*acc)[8],
                  size_t lanes, uint32_t iterations, const std::atomic<bool>* cancel) {
  return Lanes<Avx2>::iterate(istate, ostate, u, acc, lanes, iterations, cancel);
}

}  // namespace warpvol::sha512::detail
