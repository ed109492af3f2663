// A mounted volume's I/O counter for the inactivity rule of auto-dismount. Every read and write of the mounted
// filesystem reaches the plaintext device served by the slot's FUSE process (warpvol-mountd), which reads the
// request from /dev/fuse and reads or writes the container: its rchar + wchar in /proc/PID/io move with every
// request and stand still while the volume is idle. No change to the FUSE process is needed, and reading the
// counter costs one small procfs read per slot and sample.
#pragma once
#include <QString>
#include <optional>

namespace warpvol::gui {

// rchar + wchar of /proc/<pid>/io; nullopt when the process is gone or its io file cannot be read.
std::optional<quint64> process_io_counter(int pid, const QString& proc_root = "/proc");
// The counter of a mounted slot (from its registry record's FUSE pid).
std::optional<quint64> mount_activity(int slot);

}  // namespace warpvol::gui
