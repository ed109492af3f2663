// Kuznyechik, the 128-bit block cipher of GOST R 34.12-2015 (RFC 7801), 256-bit key. Written by hand here because
// Crypto++ 8.7 has no Kuznyechik. This is the reference implementation the SIMD XTS paths are checked against.
//
// Byte order (RFC 7801 is the authority; VeraCrypt's Tests.c vectors and GOST R 34.13-2015 use the same one): a block
// is handled as the 16 bytes in memory order, and memory byte 0 is the FIRST byte of the RFC's hex string, i.e. the
// most significant byte a_15 of the RFC's a = a_15 || ... || a_0. The key likewise: key[0..16) = K_1, key[16..32) =
// K_2 of the RFC's key schedule. The RFC vector 8899aabb..cdef / 11223344556677 00ffeeddccbbaa9988 ->
// 7f679d90bebc24305a468d42b9d4edcd is therefore fed to encrypt() byte for byte as written.
//
// The fast path is the usual table-driven one: LS(x) = L(S(x)) = XOR_k T[k][x_k], 16 tables of 256 128-bit entries
// for encryption (64 KiB) and 16 for decryption (L^-1 S^-1, another 64 KiB), built once at first use.
#pragma once
#include <emmintrin.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/crypto/cipher.h"

namespace warpvol {

// key32: 32 bytes. The returned cipher wipes its round keys on destruction.
std::unique_ptr<BlockCipher> make_kuznyechik(const uint8_t* key32);

namespace kuznyechik {

// The substitution pi of GOST R 34.12-2015 (also the S-box of Streebog, GOST R 34.11-2012).
inline constexpr uint8_t kPi[256] = {
    252, 238, 221, 17,  207, 110, 49,  22,  251, 196, 250, 218, 35,  197, 4,   77,  233, 119, 240, 219, 147, 46,
    153, 186, 23,  54,  241, 187, 20,  205, 95,  193, 249, 24,  101, 90,  226, 92,  239, 33,  129, 28,  60,  66,
    139, 1,   142, 79,  5,   132, 2,   174, 227, 106, 143, 160, 6,   11,  237, 152, 127, 212, 211, 31,  235, 52,
    44,  81,  234, 200, 72,  171, 242, 42,  104, 162, 253, 58,  206, 204, 181, 112, 14,  86,  8,   12,  118, 18,
    191, 114, 19,  71,  156, 183, 93,  135, 21,  161, 150, 41,  16,  123, 154, 199, 243, 145, 120, 111, 157, 158,
    178, 177, 50,  117, 25,  61,  255, 53,  138, 126, 109, 84,  198, 128, 195, 189, 13,  87,  223, 245, 36,  169,
    62,  168, 67,  201, 215, 121, 214, 246, 124, 34,  185, 3,   224, 15,  236, 222, 122, 148, 176, 188, 220, 232,
    40,  80,  78,  51,  10,  74,  167, 151, 96,  115, 30,  0,   98,  68,  26,  184, 56,  130, 100, 159, 38,  65,
    173, 69,  70,  146, 39,  94,  85,  47,  140, 163, 165, 125, 105, 213, 149, 59,  7,   88,  179, 64,  134, 172,
    29,  247, 48,  55,  107, 228, 136, 217, 231, 137, 225, 27,  131, 73,  76,  63,  248, 254, 141, 83,  170, 144,
    202, 216, 133, 97,  32,  113, 103, 164, 45,  43,  9,   91,  203, 155, 37,  208, 190, 229, 108, 82,  89,  166,
    116, 210, 230, 244, 180, 192, 209, 102, 175, 194, 57,  75,  99,  182};

// Coefficients of the linear map l in memory byte order: l(b) = sum_k kLinear[k] * b[k] in GF(2^8) mod
// x^8+x^7+x^6+x+1 (0x1C3). RFC 7801 lists them as 148,32,133,16,194,192,1,251,1,192,194,16,133,32,148,1 for
// a_15..a_0, and memory byte k is a_{15-k}.
inline constexpr uint8_t kLinear[16] = {148, 32, 133, 16, 194, 192, 1, 251, 1, 192, 194, 16, 133, 32, 148, 1};

// Multiplication in GF(2^8) mod 0x1C3.
constexpr uint8_t gf_mul(uint8_t a, uint8_t b) {
  uint8_t r = 0;
  while (b) {
    if (b & 1) r ^= a;
    a = static_cast<uint8_t>((a << 1) ^ ((a & 0x80) ? 0xC3 : 0x00));
    b >>= 1;
  }
  return r;
}

// Byte-level primitives of RFC 7801 on one block in memory order (slow; for tests, table building, key schedule).
void transform_s(uint8_t* block);
void transform_s_inv(uint8_t* block);
void transform_r(uint8_t* block);      // one LFSR step: b'[0] = l(b), b'[k] = b[k-1]
void transform_r_inv(uint8_t* block);
void transform_l(uint8_t* block);      // R^16
void transform_l_inv(uint8_t* block);

// out[y] = L (inverse: L^-1) of the block whose byte k is y and whose other bytes are 0, for every y: position k's
// rows of the lookup tables, from one transform instead of 256 (see kuznyechik.cpp).
void single_byte_images(bool inverse, int k, uint8_t out[256][16]);

struct PiInvTable {
  uint8_t v[256];
  constexpr PiInvTable() : v() {
    for (int i = 0; i < 256; ++i) v[kPi[i]] = static_cast<uint8_t>(i);
  }
};
inline constexpr PiInvTable kPiInv{};
const uint8_t* pi_inv();  // kPiInv.v

// Lookup tables, built once on first call (thread-safe). Each entry is a 16-byte block in memory order, stored as
// two little-endian uint64 (entry[0] = bytes 0..7, entry[1] = bytes 8..15).
//   enc[k][v] = L(block with byte k = pi(v), other bytes 0)      -> LS(x) = XOR_k enc[k][x_k]
//   dec[k][v] = L^-1(block with byte k = pi^-1(v), other bytes 0) -> L^-1 S^-1(x) = XOR_k dec[k][x_k]
struct Tables {
  alignas(64) uint64_t enc[16][256][2];
  alignas(64) uint64_t dec[16][256][2];
};
const Tables& tables();

// Round keys. enc[0..9] = K_1..K_10 of RFC 7801. dec[] is the decryption schedule of the table path:
// dec[i] = L^-1(K_{i+1}) for i = 1..8, dec[0] = K_1 and dec[9] = K_10 unchanged.
struct RoundKeys {
  alignas(16) uint8_t enc[10][16];
  alignas(16) uint8_t dec[10][16];
};
void expand_key(const uint8_t* key32, RoundKeys& rk);

// Table-driven ECB over n blocks (in == out allowed). The reference for every other Kuznyechik path.
void encrypt_blocks(const RoundKeys& rk, const uint8_t* in, uint8_t* out, size_t n);
void decrypt_blocks(const RoundKeys& rk, const uint8_t* in, uint8_t* out, size_t n);

// The table-driven block kernels on registers (SSE2), shared by encrypt_blocks/decrypt_blocks and the fused
// table XTS (crypto/simd/kuznyechik_tables.cpp). N blocks are interleaved so that their table loads overlap.
// Call these (and gf_mul at run time) only from files compiled for the baseline ISA: the linker keeps one copy of
// an inline function, and a copy from an *_avx2/_avx512 file could then run on a CPU without those instructions.
namespace detail {

inline __m128i entry(const uint64_t (*t)[256][2], int k, unsigned v) {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(t[k][v]));
}
struct NoMap {
  static unsigned map(unsigned v) { return v; }
};
struct PiMap {
  static unsigned map(unsigned v) { return kPi[v]; }
};

// XOR_k t[k][M(x_k)] over the 16 bytes x_k of x.
template <class M = NoMap>
inline __m128i table_round(const uint64_t (*t)[256][2], __m128i x) {
  const uint64_t lo = static_cast<uint64_t>(_mm_cvtsi128_si64(x));
  const uint64_t hi = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x)));
  __m128i a = entry(t, 0, M::map(lo & 0xff));
  __m128i b = entry(t, 1, M::map((lo >> 8) & 0xff));
  a = _mm_xor_si128(a, entry(t, 2, M::map((lo >> 16) & 0xff)));
  b = _mm_xor_si128(b, entry(t, 3, M::map((lo >> 24) & 0xff)));
  a = _mm_xor_si128(a, entry(t, 4, M::map((lo >> 32) & 0xff)));
  b = _mm_xor_si128(b, entry(t, 5, M::map((lo >> 40) & 0xff)));
  a = _mm_xor_si128(a, entry(t, 6, M::map((lo >> 48) & 0xff)));
  b = _mm_xor_si128(b, entry(t, 7, M::map(lo >> 56)));
  a = _mm_xor_si128(a, entry(t, 8, M::map(hi & 0xff)));
  b = _mm_xor_si128(b, entry(t, 9, M::map((hi >> 8) & 0xff)));
  a = _mm_xor_si128(a, entry(t, 10, M::map((hi >> 16) & 0xff)));
  b = _mm_xor_si128(b, entry(t, 11, M::map((hi >> 24) & 0xff)));
  a = _mm_xor_si128(a, entry(t, 12, M::map((hi >> 32) & 0xff)));
  b = _mm_xor_si128(b, entry(t, 13, M::map((hi >> 40) & 0xff)));
  a = _mm_xor_si128(a, entry(t, 14, M::map((hi >> 48) & 0xff)));
  b = _mm_xor_si128(b, entry(t, 15, M::map(hi >> 56)));
  return _mm_xor_si128(a, b);
}

