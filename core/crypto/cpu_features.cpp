#include "core/crypto/cpu_features.h"

#include <cpuid.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace warpvol {

namespace {

bool os_saves_zmm() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return false;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 0xE6) == 0xE6;  // XMM, YMM, opmask, ZMM_Hi256, Hi16_ZMM
}

bool os_saves_ymm() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return false;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 0x6) == 0x6;
}

IsaLevel detect() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return IsaLevel::Portable;
  const bool aesni = c & bit_AES, pclmul = c & bit_PCLMUL, sse41 = c & bit_SSE4_1, ssse3 = c & bit_SSSE3;
  if (!(aesni && pclmul && sse41 && ssse3)) return IsaLevel::Portable;
  unsigned a7, b7, c7, d7;
  if (!__get_cpuid_count(7, 0, &a7, &b7, &c7, &d7) || !os_saves_ymm()) return IsaLevel::AesNi;
  const bool avx2 = b7 & bit_AVX2, bmi2 = b7 & bit_BMI2;
  const bool vaes = c7 & (1u << 9), vpclmul = c7 & (1u << 10), gfni = c7 & (1u << 8);
  // The AVX2 level needs no GFNI: Zen 3 has AVX2 + VAES + VPCLMULQDQ only.
  if (!(avx2 && bmi2 && vaes && vpclmul)) return IsaLevel::AesNi;
  const bool f = b7 & (1u << 16), dq = b7 & (1u << 17), bw = b7 & (1u << 30), vl = b7 & (1u << 31);
  // VBMI (vpermi2b, the Twofish S-box lookup) comes with GFNI on every AVX-512 CPU so far (Ice Lake on, Zen 4 on).
  const bool vbmi = c7 & (1u << 1);
  if (f && dq && bw && vl && vbmi && gfni && os_saves_zmm()) return IsaLevel::Avx512;
  return IsaLevel::Avx2;
}

std::atomic<int> g_override{-1};

IsaLevel from_env(IsaLevel detected) {
  const char* env = std::getenv("WARPVOL_CPU_PATH");
  if (!env || !*env) return detected;
  auto forced = parse_isa(env);
  if (!forced) return detected;
  return static_cast<int>(*forced) < static_cast<int>(detected) ? *forced : detected;
}

}  // namespace

IsaLevel detected_isa() {
  static const IsaLevel level = detect();
  return level;
}

IsaLevel active_isa() {
  int o = g_override.load();
  if (o >= 0) return static_cast<IsaLevel>(o);
  static const IsaLevel level = from_env(detected_isa());
  return level;
}

void set_isa_override(std::optional<IsaLevel> level) {
  if (!level) {
    g_override = -1;
    return;
  }
  int l = std::min(static_cast<int>(*level), static_cast<int>(detected_isa()));
  g_override = l;
}

std::string_view isa_name(IsaLevel level) {
  switch (level) {
    case IsaLevel::Portable: return "portable";
    case IsaLevel::AesNi: return "aesni";
    case IsaLevel::Avx2: return "avx2";
    case IsaLevel::Avx512: return "avx512";
  }
  return "?";
}

std::optional<IsaLevel> parse_isa(std::string_view name) {
  for (IsaLevel l : {IsaLevel::Portable, IsaLevel::AesNi, IsaLevel::Avx2, IsaLevel::Avx512})
    if (name == isa_name(l)) return l;
  return std::nullopt;
}

}  // namespace warpvol
