// Chooses the engine for a data command: --engine cpu | gpu | auto. The GPU engine lives in gpu/ (CUDA) and is
// registered by the programs that link it (register_gpu_engine_factory), so core never depends on CUDA.
// auto (engine/auto_engine.h) lets both engines take a job's requests: a request of at least the chain's crossover
// size (measured by `warpvol benchmark --calibrate`, stored in $XDG_CACHE_HOME/warpvol/crossover.json; built-in
// defaults otherwise) goes to the engine expected to finish it first, from the rates measured during the job.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

#include "core/engine/one_writer_job.h"
#include "core/engine/xts_engine.h"

namespace warpvol {

enum class EngineChoice { Auto, Cpu, Gpu };
std::optional<EngineChoice> parse_engine_choice(std::string_view s);

// Returns a GPU engine, or nullptr with `why_not` set (no driver, no device, ...).
using GpuEngineFactory = std::function<std::unique_ptr<XtsEngine>(std::string& why_not)>;
GpuEngineFactory register_gpu_engine_factory(GpuEngineFactory f);  // returns the one it replaces
bool gpu_engine_compiled();  // a factory was registered
// The registered factory's engine in this process (never the GPU agent's): what the agent itself hosts. nullptr
// with why_not when there is none.
std::unique_ptr<XtsEngine> make_local_gpu_engine(std::string& why_not);

struct EngineOptions {
  EngineChoice choice = EngineChoice::Auto;
  unsigned cpu_threads = 0;
  // Called with one line of explanation (e.g. "no CUDA device: using the CPU engine") for --verbose.
  std::function<void(const std::string&)> verbose;
  // The chains the job runs, when known (empty: not known). When none of them ever goes to the GPU under auto (the
  // crossover: AES on the built-in defaults), auto is the CPU engine and the GPU engine is not created: a job that
  // runs on the CPU alone does not pay for the GPU's start and for its release at exit (where the GPU agent runs,
  // there is no start to pay for: auto then tries the GPU on such chains too). Only a matter of speed:
  // the CPU engine runs every chain, so a hint that turns out wrong (a resumed re-encryption whose journal names
  // other chains) costs time, never correctness.
  std::vector<ChainId> chains;
  // The job writes one regular file from one thread (create, import, an export to a file, the re-encryption of
  // one container at a time with checksum resilience), which bounds it at a few GB/s and leaves the cores to the
  // engine: auto runs it on the CPU engine alone where that engine keeps up with such a writer with time to spare,
  // by a rate that depends on the kind of job (AutoEngine::set_one_writer).
  OneWriterJob one_writer = OneWriterJob::None;
};
// auto would send none of these chains' requests to the GPU (false for an empty list).
bool gpu_never_used(const std::vector<ChainId>& chains);

// Gpu when asked but unavailable: throws Error(Usage) with the reason. Auto without a GPU: the CPU engine.
std::shared_ptr<XtsEngine> make_engine(const EngineOptions& opt);

// Starts creating the GPU engine on a background thread, for a command that will call make_engine() with
// `choice` after reading the password and deriving the header key: creating a CUDA context takes a large part of
// a second, which then overlaps that work instead of adding to it. The next make_engine() takes the result. Not
// for a process that forks afterwards (a CUDA context does not survive fork()). `chains`: those the command line
// names (EngineOptions::chains); none is started when auto would not use it for them.
void prestart_gpu_engine(EngineChoice choice, const std::vector<ChainId>& chains = {});

// Crossover sizes (bytes) per chain for auto dispatch.
std::map<ChainId, size_t> load_crossover();
// load_crossover's reader: the built-in defaults overridden by the chains the JSON text names (a number of bytes,
// or null = never on the GPU); damaged or empty text gives the defaults.
std::map<ChainId, size_t> crossover_from_json(const std::string& text);
void save_crossover(const std::map<ChainId, size_t>& c);
std::string crossover_path();

}  // namespace warpvol
