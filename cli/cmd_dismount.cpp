// warpvol dismount (VOLUME | MOUNTPOINT | --slot N | --all) [--force]: unmount the filesystem, detach the loop
// device, stop the FUSE process (it fsyncs the container first), remove the folders mount created.
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/command.h"
#include "core/mount/mounter.h"
#include "core/util/error.h"

namespace warpvol::cli {
namespace {

class DismountCommand final : public Command {
 public:
  std::string name() const override { return "dismount"; }
  std::string summary() const override {
    return "Dismount volumes: unmount, detach the loop device, flush and stop the FUSE process";
  }
  std::string usage() const override { return "dismount (VOLUME | MOUNTPOINT | --slot N | --all) [--force]"; }
  std::string example() const override { return "warpvol dismount /mnt/secret"; }
  bool has_json() const override { return true; }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    visible.add_options()
        ("slot", po::value<int>()->value_name("N"), "dismount slot N")
        ("all,a", "dismount every mounted volume")
        ("force,f", "unmount lazily when the filesystem is busy (it goes away when its last user closes it)");
    hidden.add_options()("target", po::value<std::string>(), "volume or mount point");
  }
  void add_positionals(po::positional_options_description& pos) const override { pos.add("target", 1); }

  int execute(Context& ctx, const po::variables_map& vm) const override {
    const int selectors = int(vm.count("target")) + int(vm.count("slot")) + int(vm.count("all"));
    if (selectors != 1)
      throw Error(ErrorKind::Usage, "name what to dismount: VOLUME, MOUNTPOINT, --slot N or --all (one of them)");
    const bool force = vm.count("force") > 0;
    mount::Registry reg;
    std::vector<mount::MountRecord> targets;
    if (vm.count("all")) {
      targets = reg.load_all();
      if (targets.empty()) {
        ctx.message("no volume is mounted");
        return 0;
      }
    } else if (vm.count("slot")) {
      const int slot = vm["slot"].as<int>();
      if (slot < 1 || slot > mount::kMaxSlots)
        throw Error(ErrorKind::Usage, "--slot must be between 1 and " + std::to_string(mount::kMaxSlots));
      auto r = reg.load(slot);
      if (!r) throw Error(ErrorKind::Usage, "nothing is mounted in slot " + std::to_string(slot) + " (see warpvol list)");
      targets.push_back(*r);
    } else {
      const std::string t = vm["target"].as<std::string>();
      targets = mount::find_mounts(reg, t);
      if (targets.empty()) throw Error(ErrorKind::Usage, t + " is not mounted (see warpvol list)");
    }

    std::optional<Error> first;
    nlohmann::json report = nlohmann::json::array();
    for (const auto& r : targets) {
      try {
        ctx.verbose_line("dismounting slot " + std::to_string(r.slot) + " (" + r.volume + ")");
        mount::DismountResult res = mount::dismount(reg, r, force);
        for (const auto& w : res.warnings) ctx.message((res.protection_triggered && w.rfind("hidden volume", 0) == 0 ? "WARNING: " : "") + w);
        // Scripts test this field (or `list --json` before dismounting): the exit status stays 0, since the
        // dismount itself succeeded.
        report.push_back({{"slot", r.slot},
                          {"volume", r.volume},
                          {"dismounted", true},
                          {"lazy", res.lazy},
                          {"hidden_protection_triggered", res.protection_triggered}});
        if (res.final_state)
          ctx.verbose_line("slot " + std::to_string(r.slot) + ": " + std::to_string(res.final_state->reads) +
                           " reads (" + format_bytes(res.final_state->read_bytes) + "), " +
                           std::to_string(res.final_state->writes) + " writes (" +
                           format_bytes(res.final_state->written_bytes) + "), largest request " +
                           format_bytes(res.final_state->max_request) + "; container flushed");
        ctx.verbose_line("slot " + std::to_string(r.slot) + " dismounted");
      } catch (const Error& e) {
        if (targets.size() == 1) throw;
        ctx.message("slot " + std::to_string(r.slot) + ": " + e.what());
        if (!first) first = e;
      }
    }
    if (ctx.json) ctx.out << report.dump(2) << std::endl;
    if (first) throw Error(first->kind(), "some volumes were not dismounted (see above)");
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_dismount_command() { return std::make_unique<DismountCommand>(); }

}  // namespace warpvol::cli
