// warpvol benchmark: XTS encrypt/decrypt throughput per chain and engine on random data, and key-derivation time
// per PRF; --calibrate measures CPU against GPU per chain and request size and stores the crossover for
// --engine auto. MB/s are decimal (10^6 bytes per second), like `openssl speed`.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "cli/command.h"
#include "cli/cpu_path_text.h"
#include "core/crypto/chain.h"
#include "core/crypto/cpu_features.h"
#include "core/engine/calibration.h"
#include "core/engine/cpu_engine.h"
#include "core/engine/engine_benchmark.h"
#include "core/engine/engine_factory.h"
#include "core/format/header.h"
#include "core/kdf/prf.h"
#include "core/util/error.h"
#include "core/util/random.h"
#include "core/util/secure.h"
#ifdef WARPVOL_HAVE_GPU
#include "gpu/gpu_engine.h"
#endif

namespace warpvol::cli {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct EngineUnderTest {
  std::string label;  // "cpu", "gpu"
  std::shared_ptr<XtsEngine> engine;
  std::optional<unsigned> threads;  // CPU only
};

std::string fmt(double v, int prec = 1) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

class BenchmarkCommand final : public Command {
 public:
  std::string name() const override { return "benchmark"; }
  std::string summary() const override {
    return "Measure XTS encrypt/decrypt MB/s per chain and engine, and key-derivation time per PRF";
  }
  std::string usage() const override {
    return "benchmark [--size N] [--threads N] [--engine cpu|gpu|auto|all] [--json] [--calibrate]";
  }
  std::string example() const override { return "warpvol benchmark --size 64M --threads 1 --encryption aes --json"; }
  bool has_json() const override { return true; }
  void add_options(po::options_description& visible, po::options_description&) const override {
    visible.add_options()
        ("size", po::value<std::string>()->value_name("N")->default_value("32M"),
         "bytes per XTS request (multiple of 512; K/M/G suffixes)")
        ("threads", po::value<unsigned>()->value_name("N")->default_value(0), "CPU engine threads (0 = every core)")
        ("engine", po::value<std::string>()->value_name("cpu|gpu|auto|all")->default_value("all"),
         "engines to measure (all = the CPU engine and the GPU engine when present; auto = the dispatcher of the "
         "data commands: GPU from the calibrated crossover size up, else CPU)")
        ("encryption", po::value<std::string>()->value_name("CHAIN"), "measure only this chain")
        ("hash", po::value<std::string>()->value_name("PRF"), "measure only this PRF")
        ("iterations", po::value<uint32_t>()->value_name("N"),
         "PBKDF2 iterations (default: VeraCrypt's count for the PIM)")
        ("pim", po::value<int>()->value_name("N")->default_value(0),
         "PIM for the iteration counts and Argon2id parameters (0 = VeraCrypt defaults)")
        ("min-time", po::value<double>()->value_name("SEC")->default_value(0.5),
         "measure each figure for at least this long")
        ("xts-only", "skip key derivation")
        ("kdf-only", "skip XTS")
        ("calibrate", "measure CPU vs GPU per chain at 64 KiB..64 MiB and save the crossover for --engine auto");
  }

