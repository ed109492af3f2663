#include "cli/mount_json.h"

namespace warpvol::cli {

nlohmann::json mount_record_json(const mount::MountRecord& r) {
  return nlohmann::json{{"slot", r.slot},
                        {"volume", r.volume},
                        {"plaintext_device", r.plaintext_device},
                        {"loop_device", r.loop_device},
                        {"mount_point", r.mount_point},
                        {"filesystem", r.filesystem},
                        {"mount_helper", r.mount_helper},
                        {"read_only", r.read_only},
                        {"hidden_protection", r.protect_hidden},
                        {"chain", r.chain},
                        {"prf", r.prf},
                        {"engine", r.engine},
                        {"pid", r.pid}};
}

nlohmann::json mount_status_json(const mount::MountStatus& s) {
  const auto& r = s.record;
  nlohmann::json j = mount_record_json(r);
  j["read_only"] = s.read_only();
  j["volume_read_only"] = r.read_only;
  j["volume_type"] = r.volume_type;
  j["format"] = r.format;
  j["size"] = r.size;
  j["filesystem_read_only"] = s.filesystem_read_only;
  j["hidden_protection_triggered"] = s.daemon.protection_triggered;
  j["hidden_protection_detail"] = s.daemon.trigger_detail;
  j["protected_range"] =
      r.protect_hidden ? nlohmann::json::array({r.protected_start, r.protected_end}) : nlohmann::json();
  j["fuse_alive"] = s.fuse_alive;
  j["filesystem_mounted"] = s.mount_point_mounted;
  j["status"] = s.status();
  j["mounted_at"] = r.mounted_at;
  return j;
}

}  // namespace warpvol::cli
