// warpvol keyfile create FILE [--size N]: a new keyfile of N random bytes (64..1 MiB, default 64 as VeraCrypt's
// --create-keyfile), mode 0600.
#include <ostream>

#include "cli/command.h"
#include "core/create/keyfile.h"
#include "core/util/error.h"
#include "core/util/random.h"

namespace warpvol::cli {
namespace {

class KeyfileCommand final : public Command {
 public:
  std::string name() const override { return "keyfile"; }
  std::string summary() const override { return "Create a keyfile of random bytes (keyfile create FILE)"; }
  std::string usage() const override { return "keyfile create FILE [--size N] [--random-source FILE] [--force]"; }
  std::string example() const override { return "warpvol keyfile create my.key --size 1K"; }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    visible.add_options()
        ("size", po::value<std::string>()->value_name("N")->default_value("64"),
         "bytes, 64..1M (only the first 1 MiB of a keyfile counts)")
        ("random-source", po::value<std::string>()->value_name("FILE"), "mix up to 1 MiB of FILE into the bytes")
        ("force,f", "replace FILE if it exists");
    hidden.add_options()("action", po::value<std::string>(), "action")("file", po::value<std::string>(), "file");
  }
  void add_positionals(po::positional_options_description& pos) const override {
    pos.add("action", 1).add("file", 1);
  }

  int execute(Context& ctx, const po::variables_map& vm) const override {
    if (!vm.count("action") || vm["action"].as<std::string>() != "create")
      throw Error(ErrorKind::Usage, "usage: warpvol " + usage());
    if (!vm.count("file")) throw Error(ErrorKind::Usage, "missing FILE (usage: warpvol " + usage() + ")");
    const uint64_t size = parse_size(vm["size"].as<std::string>());
    if (size < kKeyfileMinSize || size > kKeyfileMaxSize)
      throw Error(ErrorKind::Usage, "--size must be between 64 and 1048576 bytes (1M)");
    if (vm.count("random-source")) set_random_source(vm["random-source"].as<std::string>());
    const std::string path = vm["file"].as<std::string>();
    create_keyfile(path, size_t(size), vm.count("force") > 0);
    ctx.out << "Created keyfile " << path << " (" << size << " random bytes, mode 0600)\n";
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_keyfile_command() { return std::make_unique<KeyfileCommand>(); }

}  // namespace warpvol::cli
