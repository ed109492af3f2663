// warpvol convert VOLUME --to veracrypt [--hash PRF] [--pim N] [credentials]
// Upgrades a TrueCrypt (6.0+) volume's header to VeraCrypt format: magic VERA, VeraCrypt iteration counts, the
// chosen PRF, same master keys, data untouched (docs/format-spec.md §8.4). For convert, --hash and --pim describe the
// NEW VeraCrypt header (the TrueCrypt header is found automatically: TrueCrypt had no PIM and few PRFs).
#include <ostream>

#include "cli/command.h"
#include "cli/credentials.h"
#include "core/create/change.h"
#include "core/util/error.h"

namespace warpvol::cli {
namespace {

class ConvertCommand final : public VolumeCommand<ConvertOptions> {
 public:
  std::string name() const override { return "convert"; }
  std::string summary() const override {
    return "Convert a TrueCrypt volume's header to VeraCrypt format (same master keys, data untouched)";
  }
  std::string usage() const override {
    return "convert VOLUME --to veracrypt [--hash PRF of the new header] [--pim N for the new header] [credentials]";
  }
  std::string example() const override {
    return "warpvol convert old.tc --to veracrypt --hash sha512 --password-stdin < pw.txt";
  }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    visible.add_options()("to", po::value<std::string>()->value_name("veracrypt"), "target format (veracrypt)");
    hidden.add_options()("volume", po::value<std::string>(), "volume");
  }
  void add_positionals(po::positional_options_description& pos) const override { pos.add("volume", 1); }

  ConvertOptions parse_request(Context&, const po::variables_map& vm, const std::string&) const override {
    if (!vm.count("to")) throw Error(ErrorKind::Usage, "--to veracrypt is required");
    if (vm["to"].as<std::string>() != "veracrypt")
      throw Error(ErrorKind::Usage, "--to: only 'veracrypt' is supported");
    if (vm.count("veracrypt")) throw Error(ErrorKind::Usage, "--veracrypt does not apply: the volume is TrueCrypt");
    if (vm.count("system")) throw Error(ErrorKind::Usage, "system encryption cannot be converted by warpvol");
    ConvertOptions o;
    if (vm.count("hash")) {
      const std::string h = vm["hash"].as<std::string>();
      auto prf = parse_prf(h);
      if (!prf) throw Error(ErrorKind::Usage, "unknown --hash '" + h + "'");
      o.new_prf = *prf;
    }
    if (vm.count("pim")) {
      o.new_pim = vm["pim"].as<int>();
      if (o.new_pim < 0 || o.new_pim > kMaxPim)
        throw Error(ErrorKind::Usage, "--pim must be between 0 and " + std::to_string(kMaxPim));
    }
    return o;
  }

  int execute_with_volume(Context& ctx, const po::variables_map& vm, const std::string& path,
                          std::unique_ptr<BlockFile> file, ConvertOptions& o) const override {
    file.reset();
    // --hash/--pim are the new header's: take them out of the opening options.
    po::variables_map vm2 = vm;
    vm2.erase("hash");
    vm2.erase("pim");
    o.open = open_options_from(vm2, path, ctx);
    ConvertResult r = convert_to_veracrypt(path, o);
    ctx.out << "Converted the " << slot_kind_name(r.old_header.slot) << " volume's header of " << path
            << " to VeraCrypt format\n"
            << "Encryption:     " << chain_info(r.old_header.chain).name << " (master keys unchanged)\n"
            << "KDF:            " << r.old_header.kdf.describe() << " (TrueCrypt) -> " << r.new_kdf.describe()
            << " (VeraCrypt)\n";
    if (r.old_header.slot == SlotKind::Normal)
      ctx.out << "Note:           if the volume contains a hidden volume, convert it too with its own password\n";
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_convert_command() { return std::make_unique<ConvertCommand>(); }

}  // namespace warpvol::cli
