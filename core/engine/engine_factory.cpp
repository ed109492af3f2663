#include "core/engine/engine_factory.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <chrono>
#include <fstream>
#include <future>
#include <mutex>
#include <system_error>
#include <utility>

#include "core/engine/agent/agent_protocol.h"
#include "core/engine/agent/remote_engine.h"
#include "core/engine/auto_engine.h"
#include "core/engine/calibration.h"
#include "core/engine/cpu_engine.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

GpuEngineFactory& gpu_factory() {
  static GpuEngineFactory f;
  return f;
}

// Built-in crossover defaults, used until `warpvol benchmark --calibrate` measures this machine; taken from a
// calibration on a 16-core AVX-512/VAES/GFNI host with an H100 (docs/perf/design-figures.md, "Engine crossover";
// a CPU with fewer cores only moves the point down). AES stays on the CPU: with VAES all cores beat what the GPU
// gets through PCIe from pageable memory at every size. Camellia (GFNI on the CPU) goes to the GPU only from
// 64 MiB, Twofish chains (scalar on the CPU) from 64 KiB, Serpent, Kuznyechik and the other cascades from 256 KiB.
size_t default_crossover(ChainId id) {
  if (id == ChainId::Aes) return SIZE_MAX;
  if (id == ChainId::Camellia) return size_t(64) << 20;
  for (CipherId c : chain_info(id).order)
    if (c == CipherId::Twofish) return size_t(64) << 10;
  return size_t(256) << 10;
}

// From this request size a chain that the crossover keeps on the CPU may go to the GPU when the GPU agent serves
// the job (crossover_with_agent): above a mount's largest request (1 MiB, FUSE's limit), whose requests wait on
// their round trip and reach the agent staged through a copy, and below a job's requests to a GPU (4-16 MiB).
constexpr size_t kAgentCrossover = size_t(2) << 20;

// The crossover for a job that the GPU agent serves. The crossover compares engine against engine, and there all
// cores with VAES beat the GPU behind PCIe at AES; a job is another matter: the CPU engine takes the cores that its
// readers and writers need, while the agent costs no engine start and shares page-locked buffers, so through it
// the GPU can be the faster engine for a whole job of AES (docs/perf/measurements-2026-11-27-auto-jobs.md). Such
// chains may go to the GPU there, and auto's trials (cpu_share.h) keep the CPU's part only where the job gains.
std::map<ChainId, size_t> crossover_with_agent(std::map<ChainId, size_t> c) {
  for (auto& [id, bytes] : c)
    if (bytes == SIZE_MAX) bytes = kAgentCrossover;
  return c;
}

// The GPU agent's socket exists (and commands may use it): worth a connection attempt.
bool agent_reachable() {
  if (agent::agent_disabled_by_env()) return false;
  std::error_code ec;
  return std::filesystem::exists(agent::socket_path(), ec);
}

// A GPU engine being created on a background thread, and why it could not be (set before the engine is ready).
struct GpuStart {
  std::shared_future<std::shared_ptr<XtsEngine>> engine;
  std::shared_ptr<std::string> why;
};

std::mutex& prestart_mu() {
  static std::mutex m;
  return m;
}
GpuStart& prestarted() {
  static GpuStart s;
  return s;
}

GpuStart start_gpu() {
  GpuStart s;
  s.why = std::make_shared<std::string>("this build has no CUDA engine");
  auto create = [why = s.why]() -> std::shared_ptr<XtsEngine> {
    // A running GPU agent serves the job with an engine that is already started (agent/agent_protocol.h).
    if (agent_reachable()) {
      std::string agent_why;
      if (auto r = agent::RemoteEngine::connect(agent::socket_path(), agent_why)) return r;
    }
    if (!gpu_factory()) return nullptr;
    return std::shared_ptr<XtsEngine>(gpu_factory()(*why));
  };
  try {
    s.engine = std::async(std::launch::async, create).share();
  } catch (const std::system_error&) {  // no thread: create it here
    std::promise<std::shared_ptr<XtsEngine>> p;
    p.set_value(create());
    s.engine = p.get_future().share();
  }
  return s;
}

// The prestarted GPU engine (taken: a later make_engine starts its own), or one starting now.
GpuStart take_gpu_start() {
  std::lock_guard<std::mutex> lk(prestart_mu());
  GpuStart s = std::move(prestarted());
  prestarted() = {};
  return s.engine.valid() ? s : start_gpu();
}

// How long make_engine(auto) waits for a starting GPU engine before it lets the CPU begin alone: long enough for a
// machine without a CUDA driver or device to say so (auto is then the plain CPU engine), short next to the
// context creation of a real device.
constexpr auto kStartGrace = std::chrono::milliseconds(50);

