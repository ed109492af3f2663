// Creating a new file atomically: the bytes go to a temporary file (mode 0600, O_EXCL) next to the target and are
// renamed into place only after everything was written and fsync()ed, so a failure, an interrupt or a power cut
// never leaves a partial TARGET behind (at worst a hidden ".NAME.warpvol-XXXXXX" after a power cut; any other
// failure removes it). Used by create, import, backup-headers and keyfile create.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "core/io/container_lock.h"
#include "core/io/file.h"

namespace warpvol {

// What create-type commands check before writing anything (one clear message each).
struct TargetCheck {
  bool exists = false;
  bool is_block_device = false;
  uint64_t device_size = 0;  // block devices
  std::string folder;        // the folder the file goes to
  uint64_t free_bytes = 0;   // statvfs f_bavail * f_frsize of that folder
};
// Throws Error(Usage) for an empty path or a directory, Error(Busy) for an existing file without `force`,
// Error(Io) for a missing or unwritable folder. Block devices are accepted only with `force` (their content is
// destroyed); other special files are refused.
TargetCheck check_target(const std::string& path, bool force);

class AtomicOutput {
 public:
  // Creates the temporary file now. `wrap` (tests) may wrap the BlockFile, e.g. in a FailFile; it is applied
  // once, when file() is first called (after reserve()).
  AtomicOutput(std::string target, bool replace,
               std::function<std::unique_ptr<BlockFile>(std::unique_ptr<BlockFile>)> wrap = {});
  ~AtomicOutput();  // removes the temporary file unless committed
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  BlockFile& file();
  const std::string& temp_path() const { return temp_; }
  // Reserves `size` bytes (fallocate; falls back to ftruncate where unsupported): a full disk or a file-size
  // limit (FAT32's 4 GiB) shows up here, in milliseconds, not after hours of writing.
  void reserve(uint64_t size);
  // fsync, rename into place (refusing to replace an existing target unless `replace`), fsync the folder.
  // With `replace`, the target's container lock (core/io/container_lock.h) is held from construction until the
  // rename: a target that is mounted, or whose mount starts meanwhile, is refused with Error(Busy) and kept.
  void commit();

 private:
  std::string target_, temp_;
  bool replace_;
  ContainerLock target_lock_;
  std::function<std::unique_ptr<BlockFile>(std::unique_ptr<BlockFile>)> wrap_;
  std::unique_ptr<BlockFile> file_;
  bool committed_ = false;
};

}  // namespace warpvol
