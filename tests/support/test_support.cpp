// Implements tests/support/test_support.h: the engines under test, temporary folders, PBKDF2 spelled out.
#include "tests/support/test_support.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "core/crypto/cpu_features.h"
#include "core/engine/cpu_engine.h"
#include "core/engine/engine_factory.h"
#include "core/util/error.h"

#ifdef WARPVOL_HAVE_GPU
#include "gpu/gpu_engine.h"
#endif

namespace wvtest {

warpvol::PrfId prf_from_vector_name(std::string name) {
  if (auto p = name.find(' '); p != std::string::npos) name = name.substr(0, p);
  auto id = warpvol::parse_prf(name);
  REQUIRE(id.has_value());
  return *id;
}

std::vector<NamedEngine> engines_under_test() {
  using namespace warpvol;
  std::vector<NamedEngine> out;
  const IsaLevel top = detected_isa();
  for (IsaLevel l : {IsaLevel::Portable, IsaLevel::AesNi, IsaLevel::Avx2, IsaLevel::Avx512}) {
    if (static_cast<int>(l) > static_cast<int>(top)) {
      static std::once_flag warned[4];
      std::call_once(warned[static_cast<int>(l)], [&] {
        WARN("skipping CPU path " << isa_name(l) << ": this CPU only runs up to " << isa_name(top));
      });
      continue;
    }
    out.push_back({"cpu/" + std::string(isa_name(l)), std::make_shared<CpuEngine>(0, l)});
  }
#ifdef WARPVOL_HAVE_GPU
  static std::once_flag registered;
  std::call_once(registered, [] { warpvol::gpu::register_engine(); });
  EngineOptions eo;
  eo.choice = EngineChoice::Gpu;
  try {
    out.push_back({"gpu", make_engine(eo)});
  } catch (const Error& e) {
    static std::once_flag warned_gpu;
    std::call_once(warned_gpu, [&] { WARN("skipping the GPU engine: " << e.what()); });
  }
#endif
  return out;
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/warpvol-test-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<uint8_t> pbkdf2_over_hmac(warpvol::PrfId prf, const std::vector<uint8_t>& pw,
                                      const std::vector<uint8_t>& salt, uint32_t iterations, uint32_t block) {
  std::vector<uint8_t> msg = salt;
  for (int i = 3; i >= 0; --i) msg.push_back(uint8_t(block >> (8 * i)));
  std::vector<uint8_t> u = warpvol::hmac_bytes(prf, pw.data(), pw.size(), msg.data(), msg.size()), acc = u;
  for (uint32_t i = 1; i < iterations; ++i) {
    u = warpvol::hmac_bytes(prf, pw.data(), pw.size(), u.data(), u.size());
    for (size_t k = 0; k < acc.size(); ++k) acc[k] ^= u[k];
  }
  return acc;
}

}  // namespace wvtest