// Byte-wise substitution through a 256-byte table, in general registers (storing the vector and reloading single
// bytes would stall on store forwarding).
inline uint64_t sub_word(const uint8_t* s, uint64_t w) {
  uint64_t r = 0;
  for (int i = 0; i < 64; i += 8) r |= static_cast<uint64_t>(s[(w >> i) & 0xff]) << i;
  return r;
}
inline __m128i sub_bytes(const uint8_t* s, __m128i x) {
  const uint64_t lo = static_cast<uint64_t>(_mm_cvtsi128_si64(x));
  const uint64_t hi = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x)));
  return _mm_set_epi64x(static_cast<long long>(sub_word(s, hi)), static_cast<long long>(sub_word(s, lo)));
}

// x = K10 ^ LS(... LS(LS(x ^ K1) ^ K2) ...), in place on N registers.
template <int N>
inline void encrypt_regs(const Tables& t, const RoundKeys& rk, __m128i* x) {
  const __m128i k0 = _mm_load_si128(reinterpret_cast<const __m128i*>(rk.enc[0]));
  for (int j = 0; j < N; ++j) x[j] = _mm_xor_si128(x[j], k0);
  for (int r = 1; r < 10; ++r) {
    const __m128i k = _mm_load_si128(reinterpret_cast<const __m128i*>(rk.enc[r]));
    for (int j = 0; j < N; ++j) x[j] = _mm_xor_si128(table_round(t.enc, x[j]), k);
  }
}

