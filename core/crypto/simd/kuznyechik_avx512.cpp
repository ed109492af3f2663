// Kuznyechik-XTS with AVX-512 + GFNI + AVX512-VBMI, byte-sliced, 64 blocks (two 512-byte data units) at a time.
//
// Layout: the 1024 bytes of a batch sit in 16 zmm registers, 4 blocks each. A transposition (4 butterfly stages of
// in-lane byte shifts and blends, its own inverse) turns that into "register k holds byte k of all 64 blocks", so
// every step of the cipher works on whole registers with no per-byte extraction:
//   * S (pi) is a 256-entry byte table lookup: two VPERMT2B over the 4 registers holding pi, selected by bit 7;
//   * L = R^16, and one R step adds 16 registers with GF(2^8) coefficients. Multiplying by a constant in
//     GF(2^8) mod 0x1C3 is GF(2)-linear, so each is one GF2P8AFFINEQB with a fixed 8x8 bit matrix. The coefficients
//     are symmetric (kLinear[k] == kLinear[14-k]), so registers sharing a coefficient are added first:
//     7 affine products and 10 XOR / 3-way-XOR ops per R step; R's byte shift is only a renaming of registers;
//   * round keys cost no extra instruction: the first (and last, for decryption) is added with the XTS tweak in the
//     natural layout before/after the transposition, the others as byte-broadcast constants in the final XOR of the
//     L steps (precomputed per key so that they also cancel out of the later steps that read those registers; for
//     decryption as L^-1(K_i), since L^-1 is linear).
// The XTS tweaks are computed in scalar code and XORed in the natural layout before and after the transposition.
// The first tweak of each unit, E_K2(LE64(unit) || 0^8), comes from the same 64-block kernel for runs of 8 or more
// units, else from the table-driven block cipher. A call with an odd number of units ends with one unit processed
// in a half-empty batch (a single-unit call therefore runs at about half the speed of longer ones).
//
// The kernel is a template over a small "vector policy" whose functions map one to one onto intrinsics; only the
// AVX-512 policy is instantiated here. Registered only when the CPU also has AVX512-VBMI (VPERMT2B), which the
// Avx512 ISA level does not imply.
#include <immintrin.h>

#include <cstring>
#include <memory>
#include <utility>

#include "core/crypto/kuznyechik.h"
#include "core/crypto/simd/simd_xts.h"
#include "core/util/secure.h"

#pragma GCC push_options
#pragma GCC target("avx512vbmi")

namespace warpvol::simd {

// Internal linkage for everything compiled with the AVX-512 flags: no inline or template function of this file may
// be merged by the linker with a copy from a TU compiled for a lower ISA level.
namespace {
namespace kuz_sliced {

using kuznyechik::kLinear;

// GF(2^8) mod 0x1C3 multiplication for the key setup (a local copy: the header's inline gf_mul must not be emitted
// from this TU, see above).
uint8_t gf_mul_local(uint8_t a, uint8_t b) {
  uint8_t r = 0;
  for (; b; b >>= 1) {
    if (b & 1) r ^= a;
    a = static_cast<uint8_t>((a << 1) ^ ((a & 0x80) ? 0xC3 : 0x00));
  }
  return r;
}

// Multiplication by c in GF(2^8) mod 0x1C3 as a GF2P8AFFINEQB matrix: output bit i of each byte is
// parity(row_i AND x), with row_i in byte 7-i of the qword; row_i bit j = bit i of c * x^j.
constexpr uint64_t affine_mul(uint8_t c) {
  uint64_t m = 0;
  for (int i = 0; i < 8; ++i) {
    unsigned row = 0;
    for (int j = 0; j < 8; ++j)
      if ((kuznyechik::gf_mul(c, static_cast<uint8_t>(1u << j)) >> i) & 1u) row |= 1u << j;
    m |= static_cast<uint64_t>(row) << (8 * (7 - i));
  }
  return m;
}

static_assert(kLinear[0] == 148 && kLinear[1] == 32 && kLinear[2] == 133 && kLinear[3] == 16 && kLinear[4] == 194 &&
              kLinear[5] == 192 && kLinear[6] == 1 && kLinear[7] == 251 && kLinear[15] == 1);
constexpr bool symmetric() {
  for (int k = 0; k < 15; ++k)
    if (kLinear[k] != kLinear[14 - k]) return false;
  return true;
}
static_assert(symmetric());

constexpr uint64_t kM148 = affine_mul(148), kM32 = affine_mul(32), kM133 = affine_mul(133), kM16 = affine_mul(16),
                   kM194 = affine_mul(194), kM192 = affine_mul(192), kM251 = affine_mul(251);

// Round keys in the forms the kernel adds them. rep[r] = K_{r+1} repeated 4 times (natural layout, 4 blocks per
// register). enc[r][j] / dec[r][j]: 64 copies of the byte added in the final XOR of the L (L^-1) step that writes
// register j, such that after all 16 steps register k holds byte k of L(y) ^ K_{r+1} (of L^-1(y) ^ L^-1(K_{r+1})).
// That byte is not simply the key byte: a value written in step T is an input of the following steps, so a constant
// added to it shifts their sums too. fold_steps() runs the step recurrence on those constants (the "deviations")
// and subtracts what earlier steps already contributed.
struct SlicedKeys {
  alignas(64) uint8_t rep[10][64];
  alignas(64) uint8_t enc[10][16][64];
  alignas(64) uint8_t dec[10][16][64];

