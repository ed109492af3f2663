// Whether writing to an output path would overwrite the container being read: the same file, or a block device
// that IS the container (a loop device backed by it, or one of that loop device's partitions).
#pragma once
#include <sys/stat.h>

#include <string>

namespace warpvol {

// target_st: stat() of the output path `target`; container_st: stat() of the container. For a block device, asks
// the loop driver (LOOP_GET_STATUS64: the backing file's device and inode), and for a partition of a loop device
// reads /sys/dev/block/MAJ:MIN/../loop/backing_file.
bool output_is_container(const std::string& target, const struct stat& target_st, const struct stat& container_st);

}  // namespace warpvol
