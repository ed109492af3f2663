// The check of a kernel's layer list against the chain definitions in core.
#include <utility>
#include <vector>

#include "gpu/kernel_api.h"

namespace warpvol::gpu {

bool kernel_matches(const KernelInfo& k, ChainId a, bool a_encrypt, const ChainId* b) {
  std::vector<std::pair<CipherId, bool>> want;
  const auto& oa = chain_info(a).order;
  if (a_encrypt)
    for (CipherId c : oa) want.emplace_back(c, true);
  else
    for (auto it = oa.rbegin(); it != oa.rend(); ++it) want.emplace_back(*it, false);
  if (b)
    for (CipherId c : chain_info(*b).order) want.emplace_back(c, true);
  if (!k.launch || k.nlayers != int(want.size())) return false;
  for (int i = 0; i < k.nlayers; ++i)
    if (k.cipher[i] != want[i].first || k.enc[i] != want[i].second) return false;
  return true;
}

}  // namespace warpvol::gpu
