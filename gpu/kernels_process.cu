// The 30 fused single-pass kernels: 15 chains x {encrypt, decrypt}.
#include "gpu/xts_device.cuh"

namespace warpvol::gpu {

namespace {
template <ChainId C>
const KernelInfo* row() {
  static const KernelInfo r[2] = {dev::make_info<dev::EncOf<C>>(), dev::make_info<dev::DecOf<C>>()};
  return r;
}
const KernelInfo* row_of(ChainId c) {
#define WV_ROW(C) row<C>()
  WV_FOR_CHAIN(c, WV_ROW)
#undef WV_ROW
  return nullptr;
}
}  // namespace

const KernelInfo& process_kernel(ChainId chain, int dir) {
  static const KernelInfo none{};
  const KernelInfo* r = row_of(chain);
  return r ? r[dir] : none;
}

}  // namespace warpvol::gpu
