#include "gui/benchmark_backend.h"

#include <memory>

#include "core/engine/cpu_engine.h"
#include "core/engine/engine_benchmark.h"
#include "core/engine/engine_factory.h"
#include "core/util/random.h"

namespace warpvol::gui {

namespace {
// Each XTS figure is measured for at least this long (the CLI's default is 0.5 s; a window wants to finish sooner).
constexpr double kMinSeconds = 0.2;
constexpr double kCurveMinSeconds = 0.1;
}  // namespace

std::vector<PrfId> benchmark_prfs() {
  std::vector<PrfId> out;
  for (const auto& p : all_prfs())
    if (p.veracrypt) out.push_back(p.id);
  return out;
}

BenchmarkBackend BenchmarkBackend::real() {
  BenchmarkBackend b;
  auto cpu = std::make_shared<CpuEngine>(0);
  std::shared_ptr<XtsEngine> gpu;
  try {
    EngineOptions gpu_only;
    gpu_only.choice = EngineChoice::Gpu;
    gpu = make_engine(gpu_only);
  } catch (const std::exception& e) {
    b.gpu_missing_reason = QString::fromStdString(e.what());
  }
  b.has_gpu = gpu != nullptr;
  b.cpu_detail = QString::fromStdString(cpu->detail());
  if (gpu) b.gpu_detail = QString::fromStdString(gpu->detail());
  b.measure_chain = [cpu, gpu](ChainId c, size_t bytes, const CancelCheck& cancel) {
    BenchRow r{.chain = c};
    const EngineRate rc = measure_engine(*cpu, c, bytes, kMinSeconds, cancel);
    r.cpu_encrypt_MBps = rc.encrypt_MBps;
    r.cpu_decrypt_MBps = rc.decrypt_MBps;
    std::vector<uint8_t> key(2 * chain_info(c).key_size());
    random_bytes(key.data(), key.size());
    r.cpu_implementation = QString::fromStdString(XtsChain(c, key.data()).impl_names());
    if (gpu) {
      const EngineRate rg = measure_engine(*gpu, c, bytes, kMinSeconds, cancel);
      r.gpu_encrypt_MBps = rg.encrypt_MBps;
      r.gpu_decrypt_MBps = rg.decrypt_MBps;
    }
    return r;
  };
  b.measure_kdf = [](PrfId p, const CancelCheck& cancel) {
    if (cancel) cancel();
    return warpvol::measure_kdf(p, 0);
  };
  b.measure_curve = [cpu, gpu](ChainId c, const CancelCheck& cancel) {
    return warpvol::measure_curve(*cpu, gpu.get(), c, kCurveMinSeconds, cancel);
  };
  b.measure_cpu_rates = [cpu](ChainId c, const CancelCheck& cancel) {
    return warpvol::measure_cpu_rates(*cpu, c, kCurveMinSeconds, cancel);
  };
  b.stored_calibration = [] { return load_calibration(); };
  b.store_calibration = [](const StoredCalibration& s) {
    save_calibration(s);
    auto cross = load_crossover();
    for (const auto& [chain, pts] : s.curves) cross[chain] = crossover_from(pts);
    save_crossover(cross);
  };
  return b;
}

}  // namespace warpvol::gui
