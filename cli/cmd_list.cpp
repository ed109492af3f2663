// warpvol list [--json]: the mounted volumes (the registry of core/mount/runtime.h), with the state of each FUSE
// process and of hidden-volume protection.
#include <ctime>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/command.h"
#include "cli/mount_json.h"
#include "core/mount/mounter.h"
#include "core/util/error.h"

namespace warpvol::cli {
namespace {

std::string protection_text(const mount::MountStatus& s) {
  if (!s.record.protect_hidden) return "off";
  if (s.daemon.protection_triggered)
    return "TRIGGERED: a write into the hidden volume was refused (damage to the hidden volume prevented); all "
           "writes fail" + (s.daemon.trigger_detail.empty() ? std::string() : " (" + s.daemon.trigger_detail + ")");
  return "on (not triggered)";
}

std::string read_only_text(const mount::MountStatus& s) {
  if (s.record.read_only) return "yes";
  if (s.filesystem_read_only)
    return "yes: the filesystem is mounted read-only" +
           (s.record.mount_helper == "fusefat" ? std::string(" (fusefat writes only with --fs-options rw+)")
                                              : std::string(" (the volume itself is writable)"));
  return "no";
}

std::string time_text(int64_t t) {
  if (t <= 0) return "-";
  char buf[32];
  time_t tt = time_t(t);
  struct tm tm;
  localtime_r(&tt, &tm);
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

class ListCommand final : public Command {
 public:
  std::string name() const override { return "list"; }
  std::string summary() const override {
    return "List mounted volumes: slot, container, plaintext and loop device, mount point, encryption, state";
  }
  std::string usage() const override { return "list [--json]"; }
  std::string example() const override { return "warpvol list --json"; }
  bool has_json() const override { return true; }

  int execute(Context& ctx, const po::variables_map&) const override {
    mount::Registry reg;
    const auto all = mount::list_mounts(reg);
    for (const auto& s : all)
      if (s.record.protect_hidden && s.daemon.protection_triggered)
        ctx.message("WARNING: hidden volume protection was triggered on slot " + std::to_string(s.record.slot) + " (" +
                    s.record.volume + "): writes to it are refused; dismount it");
    if (ctx.json) {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& s : all) a.push_back(mount_status_json(s));
      ctx.out << a.dump(2) << std::endl;
      return 0;
    }
    if (all.empty()) {
      ctx.message("no volume is mounted");
      return 0;
    }
    for (const auto& s : all) {
      const auto& r = s.record;
      ctx.out << "Slot " << r.slot << ": " << r.volume << "\n"
              << "  status:            " << s.status() << "\n"
              << "  plaintext device:  " << (r.plaintext_device.empty() ? "-" : r.plaintext_device) << "\n"
              << "  loop device:       " << (r.loop_device.empty() ? "-" : r.loop_device) << "\n"
              << "  mount point:       " << (r.mount_point.empty() ? "-" : r.mount_point)
              << (r.mount_point.empty() ? "" : " (" + r.filesystem + (r.mount_helper.empty() ? "" : " via " + r.mount_helper) + ")")
              << "\n"
              << "  volume:            " << r.format << " " << r.volume_type << ", " << format_bytes(r.size) << "\n"
              << "  encryption:        " << r.chain << ", " << r.prf << "\n"
              << "  read-only:         " << read_only_text(s) << "\n"
              << "  hidden protection: " << protection_text(s) << "\n"
              << "  engine:            " << (r.engine.empty() ? "-" : r.engine) << "\n"
              << "  FUSE process:      " << (r.pid ? std::to_string(r.pid) : "-")
              << (r.pid ? (s.fuse_alive ? " (running)" : " (DEAD)") : "") << "\n"
              << "  mounted at:        " << time_text(r.mounted_at) << "\n";
    }
    ctx.out.flush();
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_list_command() { return std::make_unique<ListCommand>(); }

}  // namespace warpvol::cli
