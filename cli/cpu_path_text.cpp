#include "cli/cpu_path_text.h"

namespace warpvol::cli {

std::string cpu_path_line(IsaLevel active, IsaLevel detected) {
  const std::string a(isa_name(active)), d(isa_name(detected));
  if (active != detected) return "CPU path: " + a + " (lowered by WARPVOL_CPU_PATH; this CPU offers " + d + ")";
  std::string lower;
  for (int l = 0; l < int(detected); ++l) lower += (lower.empty() ? "" : "|") + std::string(isa_name(IsaLevel(l)));
  return "CPU path: " + a + " (the best this CPU offers" +
         (lower.empty() ? std::string(")") : "; WARPVOL_CPU_PATH=" + lower + " would force a lower one)");
}

}  // namespace warpvol::cli
