// PBKDF2-HMAC-SHA-512 iterations for up to 8 chains, one 64-bit lane of each ZMM register per chain (sha512_lanes.h
// says why this is written here). AVX-512F has the 64-bit rotate and the three-input logic ops SHA-512 needs.
// GCC 12 warns about the undefined pass-through operand inside its own AVX-512 intrinsics (a false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "core/kdf/sha512_lanes_kernel.h"

namespace warpvol::sha512::detail {

namespace {

struct Avx512 {
  using Reg = __m512i;
  static Reg add(Reg a, Reg b) { return _mm512_add_epi64(a, b); }
  static Reg xor2(Reg a, Reg b) { return _mm512_xor_si512(a, b); }
  static Reg xor3(Reg a, Reg b, Reg c) { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }
  static Reg ch(Reg e, Reg f, Reg g) { return _mm512_ternarylogic_epi64(e, f, g, 0xCA); }
  static Reg maj(Reg a, Reg b, Reg c) { return _mm512_ternarylogic_epi64(a, b, c, 0xE8); }
  template <int N>
  static Reg ror(Reg x) { return _mm512_ror_epi64(x, N); }
  template <int N>
  static Reg shr(Reg x) { return _mm512_srli_epi64(x, N); }
  static Reg set1(uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }
  static Reg gather(const uint64_t (*w)[8], size_t lanes, int i) {
    alignas(64) uint64_t v[8] = {};
    for (size_t l = 0; l < lanes; ++l) v[l] = w[l][i];
    const Reg r = _mm512_load_si512(v);
    secure_wipe(v, sizeof v);
    return r;
  }
  static void scatter(Reg r, uint64_t (*w)[8], size_t lanes, int i) {
    alignas(64) uint64_t v[8];
    _mm512_store_si512(v, r);
    for (size_t l = 0; l < lanes; ++l) w[l][i] = v[l];
    secure_wipe(v, sizeof v);
  }
};

}  // namespace

bool iterate_avx512(const uint64_t istate[8], const uint64_t ostate[8], uint64_t (*u)[8], uint64_t (*acc)[8],
                    size_t lanes, uint32_t iterations, const std::atomic<bool>* cancel) {
  return Lanes<Avx512>::iterate(istate, ostate, u, acc, lanes, iterations, cancel);
}

}  // namespace warpvol::sha512::detail
