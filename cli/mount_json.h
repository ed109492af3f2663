// The JSON form of a mounted volume: `mount --json` prints the record, `list --json` the same object with the live
// state added (FUSE process, filesystem, hidden-volume protection). One encoder, so the two cannot drift apart.
#pragma once
#include <nlohmann/json.hpp>

#include "core/mount/mounter.h"

namespace warpvol::cli {

nlohmann::json mount_record_json(const mount::MountRecord& r);

// mount_record_json plus the state; "read_only" then says whether writes work at all (the volume or its
// filesystem mounted read-only), "volume_read_only" what the record says.
nlohmann::json mount_status_json(const mount::MountStatus& s);

}  // namespace warpvol::cli
