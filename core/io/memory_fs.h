// Whether a path lies on a file system held in memory (tmpfs, ramfs): there an fsync costs nothing and every read
// or write is a copy through host memory, which changes what a job's buffers should look like.
#pragma once
#include <string>

namespace warpvol {

// True for a regular file or a folder on tmpfs or ramfs; false for anything else (a block device's node in /dev
// lies on devtmpfs, but its data does not), and where the path cannot be examined.
bool on_memory_file_system(const std::string& path);

}  // namespace warpvol
