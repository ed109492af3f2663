// The partitions of a whole-drive image (MBR with its extended-partition chain, or GPT), in the numbering Linux
// gives them (sda1.. : MBR primaries 1-4, logical partitions from 5; GPT entries by their index + 1). Used to open a
// system-encrypted partition of a drive image the way VeraCrypt does: the partition itself is the volume, its data
// units count from its start sector within the drive (docs/format-spec.md §2.5). 512-byte logical sectors.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/io/file.h"

namespace warpvol {

struct Partition {
  int number = 0;       // 1-based, as Linux numbers it
  uint64_t offset = 0;  // bytes from the start of the drive
  uint64_t size = 0;    // bytes
  std::string type;     // "mbr 0x07", "gpt ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"
};

// Empty when the image has no MBR signature (not a whole drive). Partitions extending past the image are kept
// (an image may be cut short); callers check. Throws Error(Format) on a damaged GPT header or a looping EBR chain.
std::vector<Partition> read_partition_table(BlockFile& drive);

// The partition that holds byte `offset` of the drive, if any.
std::optional<Partition> partition_containing(const std::vector<Partition>& parts, uint64_t offset);

}  // namespace warpvol
