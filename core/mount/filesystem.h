// Filesystems on a mounted volume: detection (superblock magics), the kernel's or a FUSE helper's driver, mount
// option strings, and the system mkfs tools that `create --filesystem` runs on the plaintext device.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace warpvol::mount {

// Names users give (--filesystem) -> the kernel's type name: fat/vfat -> vfat, ext2/3/4 -> the same, exfat, ntfs
// (kernel ntfs3), btrfs, xfs. Unknown names are passed through unchanged (the kernel decides).
std::string kernel_fs_type(const std::string& user_name);

// Reads the start of `path` and names the filesystem found ("ext4", "vfat", "exfat", "ntfs", "btrfs", "xfs"), or
// "" when none is recognised. ext2/3/4 all report "ext4" (the ext4 driver mounts all of them).
std::string probe_filesystem(const std::string& path);
std::string probe_filesystem_bytes(const unsigned char* data, size_t len);  // len >= 65536 + 4096 for btrfs

// The kernel lists the type in /proc/filesystems.
bool kernel_has_filesystem(const std::string& type);

// A FUSE program that mounts the type when the kernel cannot (fusefat for vfat, ntfs-3g for ntfs, exfat-fuse for
// exfat): its path, or empty when none is installed.
struct FsHelper {
  std::string program;                 // full path
  std::vector<std::string> argv(const std::string& device, const std::string& mount_point, bool read_only,
                                const std::string& options) const;
  std::string name;                    // "fusefat"
};
std::optional<FsHelper> fuse_helper_for(const std::string& type);

// --fs-options: comma-separated; the generic flags (ro, rw, nosuid, nodev, noexec, noatime, nodiratime,
// relatime, strictatime, sync, dirsync, lazytime) become mount(2) flags, the rest is the data string.
struct MountFlags {
  unsigned long flags = 0;
  std::string data;
  bool read_only = false;
};
MountFlags parse_fs_options(const std::string& options, bool read_only);

// PATH lookup (plus /usr/sbin and /sbin, where mkfs tools live). Empty when not found.
std::string find_program(const std::string& name);

// Runs argv[0] (a full path) with the given arguments, stdin from /dev/null, stdout and stderr captured into
// *output (when given). Returns the exit status (128+signal when killed). Throws Error(Io) when it cannot start.
int run_program(const std::vector<std::string>& argv, std::string* output);

// mkfs for `create --filesystem`: fat, exfat, ext2, ext3, ext4, ntfs, btrfs, xfs.
struct MkfsTool {
  std::string fs;       // as the user wrote it
  std::string program;  // "mkfs.ext4"
  std::string package;  // Debian package that ships it
};
// Usage error for an unknown filesystem name, Io error naming the package when the tool is missing. Call it before
// anything is written.
MkfsTool check_mkfs_available(const std::string& fs);
// Runs the tool on `device` (a regular file or block device). Io error with the tool's output on failure.
void run_mkfs(const MkfsTool& tool, const std::string& device, const std::string& label, std::string* output);

}  // namespace warpvol::mount
