// warpvol info VOLUME [--json]: open the header and describe it.
#include <ostream>

#include "cli/command.h"
#include "cli/credentials.h"
#include "cli/volume_info.h"
#include "core/format/header_json.h"

namespace warpvol::cli {
namespace {

class InfoCommand final : public VolumeCommand<NoRequest> {
 public:
  std::string name() const override { return "info"; }
  std::string summary() const override {
    return "Show a volume's header: format, version, type, encryption, KDF, sector size, data offset and size";
  }
  std::string usage() const override { return "info VOLUME [--json] [credentials]"; }
  std::string example() const override { return "warpvol info secret.hc --password-stdin < pw.txt"; }
  bool has_json() const override { return true; }
  void add_options(po::options_description&, po::options_description& hidden) const override {
    hidden.add_options()("volume", po::value<std::string>(), "volume");
  }
  void add_positionals(po::positional_options_description& pos) const override { pos.add("volume", 1); }

  int execute_with_volume(Context& ctx, const po::variables_map& vm, const std::string& path,
                          std::unique_ptr<BlockFile> file, NoRequest&) const override {
    OpenOptions opt = open_options_from(vm, path, ctx);
    OpenedHeader h = open_header(*file, opt);
    if (ctx.json)
      ctx.out << header_json(h, path).dump(2) << std::endl;
    else
      print_header_text(ctx.out, h, path);
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_info_command() { return std::make_unique<InfoCommand>(); }

}  // namespace warpvol::cli
