// Mount registry: what `mount` left running, for `list` and `dismount`. One JSON file per slot in the runtime
// folder (WARPVOL_RUNTIME_DIR, else /run/warpvol for root, else $XDG_RUNTIME_DIR/warpvol, else
// /tmp/warpvol-<uid>), written atomically (core/io/atomic_file.h) under an flock on `<dir>/.lock`.
//   slotN.json   the mount record (written by `mount`)
//   slotN.state  what the FUSE process reports: hidden-volume protection triggered, final flush result
//   slotN.log    the FUSE process's stderr
//   aux/slotN/   the FUSE mount point; aux/slotN/volume is the plaintext device
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpvol::mount {

constexpr int kMaxSlots = 64;

std::string runtime_dir();
// Where default mount points go: WARPVOL_MEDIA_DIR, else /media/warpvol (root), else <runtime>/media.
std::string default_mount_root();

struct MountRecord {
  int slot = 0;
  std::string state = "mounting";  // "mounting" until the mount command finished, then "mounted"
  int owner_pid = 0;               // the mount command (while "mounting")
  std::string volume;              // absolute path of the container
  uint64_t volume_dev = 0, volume_ino = 0;
  std::string aux_dir;             // FUSE mount point
  std::string plaintext_device;    // aux_dir/volume
  std::string loop_device;         // "" without a loop device
  std::string mount_point;         // "" with --filesystem none
  std::string filesystem = "none"; // kernel type ("ext4", "vfat", ...) or "none"
  std::string mount_helper;        // "" (kernel mount), the FUSE helper program (fusefat, ntfs-3g, ...) or udisks2
  std::vector<std::string> created_dirs;  // removed by dismount, deepest first
  int pid = 0;                     // FUSE process
  uint64_t pid_start = 0;          // its start time (/proc/PID/stat field 22), against pid reuse
  bool read_only = false;
  bool protect_hidden = false;
  uint64_t protected_start = 0, protected_end = 0;  // host byte range
  std::string volume_type;         // "normal", "hidden", ...
  std::string format;              // "VeraCrypt" / "TrueCrypt"
  std::string chain, prf;
  std::string engine;
  uint64_t size = 0;               // plaintext bytes
  int64_t mounted_at = 0;          // unix time
  uid_t uid = 0;
  // The opened header as `warpvol info --json` describes it (JSON text), so Properties of a mounted volume need not
  // ask for the password again. "" in records written before it existed.
  std::string header_info;
};

// Written by the FUSE process.
struct DaemonState {
  bool protection_triggered = false;
  std::string trigger_detail;  // which write triggered it
  std::string closed;          // "" while running, "ok" after the final fsync, "error: ..." otherwise
  uint64_t reads = 0, writes = 0, read_bytes = 0, written_bytes = 0, max_request = 0;
};

std::string record_to_json(const MountRecord& r);
MountRecord record_from_json(const std::string& text);  // Error(Format) when malformed
std::string state_to_json(const DaemonState& s);
DaemonState state_from_json(const std::string& text);

// Empty optional when the file does not exist.
std::optional<std::string> read_small_file(const std::string& path);

class Registry {
 public:
  explicit Registry(std::string dir = runtime_dir());
  const std::string& dir() const { return dir_; }
  // Creates the folder (0700 when it is ours) and aux/.
  void ensure() const;

  // Exclusive lock on the registry for its lifetime (flock).
  class Lock {
   public:
    explicit Lock(int fd) : fd_(fd) {}
    Lock(Lock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    ~Lock();

   private:
    int fd_;
  };
  Lock lock() const;

  std::vector<MountRecord> load_all() const;  // by slot; unreadable records are skipped
  std::optional<MountRecord> load(int slot) const;
  void save(const MountRecord& r) const;
  // Removes the record, the state and the log of a slot.
  void remove(int slot) const;
  // Under lock(): the wanted slot if free (Busy error if taken), else the lowest free one; writes a
  // "mounting" placeholder so concurrent mounts do not pick it.
  int reserve(int wanted, MountRecord placeholder) const;

  std::string record_path(int slot) const;
  std::string state_path(int slot) const;
  std::string log_path(int slot) const;
  std::string aux_dir(int slot) const;

 private:
  std::string dir_;
};

DaemonState read_daemon_state(const std::string& path);  // defaults when missing or unreadable
void write_daemon_state(const std::string& path, const DaemonState& s);

// Start time of a process in clock ticks since boot (/proc/PID/stat field 22); 0 when there is no such process.
uint64_t process_start_time(int pid);
// The process exists, is not a zombie, and (when start != 0) started at `start`.
bool process_alive(int pid, uint64_t start);

}  // namespace warpvol::mount