  int execute(Context& ctx, const po::variables_map& vm) const override {
    const uint64_t size = parse_size(vm["size"].as<std::string>());
    if (size < kDataUnitSize || size % kDataUnitSize || size > (uint64_t(16) << 30))
      throw Error(ErrorKind::Usage, "--size must be a multiple of 512 between 512 and 16G");
    const unsigned threads = vm["threads"].as<unsigned>();
    const std::string which = vm["engine"].as<std::string>();
    if (which != "cpu" && which != "gpu" && which != "auto" && which != "all")
      throw Error(ErrorKind::Usage, "unknown engine '" + which + "' for benchmark (cpu, gpu, auto or all)");
    const double min_time = vm["min-time"].as<double>();
    if (!(min_time >= 0 && min_time <= 3600)) throw Error(ErrorKind::Usage, "--min-time must be 0..3600 seconds");
    const int pim = vm["pim"].as<int>();
    if (pim < 0) throw Error(ErrorKind::Usage, "--pim must be >= 0");
    if (vm.count("xts-only") && vm.count("kdf-only"))
      throw Error(ErrorKind::Usage, "--xts-only and --kdf-only exclude each other");
    std::optional<ChainId> only_chain;
    if (vm.count("encryption")) {
      only_chain = parse_chain(vm["encryption"].as<std::string>());
      if (!only_chain)
        throw Error(ErrorKind::Usage, "unknown encryption '" + vm["encryption"].as<std::string>() + "' (" +
                                          chain_names_list() + ")");
    }
    std::optional<PrfId> only_prf;
    if (vm.count("hash")) {
      only_prf = parse_prf(vm["hash"].as<std::string>());
      if (!only_prf) throw Error(ErrorKind::Usage, "unknown hash '" + vm["hash"].as<std::string>() + "'");
    }
    std::optional<uint32_t> iterations;
    if (vm.count("iterations")) {
      iterations = vm["iterations"].as<uint32_t>();
      if (*iterations == 0) throw Error(ErrorKind::Usage, "--iterations must be at least 1");
    }

    json results = json::array();
    const std::string isa = std::string(isa_name(active_isa()));
    if (!ctx.json) ctx.out << cpu_path_line(active_isa(), detected_isa()) << "\n";

    if (vm.count("calibrate")) {
      calibrate(ctx, threads, only_chain, min_time, results);
    } else {
      if (!vm.count("kdf-only")) {
        auto engines = make_engines(ctx, which, threads);
        xts(ctx, engines, size, only_chain, min_time, results);
#ifdef WARPVOL_HAVE_GPU
        // Figures only the device can give (kernel-only, pinned and pageable end to end), over 1 GiB unless --size
        // was given.
        for (const auto& eu : engines)
          if (eu.label == "gpu")
            gpu_figures(ctx, vm["size"].defaulted() ? (uint64_t(1) << 30) : size, only_chain, results);
#endif
      }
      if (!vm.count("xts-only")) kdf(ctx, only_prf, iterations, pim, results);
    }
    if (ctx.json) ctx.out << results.dump(2) << std::endl;
    return 0;
  }

 private:
  static std::vector<EngineUnderTest> make_engines(const Context& ctx, const std::string& which, unsigned threads) {
    std::vector<EngineUnderTest> out;
    if (which == "auto") {
      EngineOptions eo;
      eo.choice = EngineChoice::Auto;
      eo.cpu_threads = threads;
      eo.verbose = [&ctx](const std::string& s) { ctx.verbose_line(s); };
      out.push_back({"auto", make_engine(eo), std::nullopt});
      return out;
    }
    if (which == "cpu" || which == "all") {
      auto cpu = std::make_shared<CpuEngine>(threads);
      out.push_back({"cpu", cpu, cpu->threads()});
    }
    if (which == "gpu" || which == "all") {
      EngineOptions eo;
      eo.choice = EngineChoice::Gpu;
      try {
        out.push_back({"gpu", make_engine(eo), std::nullopt});
      } catch (const Error& e) {
        if (which == "gpu") throw;
        // Worth a line when a GPU engine is built in but unusable; a CPU-only build says so only with --verbose.
        if (gpu_engine_compiled())
          ctx.message(std::string("GPU engine not measured: ") + e.what());
        else
          ctx.verbose_line(std::string("GPU engine not measured: ") + e.what());
      }
    }
    return out;
  }

  static std::vector<uint8_t> random_vector(size_t n) {
    std::vector<uint8_t> v(n);
    random_bytes(v.data(), v.size());
    return v;
  }

  // Encrypt then decrypt a sample and compare: a benchmark of a broken engine must not report a number.
  static void round_trip_check(XtsEngine& e, const EngineKey& key, const std::string& what) {
    std::vector<uint8_t> sample = random_vector(64 * kDataUnitSize), copy = sample;
    e.process(key, Direction::Encrypt, 256, copy.data(), 64);
    if (copy == sample) throw Error(ErrorKind::Format, what + ": encryption left the data unchanged");
    e.process(key, Direction::Decrypt, 256, copy.data(), 64);
    if (copy != sample) throw Error(ErrorKind::Format, what + ": decryption did not restore the data");
  }