  template <bool Inverse>
  static void fold_steps(const uint8_t* key, uint8_t (*out)[64]) {
    uint8_t dev[16] = {};  // register-indexed deviation from the key-less values
    for (int t = 0; t < 16; ++t) {
      uint8_t sum = 0;
      int dst;
      if (!Inverse) {  // r_step: b[k] = reg[(k - t) & 15], sum_k kLinear[k] * b[k], written to b[15]'s register
        for (int k = 0; k < 16; ++k) sum ^= gf_mul_local(kLinear[k], dev[(k - t) & 15]);
        dst = (15 - t) & 15;
      } else {  // r_inv_step: b[k] = reg[(k + t) & 15], sum_k kLinear[k] * b[k+1] + kLinear[15] * b[0], into b[0]'s
        for (int k = 0; k < 15; ++k) sum ^= gf_mul_local(kLinear[k], dev[(k + 1 + t) & 15]);
        sum ^= gf_mul_local(kLinear[15], dev[t & 15]);
        dst = t & 15;
      }
      std::memset(out[dst], key[dst] ^ sum, 64);
      dev[dst] = key[dst];
    }
  }

  void init(const kuznyechik::RoundKeys& rk, bool with_dec) {
    for (int r = 0; r < 10; ++r) {
      for (int l = 0; l < 4; ++l) std::memcpy(rep[r] + 16 * l, rk.enc[r], 16);
      fold_steps<false>(rk.enc[r], enc[r]);
      if (with_dec) fold_steps<true>(rk.dec[r], dec[r]);
    }
  }
};

template <class P>
struct Kernel {
  using V = typename P::V;

  // Stage S of the transposition: swaps bit S of the register index with bit S of the byte position (positions
  // 0..15 within a 128-bit lane are the byte index within a block). Applying stages 0..3 maps byte k of block
  // 4r + l (register r, position 16l + k) to register k, position 16l + r; applying them again maps it back.
  template <int S>
  static inline void stage(V* z) {
#pragma GCC unroll 16
    for (int r = 0; r < 16; ++r) {
      if (r & (1 << S)) continue;
      const V x = z[r], y = z[r | (1 << S)];
      z[r] = P::template blend_bit<S>(x, P::template shl<(1 << S)>(y));
      z[r | (1 << S)] = P::template blend_bit<S>(P::template shr<(1 << S)>(x), y);
    }
  }
  static inline void transpose(V* z) {
    stage<0>(z);
    stage<1>(z);
    stage<2>(z);
    stage<3>(z);
  }

