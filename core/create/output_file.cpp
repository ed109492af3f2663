#include "core/create/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include "core/io/container_lock.h"
#include "core/io/fd_io.h"
#include "core/io/free_space.h"
#include "core/util/error.h"

namespace warpvol {

TargetCheck check_target(const std::string& path, bool force) {
  if (path.empty()) throw Error(ErrorKind::Usage, "empty file name");
  TargetCheck t;
  t.folder = folder_of(path);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    t.exists = true;
    if (S_ISDIR(st.st_mode)) throw Error(ErrorKind::Usage, path + ": is a folder (give a file name)");
    if (S_ISBLK(st.st_mode)) {
      if (!force)
        throw Error(ErrorKind::Busy, path + ": is a block device; its content would be destroyed (use --force)");
      refuse_container_in_use(path);
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) throw_errno(path);
      uint64_t sz = 0;
      int r = ::ioctl(fd, BLKGETSIZE64, &sz);
      int e = errno;
      ::close(fd);
      if (r != 0) throw_errno(path + ": BLKGETSIZE64", e);
      t.is_block_device = true;
      t.device_size = sz;
      if (::access(path.c_str(), W_OK) != 0) throw_errno(path + ": not writable");
      return t;
    }
    if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::Usage, path + ": not a regular file or block device");
    if (!force) throw Error(ErrorKind::Busy, path + ": file exists (use --force to overwrite)");
    // Replacing a mounted container would send the mount's writes to the unlinked old file.
    refuse_container_in_use(path);
  } else if (errno != ENOENT) {
    throw_errno(path);
  }
  struct stat dst;
  if (::stat(t.folder.c_str(), &dst) != 0) throw_errno("folder " + t.folder);
  if (!S_ISDIR(dst.st_mode)) throw Error(ErrorKind::Io, t.folder + ": not a folder");
  if (::access(t.folder.c_str(), W_OK | X_OK) != 0) throw_errno("folder " + t.folder + " is not writable");
  struct statvfs vfs;
  if (::statvfs(t.folder.c_str(), &vfs) != 0) throw_errno("statvfs " + t.folder);
  t.free_bytes = available_bytes(vfs);
  return t;
}

}  // namespace warpvol
