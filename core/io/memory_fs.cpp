#include "core/io/memory_fs.h"

#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

namespace warpvol {

bool on_memory_file_system(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return false;
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return false;
  return fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC;
}

}  // namespace warpvol
