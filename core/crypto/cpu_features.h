// Instruction-set levels for the CPU XTS paths, detected once by cpuid. WARPVOL_CPU_PATH (portable | aesni |
// avx2 | avx512) forces a lower level than the CPU offers (never a higher one), for tests and comparisons.
#pragma once
#include <string_view>
#include <optional>

namespace warpvol {

enum class IsaLevel : int { Portable = 0, AesNi = 1, Avx2 = 2, Avx512 = 3 };

// What this CPU can run. Avx2 = AVX2 + BMI2 + VAES + VPCLMULQDQ; Avx512 adds F/BW/VL/DQ/VBMI + GFNI (and OS ZMM
// state).
IsaLevel detected_isa();
IsaLevel active_isa();     // detected, lowered by WARPVOL_CPU_PATH or set_isa_override()
void set_isa_override(std::optional<IsaLevel> level);  // for tests: force a level (clamped to detected)
std::string_view isa_name(IsaLevel level);               // "portable", "aesni", "avx2", "avx512"
std::optional<IsaLevel> parse_isa(std::string_view name);

}  // namespace warpvol
