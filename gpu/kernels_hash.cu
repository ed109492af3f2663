// Re-encryption's checksum entries on the GPU (XtsEngine::reencrypt_hashed): one thread per data unit. Cheap next
// to the ciphers and the transfers (a few hundred integer operations per 512 bytes, read from L2 right after the
// cipher kernel wrote them); what it saves is the host's pass over the result.
#include "gpu/kernel_api.h"
#include "gpu/xxh3_device.cuh"

namespace warpvol::gpu {

namespace {
__global__ void unit_xxh3_kernel(const uint64_t* data, uint64_t nunits, uint8_t* hashes, UnitXxh3Keys keys) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < nunits) unit_xxh3(data + i * 64, keys, hashes + i * 16);
}
}  // namespace

cudaError_t launch_unit_xxh3(const uint8_t* d_data, size_t nunits, uint8_t* d_hashes, cudaStream_t s) {
  if (nunits == 0) return cudaSuccess;
  constexpr unsigned kBlock = 256;
  constexpr UnitXxh3Keys keys = unit_xxh3_keys();
  unit_xxh3_kernel<<<unsigned((nunits + kBlock - 1) / kBlock), kBlock, 0, s>>>(
      reinterpret_cast<const uint64_t*>(d_data), nunits, d_hashes, keys);
  return cudaGetLastError();
}

}  // namespace warpvol::gpu
