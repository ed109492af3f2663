// The target of a create-type command (create, import, backup-headers, keyfile create): what is checked before
// anything is written. The file itself is then written through AtomicFile (core/io/atomic_file.h), so a failure,
// an interrupt or a power cut never leaves a partial target behind.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/io/atomic_file.h"

namespace warpvol {

// What create-type commands check before writing anything (one clear message each).
struct TargetCheck {
  bool exists = false;
  bool is_block_device = false;
  uint64_t device_size = 0;  // block devices
  std::string folder;        // the folder the file goes to
  std::optional<uint64_t> free_bytes;  // that folder's (available_bytes: none where the file system reports no size)
};
// Throws Error(Usage) for an empty path or a directory, Error(Busy) for an existing file without `force`,
// Error(Io) for a missing or unwritable folder. Block devices are accepted only with `force` (their content is
// destroyed); other special files are refused.
TargetCheck check_target(const std::string& path, bool force);

}  // namespace warpvol
