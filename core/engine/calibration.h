// The measured curves behind the crossover: decrypt MB/s of the CPU and the GPU engine per chain and request size,
// as `warpvol benchmark --calibrate` measures them. They are kept in crossover.json (crossover_path()) under
// "measurements", next to the per-chain crossover sizes that --engine auto reads, so the GUI can plot the curves
// of the last calibration; and under "cpu_rates" the CPU engine's rate each way at auto's probe size, which a job
// bound by one writer reads in place of a probe (AutoEngine::use_calibration):
//   {"aes": null, "serpent": 65536, ...,
//    "measurements": {"serpent": [{"size_bytes": 65536, "cpu_decrypt_MBps": 1236, "gpu_decrypt_MBps": 1702}, ...]},
//    "cpu_rates": {"serpent": {"encrypt_MBps": 15800, "decrypt_MBps": 16900, "cpu": "16 threads, avx512 path"}},
//    "measured_with": {"cpu": "...", "gpu": "..."}}
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/crypto/chain.h"

namespace warpvol {

class XtsEngine;

struct CalibrationPoint {
  size_t bytes = 0;
  double cpu_MBps = 0;  // decrypt
  double gpu_MBps = 0;  // decrypt; 0 = not measured (no GPU)
};
using CalibrationCurves = std::map<ChainId, std::vector<CalibrationPoint>>;

// The CPU engine's rate each way on requests of one size, and the engine that measured it (XtsEngine::detail():
// its threads and SIMD path), for the rule that keeps a one-writer job on the CPU engine.
struct CpuPassRates {
  double encrypt_MBps = 0, decrypt_MBps = 0;
  std::string cpu_detail;
};

struct StoredCalibration {
  CalibrationCurves curves;
  std::map<ChainId, CpuPassRates> cpu_rates;
  std::string cpu_detail, gpu_detail;  // the engines that measured them, when recorded
};

// The request sizes a calibration measures: 64 KiB, 256 KiB, ..., 64 MiB.
const std::vector<size_t>& calibration_sizes();

// The smallest measured size from which the GPU is at least as fast at every larger measured size; SIZE_MAX when
// the GPU never is (or was not measured).
size_t crossover_from(const std::vector<CalibrationPoint>& points);

// The request size of the CPU rates: the size of auto's probe (AutoEngine::kRateProbeBytes), so that a stored rate
// stands for what the probe would measure.
inline constexpr size_t kCpuRateBytes = size_t(4) << 20;
// The CPU engine's rates each way at kCpuRateBytes, min_seconds each, with its detail.
CpuPassRates measure_cpu_rates(XtsEngine& cpu, ChainId chain, double min_seconds,
                               const std::function<void()>& check_cancel = {});

// Measures one chain at calibration_sizes() (gpu may be null: the CPU curve alone), min_seconds per figure.
std::vector<CalibrationPoint> measure_curve(XtsEngine& cpu, XtsEngine* gpu, ChainId chain, double min_seconds,
                                            const std::function<void()>& check_cancel = {});

// From `path` (default crossover_path()): empty curves when the file or its "measurements" is missing or damaged.
StoredCalibration load_calibration(const std::string& path = {});
// Replaces the curves and CPU rates of the chains given (others stay) and the engine details, keeping the crossover
// sizes.
void save_calibration(const StoredCalibration& c);

}  // namespace warpvol
