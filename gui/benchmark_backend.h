// What the benchmark window measures, behind functions so tests can answer instantly: XTS encrypt/decrypt MB/s per
// chain on the CPU engine (all cores) and the GPU engine when one exists, key-derivation time per PRF, the
// CPU/GPU curve over request sizes (the crossover), and the calibration stored by `warpvol benchmark --calibrate`.
#pragma once
#include <QString>
#include <functional>

#include "core/crypto/chain.h"
#include "core/engine/calibration.h"
#include "core/kdf/kdf_timing.h"

namespace warpvol::gui {

// QStrings value-initialised ({}): aggregate initialisers that leave them out stay free of
// -Wmissing-field-initializers.
struct BenchRow {
  ChainId chain;
  double cpu_encrypt_MBps = 0, cpu_decrypt_MBps = 0;
  double gpu_encrypt_MBps = 0, gpu_decrypt_MBps = 0;  // 0: no GPU
  QString cpu_implementation{};                       // "AES:vaes-avx512, ..."
};

using CancelCheck = std::function<void()>;  // throws to stop

struct BenchmarkBackend {
  bool has_gpu = false;
  QString cpu_detail, gpu_detail, gpu_missing_reason;
  std::function<BenchRow(ChainId, size_t bytes, const CancelCheck&)> measure_chain;
  std::function<KdfTiming(PrfId, const CancelCheck&)> measure_kdf;
  std::function<std::vector<CalibrationPoint>(ChainId, const CancelCheck&)> measure_curve;
  // The CPU engine's rates that a job bound by one writer reads (calibration.h), stored with a measured curve.
  std::function<CpuPassRates(ChainId, const CancelCheck&)> measure_cpu_rates;
  std::function<StoredCalibration()> stored_calibration;
  std::function<void(const StoredCalibration&)> store_calibration;  // only for curves with GPU figures

  // The real engines: CPU with every core, the GPU engine when this build has one and a device answers.
  static BenchmarkBackend real();
};

// The PRFs the window times: those VeraCrypt offers for new volumes.
std::vector<PrfId> benchmark_prfs();

}  // namespace warpvol::gui