  // One R step, number T of 16: logical byte b[k] lives in z[(k - T) & 15]; the new b[0] = l(b) replaces b[15].
  // The sum is ordered so that b[0], the result of the previous step, comes in last (shortest dependency chain).
  // With kb, the round key vectors of SlicedKeys are added in the same final XOR.
  template <bool Key, int T>
  static inline void r_step(V* z, const uint8_t* kb) {
    auto b = [z](int k) -> V { return z[(k - T) & 15]; };
    V acc = P::xor3(b(15), b(6), b(8));
    acc = P::xor3(acc, P::mul(kM192, P::xor2(b(5), b(9))), P::mul(kM194, P::xor2(b(4), b(10))));
    acc = P::xor3(acc, P::mul(kM16, P::xor2(b(3), b(11))), P::mul(kM133, P::xor2(b(2), b(12))));
    acc = P::xor3(acc, P::mul(kM251, b(7)), P::mul(kM32, P::xor2(b(1), b(13))));
    const V last = P::mul(kM148, P::xor2(b(0), b(14)));
    constexpr int dst = (15 - T) & 15;
    z[dst] = Key ? P::xor3(acc, last, P::load(kb + 64 * dst)) : P::xor2(acc, last);
  }
  // One R^-1 step: logical b[k] lives in z[(k + T) & 15]; the new b[15] = l(b[1..15], b[0]) replaces b[0]; the
  // newest value is b[15]. With kb, adds key vectors as in r_step.
  template <bool Key, int T>
  static inline void r_inv_step(V* z, const uint8_t* kb) {
    auto b = [z](int k) -> V { return z[(k + T) & 15]; };
    V acc = P::xor3(b(0), b(7), b(9));
    acc = P::xor3(acc, P::mul(kM192, P::xor2(b(6), b(10))), P::mul(kM194, P::xor2(b(5), b(11))));
    acc = P::xor3(acc, P::mul(kM16, P::xor2(b(4), b(12))), P::mul(kM133, P::xor2(b(3), b(13))));
    acc = P::xor3(acc, P::mul(kM251, b(8)), P::mul(kM32, P::xor2(b(2), b(14))));
    const V last = P::mul(kM148, P::xor2(b(1), b(15)));
    constexpr int dst = T & 15;
    z[dst] = Key ? P::xor3(acc, last, P::load(kb + 64 * dst)) : P::xor2(acc, last);
  }
  template <bool Key, size_t... T>
  static inline void l_all(V* z, const uint8_t* kb, std::index_sequence<T...>) {
    (r_step<Key, static_cast<int>(T)>(z, kb), ...);
  }
  template <bool Key, size_t... T>
  static inline void l_inv_all(V* z, const uint8_t* kb, std::index_sequence<T...>) {
    (r_inv_step<Key, static_cast<int>(T)>(z, kb), ...);
  }

  // 64 blocks: out = E(in ^ tw) ^ tw. E = X[K10] LSX[K9] ... LSX[K1]: K1 is added in the natural layout together
  // with the tweak (ks.rep[0]), K2..K10 inside the L steps (ks.enc[1..9], byte-broadcast vectors).
  static void encrypt64(const P& p, const SlicedKeys& ks, const uint8_t* in, uint8_t* out, const uint8_t* tw) {
    V z[16];
    const V k1 = P::load(ks.rep[0]);
#pragma GCC unroll 16
    for (int r = 0; r < 16; ++r) z[r] = P::xor3(P::load(in + 64 * r), P::load(tw + 64 * r), k1);
    transpose(z);
    for (int round = 1; round < 10; ++round) {
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i) z[i] = p.sbox(z[i]);
      l_all<true>(z, ks.enc[round][0], std::make_index_sequence<16>{});
    }
    transpose(z);
#pragma GCC unroll 16
    for (int r = 0; r < 16; ++r) P::store(out + 64 * r, P::xor2(z[r], P::load(tw + 64 * r)));
  }

