// XXH3-128 of one 512-byte data unit, for the GPU engine's checksum entries (XtsEngine::reencrypt_hashed): the same
// 16 bytes as xxHash's XXH3_128bits() in canonical form (core/crypto/unit_xxh3.h), which the CPU engine, recovery
// and older journals compute. Written by hand because xxHash has no device build; only the one input length a data
// unit has is needed, so the general code reduces to a fixed sequence: for 512 bytes XXH3 takes its long-input path
// with the default secret, which accumulates 7 stripes of 64 bytes and the input's last 64 bytes, then merges the
// eight accumulators twice (low and high half). The secret words each step reads are computed once on the host
// (unit_xxh3_keys) and passed to the kernel, so a thread reads only aligned words of its unit.
// Plain C++ apart from the CUDA qualifiers, so the host test (tests/xts/test_gpu_engine.cpp, "[emulation]") checks
// this code against xxHash on a machine without a GPU.
#pragma once
#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define WV_XXH_HD __host__ __device__ __forceinline__
#else
#define WV_XXH_HD inline
#endif

namespace warpvol::gpu {

// The default secret's words as the 512-byte path reads them (little-endian, at unaligned offsets for some).
struct UnitXxh3Keys {
  uint64_t stripe[14];  // stripe n, lane i reads word n + i (byte offset 8 (n + i))
  uint64_t last[8];     // the last stripe: byte offset 192 - 64 - 7 + 8 i
  uint64_t lo[8];       // merge of the low half: byte offset 11 + 8 i
  uint64_t hi[8];       // merge of the high half: byte offset 192 - 64 - 11 + 8 i
};

namespace xxh3 {
constexpr uint8_t kSecret[192] = {  // XXH3_kSecret (xxhash.h)
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c, 0xde, 0xd4, 0x6d,
    0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f, 0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0,
    0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21, 0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0,
    0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c, 0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b,
    0x1b, 0x53, 0x2e, 0xa3, 0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac,
    0xd8, 0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d, 0x8a, 0x51,
    0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64, 0xea, 0xc5, 0xac, 0x83, 0x34,
    0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb, 0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49,
    0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e, 0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8,
    0xd1, 0x7a, 0xd0, 0x31, 0xce, 0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b,
    0x40, 0x7e};
constexpr uint64_t kPrime32_1 = 0x9E3779B1U, kPrime32_2 = 0x85EBCA77U, kPrime32_3 = 0xC2B2AE3DU;
constexpr uint64_t kPrime64_1 = 0x9E3779B185EBCA87ULL, kPrime64_2 = 0xC2B2AE3D27D4EB4FULL,
                   kPrime64_3 = 0x165667B19E3779F9ULL, kPrime64_4 = 0x85EBCA77C2B2AE63ULL,
                   kPrime64_5 = 0x27D4EB2F165667C5ULL;
constexpr size_t kLen = 512;

constexpr uint64_t secret_word(size_t at) {
  uint64_t v = 0;
  for (int b = 7; b >= 0; --b) v = v << 8 | kSecret[at + size_t(b)];
  return v;
}

WV_XXH_HD uint64_t mul128_fold64(uint64_t a, uint64_t b) {
#ifdef __CUDA_ARCH__
  return (a * b) ^ __umul64hi(a, b);
#else
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return uint64_t(p) ^ uint64_t(p >> 64);
#endif
}

WV_XXH_HD uint64_t avalanche(uint64_t h) {
  h ^= h >> 37;
  h *= 0x165667919E3779F9ULL;
  return h ^ (h >> 32);
}

WV_XXH_HD uint64_t merge(const uint64_t* acc, const uint64_t* key, uint64_t start) {
  uint64_t r = start;
  for (int i = 0; i < 4; ++i) r += mul128_fold64(acc[2 * i] ^ key[2 * i], acc[2 * i + 1] ^ key[2 * i + 1]);
  return avalanche(r);
}

// One 64-byte stripe into the accumulators (XXH3_accumulate_512, scalar form).
WV_XXH_HD void accumulate(uint64_t* acc, const uint64_t* in, const uint64_t* key) {
  for (int i = 0; i < 8; ++i) {
    const uint64_t v = in[i];
    const uint64_t k = v ^ key[i];
    acc[i ^ 1] += v;
    acc[i] += (k & 0xFFFFFFFFULL) * (k >> 32);
  }
}

WV_XXH_HD void store_be64(uint8_t* out, uint64_t v) {
  for (int b = 7; b >= 0; --b, v >>= 8) out[b] = uint8_t(v);
}
}  // namespace xxh3

constexpr UnitXxh3Keys unit_xxh3_keys() {
  UnitXxh3Keys k{};
  for (size_t i = 0; i < 14; ++i) k.stripe[i] = xxh3::secret_word(8 * i);
  for (size_t i = 0; i < 8; ++i) {
    k.last[i] = xxh3::secret_word(192 - 64 - 7 + 8 * i);
    k.lo[i] = xxh3::secret_word(11 + 8 * i);
    k.hi[i] = xxh3::secret_word(192 - 64 - 11 + 8 * i);
  }
  return k;
}

// out[0..16) = canonical XXH3-128 of the 512 bytes at unit (8-byte aligned; read as little-endian words).
WV_XXH_HD void unit_xxh3(const uint64_t* unit, const UnitXxh3Keys& k, uint8_t* out) {
  using namespace xxh3;
  uint64_t acc[8] = {kPrime32_3, kPrime64_1, kPrime64_2, kPrime64_3, kPrime64_4, kPrime32_2, kPrime64_5, kPrime32_1};
  for (int n = 0; n < 7; ++n) accumulate(acc, unit + 8 * n, k.stripe + n);
  accumulate(acc, unit + 56, k.last);  // the input's last 64 bytes: the eighth stripe for a 512-byte input
  store_be64(out, merge(acc, k.hi, ~(uint64_t(kLen) * kPrime64_2)));
  store_be64(out + 8, merge(acc, k.lo, uint64_t(kLen) * kPrime64_1));
}

}  // namespace warpvol::gpu