// What --verbose says of the GPU engine for a job that leaves it to the CPU. A command that could not name its
// chains before the header opened (an export without --encryption) has started it beside the KDF
// (prestart_gpu_engine); it stays unused, for a later job to take.
std::string unused_gpu_words() {
  std::lock_guard<std::mutex> lk(prestart_mu());
  const GpuStart& s = prestarted();
  if (!s.engine.valid()) return " and the GPU engine is not started";
  std::string why;  // empty while it starts, or once it has
  if (s.engine.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    try {
      if (!s.engine.get()) why = *s.why;
    } catch (const std::exception& e) {  // this job does not need it: no reason to fail
      why = e.what();
    }
  }
  return why.empty() ? "; the GPU engine, started while the header was opened (its chain was not known then), stays "
                       "unused"
                     : " (the GPU engine, tried while the header was opened, could not start: " + why + ")";
}

// An auto engine set up for the job: its one-writer rule, with the CPU rates that `benchmark --calibrate` stored.
std::shared_ptr<XtsEngine> for_job(std::shared_ptr<AutoEngine> a, const EngineOptions& opt) {
  a->set_one_writer(opt.one_writer);
  a->use_calibration(load_calibration());
  return a;
}

}  // namespace

bool gpu_never_used(const std::vector<ChainId>& chains) {
  if (chains.empty()) return false;
  const std::map<ChainId, size_t> crossover = load_crossover();
  return std::all_of(chains.begin(), chains.end(), [&](ChainId c) {
    auto it = crossover.find(c);
    return it == crossover.end() || it->second == SIZE_MAX;
  });
}

void prestart_gpu_engine(EngineChoice choice, const std::vector<ChainId>& chains) {
  if (const char* e = std::getenv("WARPVOL_PRESTART"); e && std::strcmp(e, "off") == 0) return;  // measurements
  if (choice == EngineChoice::Cpu || !(gpu_factory() || agent_reachable())) return;
  if (choice == EngineChoice::Auto && gpu_never_used(chains)) return;
  std::lock_guard<std::mutex> lk(prestart_mu());
  if (!prestarted().engine.valid()) prestarted() = start_gpu();
}

std::optional<EngineChoice> parse_engine_choice(std::string_view s) {
  if (s == "auto") return EngineChoice::Auto;
  if (s == "cpu") return EngineChoice::Cpu;
  if (s == "gpu") return EngineChoice::Gpu;
  return std::nullopt;
}

GpuEngineFactory register_gpu_engine_factory(GpuEngineFactory f) { return std::exchange(gpu_factory(), std::move(f)); }
bool gpu_engine_compiled() { return static_cast<bool>(gpu_factory()); }

std::unique_ptr<XtsEngine> make_local_gpu_engine(std::string& why_not) {
  if (!gpu_factory()) {
    why_not = "this build has no CUDA engine";
    return nullptr;
  }
  return gpu_factory()(why_not);
}