  // D = X[K1] S^-1 L^-1 X[K2] ... S^-1 L^-1 X[K10]. Since L^-1 is linear, L^-1(y ^ K_i) = L^-1(y) ^ L^-1(K_i): K10 is
  // added with the tweak (ks.rep[9]), L^-1(K9)..L^-1(K2) inside the L^-1 steps (ks.dec[8..1]), K1 with the output
  // tweak (ks.rep[0]).
  static void decrypt64(const P& p, const SlicedKeys& ks, const uint8_t* in, uint8_t* out, const uint8_t* tw) {
    V z[16];
    const V k10 = P::load(ks.rep[9]);
#pragma GCC unroll 16
    for (int r = 0; r < 16; ++r) z[r] = P::xor3(P::load(in + 64 * r), P::load(tw + 64 * r), k10);
    transpose(z);
    l_inv_all<false>(z, nullptr, std::make_index_sequence<16>{});
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) z[i] = p.sbox_inv(z[i]);
    for (int round = 8; round >= 1; --round) {
      l_inv_all<true>(z, ks.dec[round][0], std::make_index_sequence<16>{});
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i) z[i] = p.sbox_inv(z[i]);
    }
    transpose(z);
    const V k1 = P::load(ks.rep[0]);
#pragma GCC unroll 16
    for (int r = 0; r < 16; ++r) P::store(out + 64 * r, P::xor3(z[r], P::load(tw + 64 * r), k1));
  }
};

struct Avx512Policy {
  using V = __m512i;
  V s0, s1, s2, s3;  // pi[0..63], pi[64..127], pi[128..191], pi[192..255]
  V i0, i1, i2, i3;  // pi^-1 likewise

  Avx512Policy() {
    const uint8_t* inv = kuznyechik::pi_inv();
    s0 = _mm512_loadu_si512(kuznyechik::kPi);
    s1 = _mm512_loadu_si512(kuznyechik::kPi + 64);
    s2 = _mm512_loadu_si512(kuznyechik::kPi + 128);
    s3 = _mm512_loadu_si512(kuznyechik::kPi + 192);
    i0 = _mm512_loadu_si512(inv);
    i1 = _mm512_loadu_si512(inv + 64);
    i2 = _mm512_loadu_si512(inv + 128);
    i3 = _mm512_loadu_si512(inv + 192);
  }
  static V load(const uint8_t* p) { return _mm512_loadu_si512(p); }
  static void store(uint8_t* p, V v) { _mm512_storeu_si512(p, v); }
  static V xor2(V a, V b) { return _mm512_xor_si512(a, b); }
  static V xor3(V a, V b, V c) { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }
  static V bcast(uint8_t v) { return _mm512_set1_epi8(static_cast<char>(v)); }
  static V mul(uint64_t m, V x) { return _mm512_gf2p8affine_epi64_epi8(x, _mm512_set1_epi64(static_cast<long long>(m)), 0); }
  static V lookup(V x, V t0, V t1, V t2, V t3) {
    const V lo = _mm512_permutex2var_epi8(t0, x, t1);  // index bits 0..6
    const V hi = _mm512_permutex2var_epi8(t2, x, t3);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);  // bit 7 picks the upper half
  }
  V sbox(V x) const { return lookup(x, s0, s1, s2, s3); }
  V sbox_inv(V x) const { return lookup(x, i0, i1, i2, i3); }
  template <int N>
  static V shl(V x) { return _mm512_bslli_epi128(x, N); }  // byte p <- byte p-N within each 128-bit lane
  template <int N>
  static V shr(V x) { return _mm512_bsrli_epi128(x, N); }  // byte p <- byte p+N within each 128-bit lane
  template <int S>
  static V blend_bit(V a, V b) {  // byte p from b where bit S of p is set, else from a
    constexpr __mmask64 m = S == 0   ? 0xAAAAAAAAAAAAAAAAull
                            : S == 1 ? 0xCCCCCCCCCCCCCCCCull
                            : S == 2 ? 0xF0F0F0F0F0F0F0F0ull
                                     : 0xFF00FF00FF00FF00ull;
    return _mm512_mask_blend_epi8(m, a, b);
  }
};

using K512 = Kernel<Avx512Policy>;

constexpr size_t kBatch = 64;  // blocks per kernel call = 2 data units

