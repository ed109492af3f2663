// warpvol import RAW OUT [--encryption CHAIN] [--hash PRF] [--pim N] [-k KEYFILE]...: a new volume whose data
// area is the raw image RAW (a filesystem image, say): the inverse of `export`. The data area is RAW rounded up
// to whole sectors and to VeraCrypt's minimum (36864 bytes of data, 299008 for the container); the padding is
// zeros (encrypted like the rest) and reported.
#include <chrono>
#include <ostream>

#include "cli/command.h"
#include "cli/credentials.h"
#include "cli/new_credentials.h"
#include "cli/password_policy.h"
#include "cli/progress.h"
#include "core/create/create.h"
#include "core/util/error.h"
#include "core/util/random.h"

namespace warpvol::cli {

void add_new_volume_options(po::options_description& visible);
void fill_new_volume_options(const po::variables_map& vm, CreateOptions& o, const Context& ctx);
std::string describe_created(const CreateOptions& o, const CreateResult& r);
std::string created_time_line(double engine_secs, const CreateResult& r, double secs);

namespace {

class ImportCommand final : public Command {
 public:
  std::string name() const override { return "import"; }
  std::string summary() const override {
    return "Create a volume whose data area is a raw image (inverse of export); sizes rounded up as VeraCrypt needs";
  }
  std::string usage() const override {
    return "import RAW OUT [--encryption CHAIN] [--hash PRF] [--pim N] [-k KEYFILE]... [--sector-size 512|4096] "
           "[--force]";
  }
  std::string example() const override {
    return "warpvol import fs.img secret.hc --encryption serpent --password-stdin < pw.txt";
  }
  bool uses_engine() const override { return true; }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    add_new_volume_options(visible);
    hidden.add_options()("raw", po::value<std::string>(), "raw")("out", po::value<std::string>(), "out");
  }
  void add_positionals(po::positional_options_description& pos) const override { pos.add("raw", 1).add("out", 1); }

  int execute(Context& ctx, const po::variables_map& vm) const override {
    if (!vm.count("raw") || !vm.count("out"))
      throw Error(ErrorKind::Usage, "missing RAW or OUT (usage: warpvol " + usage() + ")");
    CreateOptions o;
    o.import_path = vm["raw"].as<std::string>();
    o.path = vm["out"].as<std::string>();
    fill_new_volume_options(vm, o, ctx);
    if (vm.count("random-source")) set_random_source(vm["random-source"].as<std::string>());
    EngineOptions eo;
    eo.choice = engine_choice_from(vm);
    eo.chains = {o.chain};
    eo.verbose = [&ctx](const std::string& m) { ctx.verbose_line(m); };
    // The container is written from one thread unless it is a device.
    eo.one_writer = is_block_device(o.path) ? OneWriterJob::None : OneWriterJob::Fill;
    {
      // Pre-flight (raw image, output, sizes, free space) before the password prompt; keyfiles are checked again
      // with the real credentials before anything is written.
      CreateOptions probe = o;
      probe.credentials.password = LockedBytes(reinterpret_cast<const uint8_t*>("x"), 1);
      probe.engine = make_engine(eo);
      plan_create(probe);
    }
    o.credentials = credentials_from_options(vm, "", ctx, "Enter the new volume's password", true,
                                             vm.count("non-interactive") > 0);
    check_new_password(o.credentials.password, "the new volume's password");
    o.pim = o.credentials.pim;
    const auto t_engine = std::chrono::steady_clock::now();
    o.engine = make_engine(eo);
    const auto t0 = std::chrono::steady_clock::now();
    ctx.verbose_line("engine " + o.engine->name() + ": " + o.engine->detail());
    ProgressRenderer progress(choose_progress_mode(vm.count("progress-json") > 0, vm.count("quiet") > 0), ctx.err);
    o.fill.progress = [&progress](const ProgressUpdate& u) { progress.update(u); };
    o.fill.summary = [&ctx](const std::string& m) { ctx.verbose_line(m); };
    CreateResult r = create_volume(o);
    ctx.verbose_line(created_time_line(std::chrono::duration<double>(t0 - t_engine).count(), r,
                                       std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
    ProgressUpdate done;
    done.phase = "import";
    done.bytes_done = done.bytes_total = r.plan.data_size;
    done.finished = true;
    progress.finish(done);
    ctx.out << describe_created(o, r);
    ctx.out << "Imported:       " << r.plan.import_size << " bytes from " << o.import_path << "\n";
    ctx.out << "Padding:        " << r.plan.padding << " zero bytes after the image (data area rounded up to whole "
            << o.sector_size << "-byte sectors, minimum 36864 bytes)\n";
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_import_command() { return std::make_unique<ImportCommand>(); }

}  // namespace warpvol::cli
