// The line `warpvol benchmark` (and `test`) print about the CPU path: which one runs, and whether
// WARPVOL_CPU_PATH lowered it below what the CPU offers (said only when it did).
#pragma once
#include <string>

#include "core/crypto/cpu_features.h"

namespace warpvol::cli {

// "CPU path: avx512 (the best this CPU offers; WARPVOL_CPU_PATH=portable|aesni|avx2 would force a lower one)" or
// "CPU path: aesni (lowered by WARPVOL_CPU_PATH; this CPU offers avx512)".
std::string cpu_path_line(IsaLevel active, IsaLevel detected);

}  // namespace warpvol::cli
