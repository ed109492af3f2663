#include "core/engine/calibration.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "core/engine/engine_benchmark.h"
#include "core/engine/engine_factory.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nlohmann::json::object();
  try {
    auto j = nlohmann::json::parse(in);
    return j.is_object() ? j : nlohmann::json::object();
  } catch (const std::exception&) {
    return nlohmann::json::object();
  }
}

}  // namespace

const std::vector<size_t>& calibration_sizes() {
  static const std::vector<size_t> sizes = {size_t(64) << 10, size_t(256) << 10, size_t(1) << 20,
                                            size_t(4) << 20,  size_t(16) << 20,  size_t(64) << 20};
  return sizes;
}

size_t crossover_from(const std::vector<CalibrationPoint>& points) {
  size_t cross = SIZE_MAX;
  for (size_t i = points.size(); i-- > 0;) {
    if (!(points[i].gpu_MBps > 0 && points[i].gpu_MBps >= points[i].cpu_MBps)) break;
    cross = points[i].bytes;
  }
  return cross;
}

std::vector<CalibrationPoint> measure_curve(XtsEngine& cpu, XtsEngine* gpu, ChainId chain, double min_seconds,
                                            const std::function<void()>& check_cancel) {
  std::vector<CalibrationPoint> out;
  for (size_t s : calibration_sizes()) {
    CalibrationPoint p;
    p.bytes = s;
    // Decryption only: the curves are decrypt MB/s (calibration.h).
    const RatePasses dec = RatePasses::Decrypt;
    p.cpu_MBps = measure_engine(cpu, chain, s, min_seconds, check_cancel, 1, dec).decrypt_MBps;
    if (gpu) p.gpu_MBps = measure_engine(*gpu, chain, s, min_seconds, check_cancel, 1, dec).decrypt_MBps;
    out.push_back(p);
  }
  return out;
}

CpuPassRates measure_cpu_rates(XtsEngine& cpu, ChainId chain, double min_seconds,
                               const std::function<void()>& check_cancel) {
  const EngineRate r = measure_engine(cpu, chain, kCpuRateBytes, min_seconds, check_cancel);
  return {r.encrypt_MBps, r.decrypt_MBps, cpu.detail()};
}

StoredCalibration load_calibration(const std::string& path) {
  StoredCalibration out;
  const nlohmann::json j = read_json(path.empty() ? crossover_path() : path);
  try {
    if (auto w = j.find("measured_with"); w != j.end() && w->is_object()) {
      out.cpu_detail = w->value("cpu", "");
      out.gpu_detail = w->value("gpu", "");
    }
    auto m = j.find("measurements");
    if (m != j.end() && m->is_object()) {
      for (const auto& c : all_chains()) {
        auto it = m->find(std::string(c.cli_name));
        if (it == m->end() || !it->is_array()) continue;
        std::vector<CalibrationPoint> pts;
        for (const auto& p : *it) {
          CalibrationPoint cp;
          cp.bytes = p.value("size_bytes", size_t(0));
          cp.cpu_MBps = p.value("cpu_decrypt_MBps", 0.0);
          const auto g = p.find("gpu_decrypt_MBps");
          cp.gpu_MBps = g != p.end() && g->is_number() ? g->get<double>() : 0.0;
          if (cp.bytes) pts.push_back(cp);
        }
        if (!pts.empty()) out.curves[c.id] = pts;
      }
    }
  } catch (const std::exception&) {
    // A damaged entry: what was read so far is kept; the plot says what it shows.
  }
  if (auto r = j.find("cpu_rates"); r != j.end() && r->is_object())
    for (const auto& c : all_chains()) {
      auto it = r->find(std::string(c.cli_name));
      if (it == r->end() || !it->is_object()) continue;
      try {
        CpuPassRates pr;
        pr.encrypt_MBps = it->value("encrypt_MBps", 0.0);
        pr.decrypt_MBps = it->value("decrypt_MBps", 0.0);
        pr.cpu_detail = it->value("cpu", "");
        out.cpu_rates[c.id] = pr;
      } catch (const std::exception&) {
        // A damaged chain's rates: that chain's job probes instead.
      }
    }
  return out;
}

void save_calibration(const StoredCalibration& c) {
  const std::string path = crossover_path();
  nlohmann::json j = read_json(path);
  nlohmann::json& m = j["measurements"];
  if (!m.is_object()) m = nlohmann::json::object();
  for (const auto& [chain, pts] : c.curves) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& p : pts)
      a.push_back({{"size_bytes", p.bytes},
                   {"cpu_decrypt_MBps", p.cpu_MBps},
                   {"gpu_decrypt_MBps", p.gpu_MBps > 0 ? nlohmann::json(p.gpu_MBps) : nlohmann::json(nullptr)}});
    m[std::string(chain_info(chain).cli_name)] = a;
  }
  nlohmann::json& r = j["cpu_rates"];
  if (!r.is_object()) r = nlohmann::json::object();
  for (const auto& [chain, pr] : c.cpu_rates)
    r[std::string(chain_info(chain).cli_name)] = {
        {"encrypt_MBps", pr.encrypt_MBps}, {"decrypt_MBps", pr.decrypt_MBps}, {"cpu", pr.cpu_detail}};
  j["measured_with"] = {{"cpu", c.cpu_detail}, {"gpu", c.gpu_detail}};
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw Error(ErrorKind::Io, "cannot write " + tmp);
    out << j.dump(2) << "\n";
    if (!out.flush()) throw Error(ErrorKind::Io, "cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw Error(ErrorKind::Io, "cannot replace " + path + ": " + ec.message());
}

}  // namespace warpvol
