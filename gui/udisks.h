// Mounting as a normal desktop user through udisks2 over D-Bus: Manager.LoopSetup on the FUSE plaintext file, then
// Filesystem.Mount on the loop block device; polkit asks the user in the desktop's own way (no password box of
// ours). Errors carry udisks' own message (e.g. "Not authorized to perform operation").
#pragma once
#include <QString>

namespace warpvol::gui {

bool udisks_available();
struct UdisksMount {
  std::string loop_device;  // /dev/loopN
  std::string mount_point;  // where udisks mounted it
};
// Throws Error(Usage) with udisks' reason.
UdisksMount udisks_loop_and_mount(const std::string& plaintext_file, bool read_only);
// Unmounts and deletes the loop device set up by udisks_loop_and_mount.
void udisks_unmount_and_delete(const std::string& loop_device);

}  // namespace warpvol::gui