// The 32 tweaks of one data unit from its first one: T_{j+1} = T_j * x.
inline void unit_tweaks(const uint8_t* t0, uint8_t* out) {
  uint64_t lo, hi;
  std::memcpy(&lo, t0, 8);
  std::memcpy(&hi, t0 + 8, 8);
  for (size_t j = 0; j < kBlocksPerUnit; ++j) {
    std::memcpy(out + 16 * j, &lo, 8);
    std::memcpy(out + 16 * j + 8, &hi, 8);
    const uint64_t carry = hi >> 63;
    hi = (hi << 1) | (lo >> 63);
    lo = (lo << 1) ^ (carry * 0x87);
  }
}

alignas(64) constexpr uint8_t kZeros[kBatch * 16] = {};

class KuznyechikXtsAvx512 final : public XtsCipher {
 public:
  KuznyechikXtsAvx512(const uint8_t* key1, const uint8_t* key2) {
    kuznyechik::RoundKeys k1;
    kuznyechik::expand_key(key1, k1);
    kuznyechik::expand_key(key2, k2_);
    ks1_.init(k1, true);
    ks2_.init(k2_, false);
    secure_wipe(&k1, sizeof k1);
  }
  ~KuznyechikXtsAvx512() override {
    secure_wipe(&k2_, sizeof k2_);
    secure_wipe(&ks1_, sizeof ks1_);
    secure_wipe(&ks2_, sizeof ks2_);
  }
  CipherId cipher() const override { return CipherId::Kuznyechik; }
  std::string_view impl_name() const override { return "avx512"; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { run(true, unit0, data, nunits); }
  void decrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { run(false, unit0, data, nunits); }

 private:
  void run(bool enc, uint64_t unit0, uint8_t* data, size_t nunits) const {
    if (!nunits) return;
    const Avx512Policy p;
    alignas(64) uint8_t first[kBatch * 16];  // first tweaks of up to 64 units
    alignas(64) uint8_t tw[kBatch * 16];     // the 64 tweaks of one batch (2 units)
    alignas(64) uint8_t tail[kBatch * 16];   // a lone last unit, padded to a batch
    while (nunits) {
      const size_t m = nunits < kBatch ? nunits : kBatch;  // units in this chunk
      std::memset(first, 0, sizeof first);
      for (size_t u = 0; u < m; ++u) {
        const uint64_t unit = unit0 + u;
        for (int i = 0; i < 8; ++i) first[16 * u + i] = static_cast<uint8_t>(unit >> (8 * i));
      }
      if (m >= 8)
        K512::encrypt64(p, ks2_, first, first, kZeros);
      else
        kuznyechik::encrypt_blocks(k2_, first, first, m);
      size_t u = 0;
      for (; u + 2 <= m; u += 2) {
        unit_tweaks(first + 16 * u, tw);
        unit_tweaks(first + 16 * (u + 1), tw + kDataUnitSize);
        uint8_t* d = data + u * kDataUnitSize;
        enc ? K512::encrypt64(p, ks1_, d, d, tw) : K512::decrypt64(p, ks1_, d, d, tw);
      }
      if (u < m) {  // odd unit out: run it in the first half of a batch
        unit_tweaks(first + 16 * u, tw);
        std::memset(tw + kDataUnitSize, 0, kDataUnitSize);
        std::memcpy(tail, data + u * kDataUnitSize, kDataUnitSize);
        std::memset(tail + kDataUnitSize, 0, kDataUnitSize);
        enc ? K512::encrypt64(p, ks1_, tail, tail, tw) : K512::decrypt64(p, ks1_, tail, tail, tw);
        std::memcpy(data + u * kDataUnitSize, tail, kDataUnitSize);
        secure_wipe(tail, sizeof tail);
      }
      data += m * kDataUnitSize;
      unit0 += m;
      nunits -= m;
    }
    secure_wipe(first, sizeof first);
    secure_wipe(tw, sizeof tw);
  }

  kuznyechik::RoundKeys k2_;  // tweak key for the table path (runs of fewer than 8 units)
  SlicedKeys ks1_, ks2_;      // data key (both directions), tweak key (encryption only)
};

}  // namespace kuz_sliced
}  // namespace

std::unique_ptr<XtsCipher> make_kuznyechik_xts_avx512(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<kuz_sliced::KuznyechikXtsAvx512>(key1, key2);
}

}  // namespace warpvol::simd

#pragma GCC pop_options