std::shared_ptr<XtsEngine> make_engine(const EngineOptions& opt) {
  // Made only where the job may use it: its threads are started in the constructor, and `--engine gpu` would
  // start and join a core's worth of them for nothing. Each path below makes it at most once.
  auto cpu = [&] { return std::make_shared<CpuEngine>(opt.cpu_threads); };
  if (opt.choice == EngineChoice::Cpu) return cpu();
  if (!gpu_factory() && !agent_reachable()) {
    if (opt.choice == EngineChoice::Gpu) throw Error(ErrorKind::Usage, "--engine gpu: this build has no CUDA engine");
    if (opt.verbose) opt.verbose("this build has no CUDA engine: using the CPU engine (which also runs TrueCrypt's legacy modes)");
    return cpu();
  }
  if (opt.choice == EngineChoice::Auto && gpu_never_used(opt.chains)) {
    // A running agent: no engine to start, and the job may find the GPU the faster engine after all (above).
    std::string agent_why;
    if (agent_reachable())
      if (std::shared_ptr<XtsEngine> r = agent::RemoteEngine::connect(agent::socket_path(), agent_why)) {
        if (opt.verbose)
          opt.verbose("engine auto: the GPU agent serves the job, so requests of 2 MiB and more may go to the GPU "
                      "although the crossover keeps these chains on the CPU; the job tries the GPU alone against "
                      "the GPU with the CPU and keeps the faster");
        return for_job(
            std::make_shared<AutoEngine>(cpu(), std::move(r), crossover_with_agent(load_crossover()), opt.verbose),
            opt);
      }
    if (opt.verbose) {
      std::error_code ec;
      std::string names;
      for (ChainId c : opt.chains) names += (names.empty() ? "" : ", ") + std::string(chain_info(c).name);
      opt.verbose("engine auto: requests of " + names + " never go to the GPU on this machine (crossover: " +
                  (std::filesystem::exists(crossover_path(), ec) ? "measured, " + crossover_path()
                                                                 : std::string("built-in defaults")) +
                  "): the CPU engine runs the job" + unused_gpu_words());
    }
    return cpu();
  }
  GpuStart start = take_gpu_start();
  const auto asked = std::chrono::steady_clock::now();
  const agent::RemoteEngine* agent_engine = nullptr;  // the GPU agent serves the job
  if (opt.choice == EngineChoice::Gpu || start.engine.wait_for(kStartGrace) == std::future_status::ready) {
    std::shared_ptr<XtsEngine> gpu = start.engine.get();
    agent_engine = dynamic_cast<const agent::RemoteEngine*>(gpu.get());
    if (gpu && opt.verbose) {
      char b[160];
      if (const auto* r = agent_engine) {
        std::snprintf(b, sizeof b, "engine %s: the GPU agent (pid %d) serves the job: no engine start here",
                      opt.choice == EngineChoice::Gpu ? "gpu" : "auto", r->agent_pid());
        opt.verbose(b);
      } else if (opt.choice == EngineChoice::Gpu) {
        std::snprintf(b, sizeof b, "engine gpu: the job waited %.3f s for the GPU engine to start",
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count());
        opt.verbose(b);
      }
    }
    if (!gpu) {
      if (opt.choice == EngineChoice::Gpu) throw Error(ErrorKind::Usage, "--engine gpu: " + *start.why);
      if (opt.verbose) opt.verbose(*start.why + ": using the CPU engine (which also runs TrueCrypt's legacy modes)");
      return cpu();
    }
    if (opt.choice == EngineChoice::Gpu) return gpu;
  }
  if (opt.verbose) {
    std::error_code ec;
    const std::string from = std::filesystem::exists(crossover_path(), ec)
                                 ? "measured, " + crossover_path()
                                 : "built-in defaults; `warpvol benchmark --calibrate` measures them";
    opt.verbose("engine auto: requests from the crossover size per chain up (" + from + ") go to whichever of the "
                "GPU and the CPU is expected to finish them first, from the rates measured during the job; smaller "
                "ones, and all of them while the GPU engine is starting, to the CPU");
  }
  return for_job(std::make_shared<AutoEngine>(cpu(), start.engine,
                                              agent_engine ? crossover_with_agent(load_crossover()) : load_crossover(),
                                              opt.verbose),
                 opt);
}

std::string crossover_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  std::filesystem::path base;
  if (xdg && *xdg)
    base = xdg;
  else if (const char* home = std::getenv("HOME"))
    base = std::filesystem::path(home) / ".cache";
  else
    base = "/tmp";
  return (base / "warpvol" / "crossover.json").string();
}

std::map<ChainId, size_t> load_crossover() {
  std::ifstream in(crossover_path());
  if (!in) return crossover_from_json("");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return crossover_from_json(text);
}

std::map<ChainId, size_t> crossover_from_json(const std::string& text) {
  std::map<ChainId, size_t> out;
  for (const auto& c : all_chains()) out[c.id] = default_crossover(c.id);
  if (text.empty()) return out;
  try {
    auto j = nlohmann::json::parse(text);
    for (const auto& c : all_chains()) {
      auto it = j.find(std::string(c.cli_name));
      if (it != j.end() && it->is_number_unsigned()) out[c.id] = it->get<size_t>();
      if (it != j.end() && it->is_null()) out[c.id] = SIZE_MAX;  // never faster on the GPU
    }
  } catch (const std::exception&) {
    // A damaged cache file is ignored: the defaults apply.
  }
  return out;
}

void save_crossover(const std::map<ChainId, size_t>& c) {
  // Other keys of the file (the measured curves, core/engine/calibration.h) are kept.
  nlohmann::json j = nlohmann::json::object();
  if (std::ifstream in(crossover_path()); in) {
    try {
      j = nlohmann::json::parse(in);
    } catch (const std::exception&) {
    }
    if (!j.is_object()) j = nlohmann::json::object();
  }
  for (const auto& [id, bytes] : c) {
    if (bytes == SIZE_MAX)
      j[std::string(chain_info(id).cli_name)] = nullptr;
    else
      j[std::string(chain_info(id).cli_name)] = bytes;
  }
  const std::filesystem::path p = crossover_path();
  std::error_code ec;
  std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream out(p);
  if (!out) throw Error(ErrorKind::Io, "cannot write " + p.string());
  out << j.dump(2) << "\n";
}

}  // namespace warpvol
