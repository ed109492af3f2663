// Host-visible interface between the engine (gpu_engine.cpp) and the CUDA kernels (kernels_*.cu): the per-layer
// key block passed as a kernel parameter, the layout of the key-independent table source buffer in device memory,
// and the registry of compiled kernels (15 chains x 2 directions, and the fused re-encryption pairs).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/crypto/chain.h"

namespace warpvol::gpu {

constexpr int kMaxLayers = 6;      // re-encryption of a 3-cipher cascade into a 3-cipher cascade
constexpr int kKeyWords = 132;     // largest schedule (Serpent: 33 round keys)
constexpr int kThreads = 512;      // threads per CTA of the shipped kernels
constexpr int kUnitsPerTile = 32;  // one warp's work item: at most 32 data units (16 KiB)

// One XTS layer's keys as the kernel reads them (kernel parameter space, so round keys are constant-bank operands).
struct LayerKey {
  uint32_t k1[kKeyWords];        // data key schedule for this layer's direction
  uint32_t k2[kKeyWords];        // tweak key schedule (always the encryption schedule)
  const uint32_t* tf1 = nullptr;  // Twofish: device copy of the data key's g() tables (4 x 256 words)
  const uint32_t* tf2 = nullptr;  // Twofish: the tweak key's
};

// Word offsets of the key-independent tables in the device source buffer (copied into shared memory per CTA).
namespace src {
constexpr unsigned kAesTe = 0;           // 4 x 256
constexpr unsigned kAesTd = 1024;        // 4 x 256
constexpr unsigned kAesIsb = 2048;       // 256: InvS * 0x01010101
constexpr unsigned kCamSp = 2304;        // 4 x 256
constexpr unsigned kKuzT = 3328;         // 256 rows x 16 tables x 4 (kuz_row_word)
constexpr unsigned kKuzTi = 3328 + 16384;
constexpr unsigned kKuzS8 = 3328 + 32768;  // 256: S[b] << 8
constexpr unsigned kKuzSi = kKuzS8 + 256;  // 256: S^-1[b] * 0x01010101
constexpr unsigned kWords = kKuzSi + 256;
// Word 0 of Kuznyechik table I's entry x in kKuzT / kKuzTi: row x holds tables 0..15 in turn, so that table I lies
// in the same bank quad (I & 7) of every row (gpu/xts_device.cuh, kuz_acc).
constexpr unsigned kuz_row_word(unsigned table, unsigned x) { return (x * 16 + table) * 4; }
}  // namespace src

// The key-independent tables in the src:: layout (host copy; the engine uploads it once).
std::vector<uint32_t> build_source_tables();

struct KernelArgs {
  uint4* data;               // device, nunits * 512 bytes
  uint64_t unit0;            // number of the first data unit
  uint64_t nunits;
  const uint32_t* tables;    // device source tables (src:: layout)
  const LayerKey* keys;      // host array of the kernel's layer keys (copied into the launch parameters)
  unsigned tile = kUnitsPerTile;  // data units per warp work item (fewer for small requests: see grid_for)
};

struct KernelInfo {
  const void* func = nullptr;  // the __global__ function (attributes, occupancy)
  int nlayers = 0;
  unsigned smem = 0;  // dynamic shared memory bytes
  int threads = 0;
  cudaError_t (*launch)(const KernelArgs& a, int grid, cudaStream_t s) = nullptr;
  CipherId cipher[kMaxLayers] = {};  // what the kernel applies, layer by layer (checked against chain_info())
  bool enc[kMaxLayers] = {};
};
// True when `k` applies exactly: `a` decrypted (if given), then `b` encrypted (if given) -- or, for process
// kernels, `a` in direction `dir_a` alone.
bool kernel_matches(const KernelInfo& k, ChainId a, bool a_encrypt, const ChainId* b);

// Fused single-pass kernels. dir: 0 = encrypt, 1 = decrypt. Layer keys in application order: for encryption the
// chain's ciphers in encryption order; for decryption the reverse.
const KernelInfo& process_kernel(ChainId chain, int dir);
// Decrypt with `from` then encrypt with `to` in one pass; nullptr when this build has no fused kernel for the pair.
const KernelInfo* reencrypt_kernel(ChainId from, ChainId to);

// Enqueues on `s`: d_hashes[16 i ..] = XXH3-128 of the unit at d_data + 512 i (gpu/xxh3_device.cuh), i < nunits.
cudaError_t launch_unit_xxh3(const uint8_t* d_data, size_t nunits, uint8_t* d_hashes, cudaStream_t s);

}  // namespace warpvol::gpu
