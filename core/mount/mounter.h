// Mounting, listing and dismounting volumes (the logic under `warpvol mount | list | dismount` and
// `create --filesystem`). A mount is: the FUSE process warpvol-mountd serving the plaintext as <aux>/volume, then
// (unless the filesystem is "none") a loop device on that file and mount(2) of the filesystem, or a FUSE helper
// (fusefat, ntfs-3g) on the file when the kernel lacks the driver. State lives in the registry (runtime.h).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/engine_factory.h"
#include "core/format/open.h"
#include "core/mount/filesystem.h"
#include "core/mount/runtime.h"

namespace warpvol::mount {

using Notify = std::function<void(const std::string&)>;

struct MountRequest {
  std::string volume;             // container path as given
  std::string mount_point;        // "" = <default_mount_root()>/slotN
  bool read_only = false;
  std::string filesystem = "auto";  // none | auto | a type (ext4, fat, exfat, ntfs, btrfs, xfs, ...)
  std::string fs_options;         // comma-separated mount options
  int slot = 0;                   // 0 = the lowest free slot
  EngineChoice engine = EngineChoice::Auto;
  bool direct_io = true;          // FUSE direct I/O on the plaintext file (no double page cache)
  bool loop_direct_io = true;     // LO_FLAGS_DIRECT_IO on the loop device
  bool protect_hidden = false;
  uint64_t protect_start = 0, protect_end = 0;  // host byte range of the hidden volume
  // A normal user's mount whose loop device someone else (udisks2, as root) attaches: FUSE allow_other.
  bool allow_root_access = false;
  std::string header_info;        // the header as `info --json` describes it; kept in the record (Properties)
  Notify verbose;                 // --verbose lines
  Notify notice;                  // things the user should know (read-only fallback, ...)
};

// The caller opened the container (O_RDWR, or O_RDONLY when read_only) and its header (from that descriptor).
// Checks privileges, the filesystem and the mount point before anything starts; on any failure everything that
// was started is undone. Returns the saved record.
MountRecord mount_volume(const MountRequest& req, int container_fd, const OpenedHeader& h);

struct MountStatus {
  MountRecord record;
  bool fuse_alive = false;        // the FUSE process is running
  bool mount_point_mounted = false;
  // The mounted filesystem is read-only (mountinfo), whatever was asked: e.g. fusefat without rw+.
  bool filesystem_read_only = false;
  bool read_only() const { return record.read_only || filesystem_read_only; }
  DaemonState daemon;
  std::string status() const;     // "mounted", "mounting", "FUSE process dead", "detached (closing)"
};
std::vector<MountStatus> list_mounts(const Registry& reg);

// Records whose container, mount point, plaintext device, aux folder or loop device is `target`.
std::vector<MountRecord> find_mounts(const Registry& reg, const std::string& target);

struct DismountResult {
  std::vector<std::string> warnings;
  bool lazy = false;  // --force detached something still in use: it closes when its last user goes
  std::optional<DaemonState> final_state;  // what the FUSE process reported when it closed (request counters)
  // Hidden-volume protection refused a write while the volume was mounted (the FUSE process's state file said so);
  // a warning saying it is among `warnings` too.
  bool protection_triggered = false;
};
// Unmounts the filesystem, detaches the loop device, stops the FUSE process (which fsyncs the container and
// reports it), removes the folders it created and the record. Busy error naming the mount point when it is in
// use (force: lazy unmount). Works when the FUSE process died.
DismountResult dismount(const Registry& reg, const MountRecord& rec, bool force);

// create --filesystem: mounts the new volume with filesystem none, runs tool on the plaintext device, dismounts
// (the container is fsync()ed). check_mkfs_available() must have been called before the volume was written.
void format_filesystem(const std::string& container, const OpenedHeader& h, const MkfsTool& tool,
                       EngineChoice engine, const std::string& label, Notify verbose);

// The same, opening the header of the new volume with `opt` (the create command has its credentials; narrow
// prf/chain/slot so only one key derivation runs).
void format_filesystem(const std::string& container, const OpenOptions& opt, const MkfsTool& tool,
                       EngineChoice engine, const std::string& label, Notify verbose);
// For `create --filesystem FS`, before anything is written: the mkfs tool (check_mkfs_available), /dev/fuse and
// warpvol-mountd must be there. Returns the tool; Usage/Io errors otherwise. "none" is not a filesystem here.
MkfsTool check_filesystem_creation(const std::string& fs);

// CAP_SYS_ADMIN in the effective set (loop devices, mount(2)).
bool have_mount_privilege();
// fuse.conf (default /etc/fuse.conf) has an active `user_allow_other` line: a normal user may mount FUSE with
// allow_other, which root's loop device over the plaintext file needs (since Linux 6.x the loop driver asks FUSE for
// the file's size with getattr, refused to anyone but the mounting user without allow_other: the device would be
// 0 bytes).
bool fuse_user_allow_other(const std::string& conf = "/etc/fuse.conf");
// The FUSE program: $WARPVOL_MOUNTD, else warpvol-mountd next to this executable, ../libexec/warpvol/, PATH.
std::string mountd_path();
// The path is a mount point (per /proc/self/mountinfo).
bool is_mount_point(const std::string& path);

}  // namespace warpvol::mount
