// The project's JSON readers of files other processes or earlier runs wrote: the mount registry's records and
// daemon states (core/mount/runtime.h) and the engine crossover cache (core/engine/engine_factory.h). The
// credentials file has its own target.
//
// Input: u8 reader (0 mount record, 1 daemon state, 2 crossover cache; modulo 3) | JSON text
// Properties: a record or state that reads back is written and read again unchanged.
#include <string>

#include "core/engine/engine_factory.h"
#include "core/mount/runtime.h"
#include "core/util/error.h"
#include "tests/fuzz/support.h"

using namespace warpvol;
using namespace warpvol::mount;

namespace {

bool same(const MountRecord& a, const MountRecord& b) {
  return a.slot == b.slot && a.state == b.state && a.owner_pid == b.owner_pid && a.volume == b.volume &&
         a.volume_dev == b.volume_dev && a.volume_ino == b.volume_ino && a.aux_dir == b.aux_dir &&
         a.plaintext_device == b.plaintext_device && a.loop_device == b.loop_device &&
         a.mount_point == b.mount_point && a.filesystem == b.filesystem && a.mount_helper == b.mount_helper &&
         a.created_dirs == b.created_dirs && a.pid == b.pid && a.pid_start == b.pid_start &&
         a.read_only == b.read_only && a.protect_hidden == b.protect_hidden &&
         a.protected_start == b.protected_start && a.protected_end == b.protected_end &&
         a.volume_type == b.volume_type && a.format == b.format && a.chain == b.chain && a.prf == b.prf &&
         a.engine == b.engine && a.size == b.size && a.mounted_at == b.mounted_at && a.uid == b.uid;
}

bool same(const DaemonState& a, const DaemonState& b) {
  return a.protection_triggered == b.protection_triggered && a.trigger_detail == b.trigger_detail &&
         a.closed == b.closed && a.reads == b.reads && a.writes == b.writes && a.read_bytes == b.read_bytes &&
         a.written_bytes == b.written_bytes && a.max_request == b.max_request;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0: {
      MountRecord r;
      try {
        r = record_from_json(text);
      } catch (const Error&) {
        return 0;
      }
      WARPVOL_FUZZ_CHECK(r.slot >= 1 && r.slot <= kMaxSlots, "record with a slot out of range accepted");
      WARPVOL_FUZZ_CHECK(same(r, record_from_json(record_to_json(r))), "mount record changed through JSON");
      break;
    }
    case 1: {
      DaemonState s;
      try {
        s = state_from_json(text);
      } catch (const Error&) {
        return 0;
      }
      WARPVOL_FUZZ_CHECK(same(s, state_from_json(state_to_json(s))), "daemon state changed through JSON");
      break;
    }
    default: {
      const auto c = crossover_from_json(text);
      WARPVOL_FUZZ_CHECK(c.size() == all_chains().size(), "crossover table lost or gained chains");
      break;
    }
  }
  return 0;
}