  static void xts(const Context& ctx, const std::vector<EngineUnderTest>& engines, uint64_t size,
                  std::optional<ChainId> only_chain, double min_time, json& results) {
    std::vector<uint8_t> keymat = random_vector(kHeaderKeyMaterial);
    for (const auto& eu : engines) {
      if (!ctx.json)
        ctx.out << "\nXTS, engine " << eu.label << " (" << eu.engine->detail() << "), " << format_bytes(size)
                << " per request:\n"
                << "  chain                         encrypt MB/s  decrypt MB/s  implementation\n";
      for (const ChainInfo& ci : all_chains()) {
        if (only_chain && *only_chain != ci.id) continue;
        auto key = eu.engine->prepare(ci.id, keymat.data());
        round_trip_check(*eu.engine, *key, eu.label + " engine, " + std::string(ci.name));
        // The same measurement as the GUI's benchmark dialog (core/engine/engine_benchmark.h).
        EngineRate rate = measure_engine(*eu.engine, ci.id, size_t(size), min_time, [&] { ctx.check_cancel(); });
        std::string impl = eu.label == "cpu" ? XtsChain(ci.id, keymat.data()).impl_names() : eu.engine->detail();
        json j = {{"kind", "xts"},
                  {"chain", std::string(ci.name)},
                  {"chain_cli", std::string(ci.cli_name)},
                  {"engine", eu.label},
                  {"engine_detail", eu.engine->detail()},
                  {"path", eu.label == "gpu" ? "pageable" : "host"},
                  {"implementation", impl},
                  {"isa", std::string(isa_name(active_isa()))},
                  {"size_bytes", size},
                  {"encrypt_MBps", std::round(rate.encrypt_MBps * 10) / 10},
                  {"decrypt_MBps", std::round(rate.decrypt_MBps * 10) / 10}};
        j["threads"] = eu.threads ? json(*eu.threads) : json(nullptr);
        results.push_back(j);
        if (!ctx.json) {
          char line[160];
          std::snprintf(line, sizeof line, "  %-28s %13s %13s  %s\n", std::string(ci.name).c_str(),
                        fmt(rate.encrypt_MBps).c_str(), fmt(rate.decrypt_MBps).c_str(), impl.c_str());
          ctx.out << line << std::flush;
        }
      }
    }
  }

#ifdef WARPVOL_HAVE_GPU
  // warpvol::gpu::benchmark (gpu/): per chain, the fused kernel on data already in GPU memory ("kernel"), and
  // process() end to end from page-locked ("pinned") and ordinary ("pageable") host memory, median of 5 runs.
  static void gpu_figures(const Context& ctx, uint64_t size, std::optional<ChainId> only_chain, json& results) {
    gpu::GpuBenchOptions o;
    o.kernel_bytes = o.host_bytes = size_t(size);
    if (only_chain) o.chains.push_back(*only_chain);
    std::string device, why;
    ctx.check_cancel();
    auto r = gpu::benchmark(o, device, why);
    if (r.empty()) {
      ctx.message("GPU figures not measured: " + why);
      return;
    }
    if (!ctx.json)
      ctx.out << "\nGPU " << device << ", " << format_bytes(size) << " per figure, MB/s (median of " << o.repeats
              << "): kernel = data in GPU memory; pinned / pageable = end to end from host memory\n"
              << "  chain                        kernel enc  kernel dec  pinned enc  pinned dec  pageable enc  "
                 "pageable dec\n";
    auto mbps = [](double gbps) { return std::round(gbps * 1e4) / 10; };  // GB/s -> MB/s, one decimal
    for (const auto& x : r) {
      const std::string name(chain_info(x.chain).name);
      const std::pair<const char*, std::pair<double, double>> paths[] = {
          {"kernel", {x.kernel_encrypt_gbps, x.kernel_decrypt_gbps}},
          {"pinned", {x.pinned_gbps, x.pinned_decrypt_gbps}},
          {"pageable", {x.pageable_gbps, x.pageable_decrypt_gbps}}};
      for (const auto& [path, ed] : paths)
        results.push_back({{"kind", "xts"},
                           {"chain", name},
                           {"chain_cli", std::string(chain_info(x.chain).cli_name)},
                           {"engine", "gpu"},
                           {"engine_detail", device},
                           {"path", path},
                           {"threads", nullptr},
                           {"size_bytes", size},
                           {"encrypt_MBps", mbps(ed.first)},
                           {"decrypt_MBps", mbps(ed.second)}});
      if (!ctx.json) {
        char line[200];
        std::snprintf(line, sizeof line, "  %-28s %11.0f %11.0f %11.0f %11.0f %13.0f %13.0f\n", name.c_str(),
                      mbps(x.kernel_encrypt_gbps), mbps(x.kernel_decrypt_gbps), mbps(x.pinned_gbps),
                      mbps(x.pinned_decrypt_gbps), mbps(x.pageable_gbps), mbps(x.pageable_decrypt_gbps));
        ctx.out << line << std::flush;
      }
    }
  }
#endif

