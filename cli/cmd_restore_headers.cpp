// warpvol restore-headers VOLUME (--from FILE | --from-embedded-backup) [credentials]
// Restores the header that the credentials open — from a 128 KiB external backup (normal slot at 0 or hidden
// slot at 64 KiB) or from the volume's embedded backup — into the volume's primary and backup positions with
// fresh salts. A header that does not decrypt with the credentials is refused and nothing is written.
#include <ostream>

#include "cli/command.h"
#include "cli/credentials.h"
#include "core/create/change.h"
#include "core/util/error.h"

namespace warpvol::cli {
namespace {

class RestoreHeadersCommand final : public VolumeCommand<RestoreOptions> {
 public:
  std::string name() const override { return "restore-headers"; }
  std::string summary() const override {
    return "Restore a volume's header from a backup file or from its embedded backup header";
  }
  std::string usage() const override {
    return "restore-headers VOLUME (--from FILE | --from-embedded-backup) [credentials]";
  }
  std::string example() const override {
    return "warpvol restore-headers secret.hc --from secret.hdr --password-stdin < pw.txt";
  }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    visible.add_options()
        ("from", po::value<std::string>()->value_name("FILE"), "a 128 KiB header backup (backup-headers, VeraCrypt)")
        ("from-embedded-backup", "the backup header stored at the end of the volume");
    hidden.add_options()("volume", po::value<std::string>(), "volume");
  }
  void add_positionals(po::positional_options_description& pos) const override { pos.add("volume", 1); }

  RestoreOptions parse_request(Context&, const po::variables_map& vm, const std::string&) const override {
    const bool from_file = vm.count("from") > 0, embedded = vm.count("from-embedded-backup") > 0;
    if (from_file == embedded)
      throw Error(ErrorKind::Usage, "give exactly one of --from FILE and --from-embedded-backup");
    if (vm.count("backup-header"))
      throw Error(ErrorKind::Usage, "--backup-header does not apply here (use --from-embedded-backup)");
    if (vm.count("system")) throw Error(ErrorKind::Usage, "system-encryption headers are not restored by warpvol");
    RestoreOptions o;
    if (from_file) {
      o.from_file = vm["from"].as<std::string>();
      if (o.from_file.empty()) throw Error(ErrorKind::Usage, "--from needs a file name");
      open_file(o.from_file, OpenMode::ReadOnly).reset();  // exists and is readable: before the prompt
    }
    return o;
  }

  int execute_with_volume(Context& ctx, const po::variables_map& vm, const std::string& path,
                          std::unique_ptr<BlockFile> file, RestoreOptions& o) const override {
    file.reset();
    o.open = open_options_from(vm, path, ctx);
    RestoreResult r = restore_headers(path, o);
    ctx.out << "Restored the " << slot_kind_name(r.header.slot) << " volume's header of " << path << " from "
            << (!o.from_file.empty() ? o.from_file : std::string("the embedded backup header")) << "\n"
            << "Headers:        primary and embedded backup rewritten with fresh salts (" << r.header.kdf.describe()
            << ")\n";
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_restore_headers_command() { return std::make_unique<RestoreHeadersCommand>(); }

}  // namespace warpvol::cli
