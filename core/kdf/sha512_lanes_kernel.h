// The SHA-512 compression of sha512_lanes.h's iterations, written once over a vector type V of 64-bit lanes and
// included by the AVX-512 and AVX2 files (each compiled for its instruction set). V supplies add, xor2, xor3,
// ror<N>, shr<N>, ch, maj, set1, and gather/scatter of one word of every lane. Every iteration compresses a block
// whose second half is fixed (0x80, zeros, the length), so those message words are constants.
#pragma once
#include <atomic>
#include <cstdint>

#include "core/kdf/prf.h"
#include "core/kdf/sha512_lanes.h"
#include "core/util/secure.h"

namespace warpvol::sha512::detail {

template <class V>
struct Lanes {
  using R = typename V::Reg;

  static R big_sigma0(R a) { return V::xor3(V::template ror<28>(a), V::template ror<34>(a), V::template ror<39>(a)); }
  static R big_sigma1(R e) { return V::xor3(V::template ror<14>(e), V::template ror<18>(e), V::template ror<41>(e)); }
  static R small_sigma0(R w) { return V::xor3(V::template ror<1>(w), V::template ror<8>(w), V::template shr<7>(w)); }
  static R small_sigma1(R w) { return V::xor3(V::template ror<19>(w), V::template ror<61>(w), V::template shr<6>(w)); }

  // out = compress(init, digest || 0x80 || 0 ... || kIterationBits), init the same in every lane.
  static void compress(const R* init, const R* digest, R* out) {
    R w[16];
    for (int i = 0; i < 8; ++i) w[i] = digest[i];
    w[8] = V::set1(0x8000000000000000ull);
    for (int i = 9; i < 15; ++i) w[i] = V::set1(0);
    w[15] = V::set1(kIterationBits);
    R a = init[0], b = init[1], c = init[2], d = init[3], e = init[4], f = init[5], g = init[6], h = init[7];
    for (int t = 0; t < 80; ++t) {
      R wt;
      if (t < 16) {
        wt = w[t];
      } else {
        wt = V::add(V::add(small_sigma1(w[(t - 2) & 15]), w[(t - 7) & 15]),
                    V::add(small_sigma0(w[(t - 15) & 15]), w[(t - 16) & 15]));
        w[t & 15] = wt;
      }
      const R t1 = V::add(V::add(h, big_sigma1(e)), V::add(V::ch(e, f, g), V::add(V::set1(kK[t]), wt)));
      const R t2 = V::add(big_sigma0(a), V::maj(a, b, c));
      h = g;
      g = f;
      f = e;
      e = V::add(d, t1);
      d = c;
      c = b;
      b = a;
      a = V::add(t1, t2);
    }
    out[0] = V::add(init[0], a);
    out[1] = V::add(init[1], b);
    out[2] = V::add(init[2], c);
    out[3] = V::add(init[3], d);
    out[4] = V::add(init[4], e);
    out[5] = V::add(init[5], f);
    out[6] = V::add(init[6], g);
    out[7] = V::add(init[7], h);
  }

  static bool iterate(const uint64_t istate[8], const uint64_t ostate[8], uint64_t (*u)[8], uint64_t (*acc)[8],
                      size_t lanes, uint32_t iterations, const std::atomic<bool>* cancel) {
    R is[8], os[8], m[8], x[8];
    for (int i = 0; i < 8; ++i) {
      is[i] = V::set1(istate[i]);
      os[i] = V::set1(ostate[i]);
      m[i] = V::gather(u, lanes, i);
      x[i] = V::gather(acc, lanes, i);
    }
    bool ok = true;
    for (uint32_t it = 1; it < iterations; ++it) {
      if (pbkdf2_cancelled(cancel, it)) {
        ok = false;
        break;
      }
      R t[8];
      compress(is, m, t);
      compress(os, t, m);
      for (int i = 0; i < 8; ++i) x[i] = V::xor2(x[i], m[i]);
    }
    for (int i = 0; i < 8; ++i) {
      V::scatter(m[i], u, lanes, i);
      V::scatter(x[i], acc, lanes, i);
    }
    secure_wipe(m, sizeof m);
    secure_wipe(x, sizeof x);
    return ok;
  }
};

}  // namespace warpvol::sha512::detail