  static void kdf(const Context& ctx, std::optional<PrfId> only_prf, std::optional<uint32_t> iterations, int pim,
                  json& results) {
    std::vector<uint8_t> salt = random_vector(kSaltSize);
    const char pw[] = "warpvol benchmark password";
    if (!ctx.json)
      ctx.out << "\nKey derivation (one derivation, as opening a volume with that PRF and AES costs):\n"
              << "  PRF               parameters                      seconds\n";
    for (const PrfInfo& p : all_prfs()) {
      if (only_prf ? *only_prf != p.id : !p.veracrypt) continue;
      ctx.check_cancel();
      json j = {{"kind", "kdf"}, {"prf", std::string(p.cli_name)}};
      std::string params;
      double secs = 0;
      if (p.id == PrfId::Argon2id) {
        Argon2Params a = argon2_params(pim);
        SecureBytes out(kHeaderKeyMaterial);
        auto t0 = Clock::now();
        argon2id(reinterpret_cast<const uint8_t*>(pw), sizeof pw - 1, salt.data(), salt.size(), a, out.data(),
                 out.size());
        secs = seconds_since(t0);
        j["prf_name"] = "Argon2id";
        j["iterations"] = a.t_cost;
        j["m_cost_kib"] = a.m_cost_kib;
        j["output_bytes"] = kHeaderKeyMaterial;
        params = "t=" + std::to_string(a.t_cost) + ", m=" + format_bytes(uint64_t(a.m_cost_kib) * 1024);
      } else {
        uint32_t it = iterations ? *iterations : pbkdf2_iterations(p.id, VolumeFormat::VeraCrypt, pim, false);
        if (it == 0) it = pbkdf2_iterations(p.id, VolumeFormat::TrueCrypt, 0, false);
        if (it == 0) continue;
        SecureBytes out(p.digest_size);
        auto t0 = Clock::now();
        pbkdf2_block(p.id, reinterpret_cast<const uint8_t*>(pw), sizeof pw - 1, salt.data(), salt.size(), it, 1,
                     out.data());
        secs = seconds_since(t0);
        j["prf_name"] = "HMAC-" + std::string(p.name);
        j["iterations"] = it;
        j["output_bytes"] = p.digest_size;
        j["blocks"] = 1;
        params = std::to_string(it) + " iterations, 1 block";
        if (pbkdf2_lane_width(p.id) > 1) {  // also what one header location's 192 bytes cost, in SIMD lanes
          emit(ctx, j, params, secs, results);
          const size_t n = (kHeaderKeyMaterial + p.digest_size - 1) / p.digest_size;
          SecureBytes outs(n * p.digest_size);
          std::vector<Pbkdf2Block> blocks;
          for (size_t b = 0; b < n; ++b)
            blocks.push_back({salt.data(), salt.size(), uint32_t(b + 1), outs.data() + b * p.digest_size});
          auto t1 = Clock::now();
          pbkdf2_blocks_cancellable(p.id, reinterpret_cast<const uint8_t*>(pw), sizeof pw - 1, blocks.data(), n, it,
                                    nullptr);
          secs = seconds_since(t1);
          j["output_bytes"] = n * p.digest_size;
          j["blocks"] = n;
          params = std::to_string(it) + " iterations, " + std::to_string(n) + " blocks";
        }
      }
      emit(ctx, j, params, secs, results);
    }
  }

  static void emit(const Context& ctx, json j, const std::string& params, double secs, json& results) {
    j["seconds"] = std::round(secs * 10000) / 10000;
    results.push_back(j);
    if (!ctx.json) {
      char line[160];
      std::snprintf(line, sizeof line, "  %-17s %-31s %7.3f\n", j["prf_name"].get<std::string>().c_str(),
                    params.c_str(), secs);
      ctx.out << line << std::flush;
    }
  }