// D = X[K1] S^-1 L^-1 X[K2] ... S^-1 L^-1 X[K10]. With T = L^-1 S^-1 as tables and L^-1 linear:
//   y = L^-1(a ^ K10) = T(S(a ^ K10)) (S folded into the table indices); then for i = 9..2:
//   y = L^-1(S^-1(y) ^ K_i) = T(y) ^ L^-1(K_i); result = S^-1(y) ^ K1.
template <int N>
inline void decrypt_regs(const Tables& t, const RoundKeys& rk, __m128i* x) {
  const __m128i k9 = _mm_load_si128(reinterpret_cast<const __m128i*>(rk.dec[9]));
  for (int j = 0; j < N; ++j) x[j] = table_round<PiMap>(t.dec, _mm_xor_si128(x[j], k9));
  for (int r = 8; r >= 1; --r) {
    const __m128i k = _mm_load_si128(reinterpret_cast<const __m128i*>(rk.dec[r]));
    for (int j = 0; j < N; ++j) x[j] = _mm_xor_si128(table_round(t.dec, x[j]), k);
  }
  const __m128i k0 = _mm_load_si128(reinterpret_cast<const __m128i*>(rk.dec[0]));
  for (int j = 0; j < N; ++j) x[j] = _mm_xor_si128(sub_bytes(kPiInv.v, x[j]), k0);
}

}  // namespace detail

}  // namespace kuznyechik
}  // namespace warpvol
