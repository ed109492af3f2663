// The measured curves behind the crossover: decrypt MB/s of the CPU and the GPU engine per chain and request size,
// as `warpvol benchmark --calibrate` measures them. They are kept in crossover.json (crossover_path()) under
// "measurements", next to the per-chain crossover sizes that --engine auto reads, so the GUI can plot the curves
// of the last calibration:
//   {"aes": null, "serpent": 65536, ...,
//    "measurements": {"serpent": [{"size_bytes": 65536, "cpu_decrypt_MBps": 1236, "gpu_decrypt_MBps": 1702}, ...]},
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

struct StoredCalibration {
  CalibrationCurves curves;
  std::string cpu_detail, gpu_detail;  // the engines that measured them, when recorded
};

// The request sizes a calibration measures: 64 KiB, 256 KiB, ..., 64 MiB.
const std::vector<size_t>& calibration_sizes();

// The smallest measured size from which the GPU is at least as fast at every larger measured size; SIZE_MAX when
// the GPU never is (or was not measured).
size_t crossover_from(const std::vector<CalibrationPoint>& points);

// Measures one chain at calibration_sizes() (gpu may be null: the CPU curve alone), min_seconds per figure.
std::vector<CalibrationPoint> measure_curve(XtsEngine& cpu, XtsEngine* gpu, ChainId chain, double min_seconds,
                                            const std::function<void()>& check_cancel = {});

// From `path` (default crossover_path()): empty curves when the file or its "measurements" is missing or damaged.
StoredCalibration load_calibration(const std::string& path = {});
// Replaces the curves of the chains given (others stay) and the engine details, keeping the crossover sizes.
void save_calibration(const StoredCalibration& c);

}  // namespace warpvol