  static void calibrate(const Context& ctx, unsigned threads, std::optional<ChainId> only_chain, double min_time,
                        json& results) {
    EngineOptions eo;
    eo.choice = EngineChoice::Gpu;
    std::shared_ptr<XtsEngine> gpu;
    try {
      gpu = make_engine(eo);
    } catch (const Error& e) {
      throw Error(ErrorKind::Usage, std::string("--calibrate compares the CPU and GPU engines: ") + e.what());
    }
    auto cpu = std::make_shared<CpuEngine>(threads);
    std::vector<uint8_t> keymat = random_vector(kHeaderKeyMaterial);
    std::map<ChainId, size_t> crossover = load_crossover();
    StoredCalibration curves;  // kept with the crossover sizes, for the GUI's crossover plot
    curves.cpu_detail = cpu->detail();
    curves.gpu_detail = gpu->detail();
    const double t = std::min(min_time, 0.25);
    if (!ctx.json)
      ctx.out << "\nCalibration: decrypt MB/s, cpu (" << cpu->detail() << ") vs gpu (" << gpu->detail() << ")\n";
    for (const ChainInfo& ci : all_chains()) {
      if (only_chain && *only_chain != ci.id) continue;
      auto kg = gpu->prepare(ci.id, keymat.data());
      round_trip_check(*gpu, *kg, "gpu engine, " + std::string(ci.name));
      if (!ctx.json) ctx.out << "  " << ci.name << ":" << std::flush;
      const std::vector<CalibrationPoint> points = measure_curve(*cpu, gpu.get(), ci.id, t, [&] { ctx.check_cancel(); });
      for (const CalibrationPoint& p : points) {
        results.push_back({{"kind", "calibrate"},
                           {"chain", std::string(ci.name)},
                           {"size_bytes", p.bytes},
                           {"cpu_decrypt_MBps", std::round(p.cpu_MBps * 10) / 10},
                           {"gpu_decrypt_MBps", std::round(p.gpu_MBps * 10) / 10},
                           {"threads", cpu->threads()}});
        if (!ctx.json) ctx.out << "  " << format_bytes(p.bytes) << " " << fmt(p.cpu_MBps, 0) << "/" << fmt(p.gpu_MBps, 0);
      }
      // The CPU engine each way at auto's probe size: what a job bound by one writer reads in place of its probe.
      const CpuPassRates r = measure_cpu_rates(*cpu, ci.id, t, [&] { ctx.check_cancel(); });
      curves.cpu_rates[ci.id] = r;
      results.push_back({{"kind", "cpu_job_rate"},
                         {"chain", std::string(ci.name)},
                         {"size_bytes", kCpuRateBytes},
                         {"cpu_encrypt_MBps", std::round(r.encrypt_MBps * 10) / 10},
                         {"cpu_decrypt_MBps", std::round(r.decrypt_MBps * 10) / 10},
                         {"threads", cpu->threads()}});
      if (!ctx.json)
        ctx.out << "\n    cpu engine at " << format_bytes(kCpuRateBytes) << " (jobs bound by one writer): encrypt "
                << fmt(r.encrypt_MBps, 0) << ", decrypt " << fmt(r.decrypt_MBps, 0) << " MB/s";
      // Crossover: the smallest size from which the GPU is at least as fast at every larger size measured.
      const size_t cross = crossover_from(points);
      crossover[ci.id] = cross;
      curves.curves[ci.id] = points;
      results.push_back({{"kind", "crossover"},
                         {"chain", std::string(ci.name)},
                         {"crossover_bytes", cross == std::numeric_limits<size_t>::max() ? json(nullptr) : json(cross)}});
      if (!ctx.json)
        ctx.out << "\n    crossover: "
                << (cross == std::numeric_limits<size_t>::max() ? std::string("never (CPU always faster)")
                                                                  : format_bytes(cross))
                << "\n" << std::flush;
    }
    save_crossover(crossover);
    save_calibration(curves);
    if (!ctx.json) ctx.out << "saved to " << crossover_path() << "\n";
  }
};

}  // namespace

std::unique_ptr<Command> make_benchmark_command() { return std::make_unique<BenchmarkCommand>(); }

}  // namespace warpvol::cli
