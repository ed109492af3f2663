// warpvol backup-headers VOLUME FILE [credentials] [--hidden-password-stdin|--hidden-password-fd N ...]
// Writes VeraCrypt's 128 KiB external header backup (docs/format-spec.md §2.7): the normal volume's header in the first
// 64 KiB, the hidden volume's (when its credentials are given too) or random data in the second, each header
// re-encrypted with a fresh salt. Like VeraCrypt, give the hidden volume's credentials as well when the volume
// has one, or its header is not in the backup. Both passwords on stdin: first line outer, second hidden.
#include <ostream>

#include "cli/command.h"
#include "cli/credentials.h"
#include "cli/new_credentials.h"
#include "core/create/change.h"
#include "core/create/output_file.h"
#include "core/util/error.h"

namespace warpvol::cli {
namespace {

class BackupHeadersCommand final : public VolumeCommand<NoRequest> {
 public:
  std::string name() const override { return "backup-headers"; }
  std::string summary() const override {
    return "Save the volume's headers to a 128 KiB VeraCrypt-compatible backup file (fresh salts)";
  }
  std::string usage() const override {
    return "backup-headers VOLUME FILE [credentials] [--hidden-password-stdin | --hidden-password-fd N] "
           "[--hidden-keyfile K]... [--hidden-pim N] [--force]";
  }
  std::string example() const override {
    return "warpvol backup-headers secret.hc secret.hdr --password-stdin < pw.txt";
  }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    visible.add_options()("force,f", "replace FILE if it exists");
    add_password_source_options(visible, "hidden-", "(optional) the hidden volume's", true);
    hidden.add_options()("volume", po::value<std::string>(), "volume")("file", po::value<std::string>(), "file");
  }
  void add_positionals(po::positional_options_description& pos) const override { pos.add("volume", 1).add("file", 1); }

  std::vector<std::string> required_positionals() const override { return {"volume", "file"}; }

  int execute_with_volume(Context& ctx, const po::variables_map& vm, const std::string& path,
                          std::unique_ptr<BlockFile> file, NoRequest&) const override {
    file.reset();
    const std::string out = vm["file"].as<std::string>();
    BackupOptions o;
    o.force = vm.count("force") > 0;
    check_target(out, o.force);  // before any prompt
    o.open = open_options_from(vm, path, ctx);
    if (any_option_with_prefix(vm, "hidden-")) {
      OpenOptions ho;
      ho.credentials = credentials_from_options(vm, "hidden-", ctx, "Enter the HIDDEN volume's password", false,
                                                vm.count("non-interactive") > 0);
      ho.notice = o.open.notice;
      o.hidden = std::move(ho);
    }
    BackupResult r = backup_headers(path, out, o);
    ctx.out << "Backed up the " << slot_kind_name(r.first_slot) << " volume's header of " << path << " to " << out
            << "\n";
    if (r.first_slot == SlotKind::Normal && !r.hidden_backed_up)
      ctx.out << "Hidden slot:    random data (give --hidden-password-* too if the volume contains a hidden volume)\n";
    else if (r.hidden_backed_up)
      ctx.out << "Hidden slot:    the hidden volume's header\n";
    else
      ctx.out << "Normal slot:    random data (the credentials opened the hidden volume)\n";
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_backup_headers_command() { return std::make_unique<BackupHeadersCommand>(); }

}  // namespace warpvol::cli
