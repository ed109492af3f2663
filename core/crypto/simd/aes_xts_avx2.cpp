// AES-256-XTS with AVX2 + VAES (256-bit) + VPCLMULQDQ: two blocks per ymm, half a data unit (8 ymm = 16 blocks) in
// flight per round loop, four units' initial tweaks encrypted together. For CPUs with VAES but no AVX-512 (and as a
// forced level for comparisons). Why our own intrinsics: see aes_xts.h.
//
// Tweaks: ymm i (0..15) lane k (0..1) of a unit holds T0 * x^(2i+k), computed directly from T0 as in
// aes_xts_avx512.cpp: (T << s per half) ^ (low-half carry into the high half) ^ clmul(high-half carry, 0x87).
#include <immintrin.h>

#include "core/crypto/simd/aes_xts.h"

namespace warpvol::simd::aes {

namespace {

struct alignas(32) ShiftTable {
  uint64_t shl[16][4];
  uint64_t shr[16][4];
};

constexpr ShiftTable make_shift_table() {
  ShiftTable t{};
  for (int i = 0; i < 16; ++i)
    for (int q = 0; q < 4; ++q) {
      const uint64_t s = 2 * i + q / 2;
      t.shl[i][q] = s;
      t.shr[i][q] = 64 - s;  // 64 for s = 0: VPSRLVQ yields 0
    }
  return t;
}

alignas(32) constexpr ShiftTable kShifts = make_shift_table();

inline __m256i load_shift(const uint64_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }

inline __m256i tweak_vec(__m256i t, int i, __m256i poly) {
  const __m256i c = _mm256_srlv_epi64(t, load_shift(kShifts.shr[i]));
  const __m256i r = _mm256_clmulepi64_epi128(c, poly, 0x01);
  const __m256i l = _mm256_bslli_epi128(c, 8);
  return _mm256_xor_si256(_mm256_xor_si256(_mm256_sllv_epi64(t, load_shift(kShifts.shl[i])), r), l);
}

inline __m256i bcast_key(const uint8_t* k) {
  return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(k)));
}

template <bool kEnc>
inline __m256i round(__m256i x, __m256i k) {
  if constexpr (kEnc) return _mm256_aesenc_epi128(x, k);
  else return _mm256_aesdec_epi128(x, k);
}

template <bool kEnc>
inline __m256i last_round(__m256i x, __m256i k) {
  if constexpr (kEnc) return _mm256_aesenclast_epi128(x, k);
  else return _mm256_aesdeclast_epi128(x, k);
}

// E_K2 of units u..u+3 (mod 2^64) into out[0..4).
inline void initial_tweaks(const __m256i* tk, uint64_t u, __m128i* out) {
  __m256i a = _mm256_set_epi64x(0, static_cast<long long>(u + 1), 0, static_cast<long long>(u));
  __m256i b = _mm256_set_epi64x(0, static_cast<long long>(u + 3), 0, static_cast<long long>(u + 2));
  a = _mm256_xor_si256(a, tk[0]);
  b = _mm256_xor_si256(b, tk[0]);
#pragma GCC unroll 16
  for (int r = 1; r < 14; ++r) {
    a = _mm256_aesenc_epi128(a, tk[r]);
    b = _mm256_aesenc_epi128(b, tk[r]);
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(out), _mm256_aesenclast_epi128(a, tk[14]));
  _mm256_store_si256(reinterpret_cast<__m256i*>(out + 2), _mm256_aesenclast_epi128(b, tk[14]));
}

template <bool kEnc>
inline void process_unit(const __m256i* rk, const __m128i* tw0, uint8_t* p, __m256i poly, __m256i* tw) {
  const __m256i t = _mm256_broadcastsi128_si256(_mm_load_si128(tw0));
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) tw[i] = tweak_vec(t, i, poly);
#pragma GCC unroll 2
  for (int h = 0; h < 16; h += 8) {
    __m256i x[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
      x[i] = _mm256_xor_si256(
          _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * (h + i))), tw[h + i]),
          rk[0]);
#pragma GCC unroll 16
    for (int r = 1; r < 14; ++r) {
      const __m256i k = rk[r];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) x[i] = round<kEnc>(x[i], k);
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 32 * (h + i)),
                          last_round<kEnc>(x[i], _mm256_xor_si256(rk[14], tw[h + i])));
  }
}

template <bool kEnc>
inline void xts(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                size_t nunits) {
  if (nunits == 0) return;
  alignas(32) __m256i rk[15], tk[15];
  for (int r = 0; r < 15; ++r) {
    rk[r] = bcast_key(kEnc ? k1->enc[r] : k1->dec[r]);
    tk[r] = bcast_key(k2->enc[r]);
  }
  const __m256i poly = _mm256_set1_epi64x(0x87);
  alignas(32) __m128i tw0[4];
  alignas(32) __m256i tw[16];
  for (size_t u = 0; u < nunits; u += 4) {
    initial_tweaks(tk, unit0 + u, tw0);
    const size_t n = nunits - u < 4 ? nunits - u : 4;
    for (size_t j = 0; j < n; ++j) process_unit<kEnc>(rk, tw0 + j, data + (u + j) * 512, poly, tw);
  }
  // Wipe round keys and tweaks kept on the stack (compiler spills elsewhere are not scrubbed).
  for (auto& v : rk) v = _mm256_setzero_si256();
  for (auto& v : tk) v = _mm256_setzero_si256();
  for (auto& v : tw) v = _mm256_setzero_si256();
  for (auto& v : tw0) v = _mm_setzero_si128();
  __asm__ __volatile__("" : : "m"(rk), "m"(tk), "m"(tw), "m"(tw0) : "memory");
}

}  // namespace

void xts_encrypt_avx2(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                      size_t nunits) {
  xts<true>(k1, k2, unit0, data, nunits);
}

void xts_decrypt_avx2(const Aes256Schedule* k1, const Aes256Schedule* k2, uint64_t unit0, uint8_t* data,
                      size_t nunits) {
  xts<false>(k1, k2, unit0, data, nunits);
}

}  // namespace warpvol::simd::aes
