// What the GUI does, as plain functions over core and the mount machinery. Dialogs collect input; the main
// window runs these on a worker thread (QtConcurrent) so key derivation never blocks the UI.
#pragma once
#include <QString>
#include <optional>
#include <string>

#include "core/format/open.h"
#include "core/mount/mounter.h"
#include "core/util/progress.h"

namespace warpvol::gui {

struct MountParams {
  QString volume;
  OpenOptions open;                        // credentials (+ PRF hint)
  std::optional<Credentials> protect_hidden;  // hidden-volume protection with the hidden volume's credentials
  bool read_only = false;
  bool no_filesystem = false;              // "do not mount": plaintext device only
  QString mount_point;                     // empty: default per-slot folder
  int slot = 0;                            // 0: the lowest free slot
  QString fs_options;
  EngineChoice engine = EngineChoice::Auto;
};

// Opens the header and mounts. Throws Error (Auth for a wrong password, Usage for a missing privilege...).
mount::MountRecord mount_volume(const MountParams& p);
// Dismounts a slot (force: lazy unmount). Returns warnings.
std::vector<std::string> dismount_slot(int slot, bool force);
// Dismounts every slot; returns one line per failure (empty when all went).
std::vector<std::string> dismount_all(bool force);
// The header of a volume (Properties), as the key/value pairs `warpvol info --json` prints.
std::vector<std::pair<QString, QString>> volume_properties(const QString& volume, const OpenOptions& open);

// Properties of a mounted volume from its mount record (the header as it was opened at mount time, plus the
// mount's own facts); nullopt when the record predates that information (then the password is asked for).
std::optional<std::vector<std::pair<QString, QString>>> mounted_volume_properties(const mount::MountRecord& rec);

// Why mounting may not work for this user, in one sentence; empty when it can.
QString privilege_problem();

}  // namespace warpvol::gui
