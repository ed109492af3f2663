// The calibration store behind the GUI's crossover plot (core/engine/calibration.h) and the per-PRF key-derivation
// timing (core/kdf/kdf_timing.h): the crossover rule, the curves kept in crossover.json next to the crossover sizes
// (neither writer loses the other's keys), damaged files, and a real CPU curve.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/engine/calibration.h"
#include "core/engine/cpu_engine.h"
#include "core/engine/engine_factory.h"
#include "core/kdf/kdf_timing.h"
#include "tests/support/test_support.h"

using namespace warpvol;

namespace {

// Points the cache at a fresh folder for one test case.
struct CacheHome {
  wvtest::TempDir dir;
  wvtest::ScopedEnv env{"XDG_CACHE_HOME", dir.path().c_str()};
};

}  // namespace

TEST_CASE("crossover_from: the smallest size from which the GPU wins at every larger size", "[calibration]") {
  const size_t K = 1024, M = 1024 * 1024;
  CHECK(crossover_from({{64 * K, 100, 50}, {256 * K, 100, 150}, {1 * M, 100, 200}}) == 256 * K);
  CHECK(crossover_from({{64 * K, 100, 150}, {256 * K, 100, 90}, {1 * M, 100, 200}}) == 1 * M);  // not a dip
  CHECK(crossover_from({{64 * K, 100, 150}, {256 * K, 100, 150}}) == 64 * K);
  CHECK(crossover_from({{64 * K, 100, 50}, {256 * K, 100, 90}}) == SIZE_MAX);
  CHECK(crossover_from({{64 * K, 100, 0}, {256 * K, 100, 0}}) == SIZE_MAX);  // no GPU measured
  CHECK(crossover_from({}) == SIZE_MAX);
  CHECK(calibration_sizes().front() == 64 * K);
  CHECK(calibration_sizes().back() == 64 * M);
}

TEST_CASE("calibration curves and crossover sizes share crossover.json without losing each other", "[calibration]") {
  CacheHome home;
  CHECK(load_calibration().curves.empty());
  std::map<ChainId, size_t> cross = load_crossover();
  cross[ChainId::Serpent] = 65536;
  cross[ChainId::Aes] = SIZE_MAX;
  save_crossover(cross);

  StoredCalibration s;
  s.cpu_detail = "16 threads, avx512";
  s.gpu_detail = "H100";
  s.curves[ChainId::Serpent] = {{65536, 1236, 1702}, {262144, 1241, 3427}};
  s.curves[ChainId::Aes] = {{65536, 9345, 0}};  // a CPU-only point stores the GPU figure as null
  save_calibration(s);
  auto back = load_calibration();
  REQUIRE(back.curves.size() == 2);
  CHECK(back.curves[ChainId::Serpent].size() == 2);
  CHECK(back.curves[ChainId::Serpent][1].gpu_MBps == 3427);
  CHECK(back.curves[ChainId::Aes][0].gpu_MBps == 0);
  CHECK(back.cpu_detail == "16 threads, avx512");
  CHECK(load_crossover()[ChainId::Serpent] == 65536);  // the calibration writer kept the sizes
  CHECK(load_crossover()[ChainId::Aes] == SIZE_MAX);

  cross[ChainId::Serpent] = 4194304;
  save_crossover(cross);  // and the crossover writer keeps the curves
  CHECK(load_calibration().curves.size() == 2);
  CHECK(load_crossover()[ChainId::Serpent] == 4194304);

  StoredCalibration one;
  one.curves[ChainId::Twofish] = {{65536, 166, 1273}};
  save_calibration(one);  // merges by chain
  CHECK(load_calibration().curves.size() == 3);

  StoredCalibration rates;
  rates.cpu_rates[ChainId::Serpent] = {15800, 16900, "16 threads, avx512 path"};
  save_calibration(rates);
  rates.cpu_rates.clear();
  rates.cpu_rates[ChainId::Aes] = {90000, 91000, "16 threads, avx512 path"};
  save_calibration(rates);  // the CPU rates merge by chain too, and the curves stay
  auto r = load_calibration();
  REQUIRE(r.cpu_rates.size() == 2);
  CHECK(r.cpu_rates[ChainId::Serpent].encrypt_MBps == 15800);
  CHECK(r.cpu_rates[ChainId::Serpent].decrypt_MBps == 16900);
  CHECK(r.cpu_rates[ChainId::Serpent].cpu_detail == "16 threads, avx512 path");
  CHECK(r.cpu_rates[ChainId::Aes].decrypt_MBps == 91000);
  CHECK(r.curves.size() == 3);
  CHECK(load_crossover()[ChainId::Serpent] == 4194304);

  {  // a damaged chain's rates are left out, and nothing else is lost
    nlohmann::json j = nlohmann::json::parse(std::ifstream(crossover_path()));
    j["cpu_rates"]["aes"]["decrypt_MBps"] = "fast";
    std::ofstream(crossover_path()) << j.dump();
  }
  r = load_calibration();
  CHECK(r.cpu_rates.count(ChainId::Aes) == 0);
  CHECK(r.cpu_rates.count(ChainId::Serpent) == 1);
  CHECK(r.curves.size() == 3);

  std::ofstream(crossover_path()) << R"({"cpu_rates": {"twofish": {"decrypt_MBps": 9000, "cpu": "2 threads"}}})";
  r = load_calibration();  // the rates alone, without curves
  CHECK(r.curves.empty());
  REQUIRE(r.cpu_rates.size() == 1);
  CHECK(r.cpu_rates[ChainId::Twofish].decrypt_MBps == 9000);
  CHECK(r.cpu_rates[ChainId::Twofish].encrypt_MBps == 0);

  std::ofstream(crossover_path()) << "{ damaged";
  CHECK(load_calibration().curves.empty());
  CHECK(load_crossover()[ChainId::Serpent] == 262144);  // the built-in default again
}

TEST_CASE("measure_curve: the CPU curve alone without a GPU engine", "[calibration]") {
  CpuEngine cpu(1);
  const auto pts = measure_curve(cpu, nullptr, ChainId::Aes, 0.0);
  REQUIRE(pts.size() == calibration_sizes().size());
  for (size_t i = 0; i < pts.size(); ++i) {
    CHECK(pts[i].bytes == calibration_sizes()[i]);
    CHECK(pts[i].cpu_MBps > 0);
    CHECK(pts[i].gpu_MBps == 0);
  }
  CHECK(crossover_from(pts) == SIZE_MAX);
}

TEST_CASE("measure_cpu_rates: both directions at auto's probe size, with the engine that measured them",
          "[calibration]") {
  CpuEngine cpu(1);
  const CpuPassRates r = measure_cpu_rates(cpu, ChainId::Serpent, 0.0);
  CHECK(r.encrypt_MBps > 0);
  CHECK(r.decrypt_MBps > 0);
  CHECK(r.cpu_detail == cpu.detail());
}

TEST_CASE("measure_kdf: VeraCrypt's parameters per PRF", "[calibration]") {
  const KdfTiming t = measure_kdf(PrfId::Sha256, 0);
  CHECK(t.seconds > 0);
  CHECK(t.parameters == "500000 iterations, 1 block");
  CHECK(measure_kdf(PrfId::Sha512, 1).parameters == "16000 iterations, 1 block");  // PIM 1: 15000 + 1000
  CHECK(measure_kdf(PrfId::Ripemd160, 1).parameters.find("iterations") != std::string::npos);
}
