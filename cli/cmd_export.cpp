// warpvol export VOLUME OUT: write the whole decrypted data area to OUT ('-' = stdout). The job and its output's
// checks and commit are core's (core/job/export.h); this file takes the command line.
#include <sys/stat.h>

#include <chrono>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/credentials.h"
#include "cli/progress.h"
#include "core/engine/engine_factory.h"
#include "core/job/export.h"
#include "core/util/error.h"
#include "core/volume/volume.h"

namespace warpvol::cli {
namespace {

// What export takes from the command line besides the volume and its credentials.
struct ExportRequest {
  size_t chunk = 0;  // the stream's default (core/job/stream.h)
  EngineChoice choice = EngineChoice::Auto;
};

class ExportCommand final : public VolumeCommand<ExportRequest> {
 public:
  std::string name() const override { return "export"; }
  std::string summary() const override {
    return "Write the decrypted data area (a raw filesystem image) to OUT, or to stdout with '-'";
  }
  std::string usage() const override {
    return "export VOLUME OUT [--engine cpu|gpu|auto] [--progress-json] [credentials]";
  }
  std::string example() const override {
    return "warpvol export secret.hc image.raw --password-stdin < pw.txt   (then: mdir -i image.raw ::)";
  }
  bool uses_engine() const override { return true; }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    visible.add_options()
        ("progress-json", "progress as JSON lines on stderr (phase, bytes, speed, ETA)")
        ("quiet,q", "no progress bar on a terminal")
        ("force,f", "replace OUT if it exists; needed to write to a block device")
        ("chunk-size", po::value<std::string>()->value_name("N"),
         "bytes per engine request (default 8M, 4M on the GPU; multiple of 512, at least 64K)");
    hidden.add_options()("volume", po::value<std::string>(), "volume")("out", po::value<std::string>(), "out");
  }
  void add_positionals(po::positional_options_description& pos) const override {
    pos.add("volume", 1).add("out", 1);
  }

  std::vector<std::string> required_positionals() const override { return {"volume", "out"}; }

  ExportRequest parse_request(Context&, const po::variables_map& vm, const std::string&) const override {
    ExportRequest r;
    if (vm.count("chunk-size")) {
      uint64_t c = parse_size(vm["chunk-size"].as<std::string>());
      if (c < 65536 || c % kDataUnitSize || c > (uint64_t(1) << 30))
        throw Error(ErrorKind::Usage, "--chunk-size must be a multiple of 512 between 64K and 1G");
      r.chunk = size_t(c);
    }
    r.choice = engine_choice_from(vm);
    return r;
  }

  int execute_with_volume(Context& ctx, const po::variables_map& vm, const std::string& path,
                          std::unique_ptr<BlockFile> file, ExportRequest& request) const override {
    const std::string out_path = vm["out"].as<std::string>();
    // Everything that can be checked without the password first.
    struct stat vst;
    const bool have_vst = ::stat(path.c_str(), &vst) == 0;
    ExportTarget out(out_path, vm.count("force") > 0, have_vst ? &vst : nullptr);

    OpenOptions opt = open_options_from(vm, path, ctx);
    OpenedHeader header = open_header(*file, opt);
    EngineOptions eo;
    eo.choice = request.choice;
    eo.verbose = [&ctx](const std::string& m) { ctx.verbose_line(m); };
    if (!header.legacy) eo.chains = {header.chain};
    // A regular file's positioned writes, from one thread at a time.
    eo.one_writer = out.to_file() ? OneWriterJob::ExportToFile : OneWriterJob::None;
    std::shared_ptr<XtsEngine> engine = make_engine(eo);
    ctx.verbose_line("engine " + engine->name() + ": " + engine->detail());
    Volume vol(std::move(file), std::move(header), engine);
    const OpenedHeader& h = vol.header();
    ctx.verbose_line("data area: " + std::to_string(h.data_size) + " bytes at offset " +
                     std::to_string(h.data_offset) + ", first data unit " + std::to_string(h.first_unit));

    ProgressRenderer progress(choose_progress_mode(vm.count("progress-json") > 0, vm.count("quiet") > 0), ctx.err);
    ExportOptions xo;
    xo.chunk_bytes = request.chunk;
    xo.cancel = ctx.cancel;
    xo.summary = [&ctx](const std::string& m) { ctx.verbose_line(m); };
    xo.progress = [&progress](const ProgressUpdate& u) {
      if (u.finished) progress.finish(u);
      else progress.update(u);
    };
    const auto t0 = std::chrono::steady_clock::now();
    export_volume(vol, *engine, out, xo);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ctx.verbose_line("exported " + std::to_string(vol.size()) + " bytes to " + out.display() + " in " +
                     std::to_string(secs) + " s");
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_export_command() { return std::make_unique<ExportCommand>(); }

}  // namespace warpvol::cli
