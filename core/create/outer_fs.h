// Where the used space of an outer volume's filesystem ends, so a hidden volume placed at the end of the outer
// volume does not overwrite files (VeraCrypt's wizard scans the outer FAT for the same reason, docs/format-spec.md
// §8.3). Reads the outer volume's plaintext through a callback.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace warpvol {

struct OuterFsInfo {
  std::string type;              // "FAT12", "FAT16", "FAT32", "exFAT", "NTFS", "ext2/3/4", "btrfs", "none"
  bool understood = false;       // true when used_end is known (FAT, exFAT, NTFS, ext2/3/4)
  uint64_t used_end = 0;         // bytes from the start of the outer data area that are (or may be) in use
};

using PlaintextReader = std::function<void(uint64_t offset, uint8_t* buf, size_t len)>;

// data_size: size of the outer data area. "none": no known filesystem signature (not understood: it may be a
// filesystem not known here). btrfs and XFS are recognised but not understood. Error(Format) when a recognised
// filesystem's metadata is inconsistent. Reads metadata in bounded chunks: memory stays O(1 MiB) whatever the
// boot sector or superblock claims.
OuterFsInfo scan_outer_filesystem(const PlaintextReader& read, uint64_t data_size);

}  // namespace warpvol
