// AES-256 key expansion with AES-NI (FIPS-197 §5.2), plus the decryption schedule for the equivalent inverse
// cipher (AESIMC). Compiled with -msse4.1 -maes (file suffix _aesni).
#include <immintrin.h>

#include "core/crypto/simd/aes_xts.h"

namespace warpvol::simd::aes {

namespace {

// Even round key 2i from 2i-2 and the keygenassist of 2i-1 (RotWord/SubWord/Rcon in dword 3).
inline __m128i next_even(__m128i prev_even, __m128i assist) {
  assist = _mm_shuffle_epi32(assist, 0xff);
  prev_even = _mm_xor_si128(prev_even, _mm_slli_si128(prev_even, 4));
  prev_even = _mm_xor_si128(prev_even, _mm_slli_si128(prev_even, 4));
  prev_even = _mm_xor_si128(prev_even, _mm_slli_si128(prev_even, 4));
  return _mm_xor_si128(prev_even, assist);
}

// Odd round key 2i+1 from 2i-1 and the new even key 2i (SubWord only, no rotation or Rcon).
inline __m128i next_odd(__m128i prev_odd, __m128i even) {
  __m128i t = _mm_shuffle_epi32(_mm_aeskeygenassist_si128(even, 0x00), 0xaa);
  prev_odd = _mm_xor_si128(prev_odd, _mm_slli_si128(prev_odd, 4));
  prev_odd = _mm_xor_si128(prev_odd, _mm_slli_si128(prev_odd, 4));
  prev_odd = _mm_xor_si128(prev_odd, _mm_slli_si128(prev_odd, 4));
  return _mm_xor_si128(prev_odd, t);
}

}  // namespace

void expand_key_aesni(const uint8_t* key, Aes256Schedule* out) {
  __m128i rk[15];
  rk[0] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(key));
  rk[1] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(key + 16));
#define WV_AES256_STEP(i, rcon)                                                     \
  rk[2 * (i)] = next_even(rk[2 * (i)-2], _mm_aeskeygenassist_si128(rk[2 * (i)-1], rcon)); \
  rk[2 * (i) + 1] = next_odd(rk[2 * (i)-1], rk[2 * (i)]);
  WV_AES256_STEP(1, 0x01)
  WV_AES256_STEP(2, 0x02)
  WV_AES256_STEP(3, 0x04)
  WV_AES256_STEP(4, 0x08)
  WV_AES256_STEP(5, 0x10)
  WV_AES256_STEP(6, 0x20)
  rk[14] = next_even(rk[12], _mm_aeskeygenassist_si128(rk[13], 0x40));
#undef WV_AES256_STEP
  for (int r = 0; r < 15; ++r) _mm_store_si128(reinterpret_cast<__m128i*>(out->enc[r]), rk[r]);
  _mm_store_si128(reinterpret_cast<__m128i*>(out->dec[0]), rk[14]);
  for (int r = 1; r < 14; ++r)
    _mm_store_si128(reinterpret_cast<__m128i*>(out->dec[r]), _mm_aesimc_si128(rk[14 - r]));
  _mm_store_si128(reinterpret_cast<__m128i*>(out->dec[14]), rk[0]);
  // Wipe the local copy (it may live on the stack); registers are not scrubbed.
  for (auto& r : rk) r = _mm_setzero_si128();
  __asm__ __volatile__("" : : "m"(rk) : "memory");
}

}  // namespace warpvol::simd::aes
