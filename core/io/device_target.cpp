#include "core/io/device_target.h"

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace warpvol {

namespace {

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// The backing file of a loop device, for a partition of one (no LOOP_GET_STATUS64 there) (or of the loop device a partition belongs to), "" when it has none.
std::string loop_backing_file(dev_t rdev) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dev = fs::canonical("/sys/dev/block/" + std::to_string(major(rdev)) + ":" +
                                         std::to_string(minor(rdev)), ec);
  if (ec) return {};
  for (const fs::path& dir : {dev, dev.parent_path()}) {
    std::ifstream in(dir / "loop" / "backing_file");
    std::string path;
    if (in && std::getline(in, path)) return path;
  }
  return {};
}

}  // namespace

bool output_is_container(const std::string& target, const struct stat& t, const struct stat& c) {
  if (same_file(t, c)) return true;
  if (!S_ISBLK(t.st_mode)) return false;
  if (S_ISBLK(c.st_mode) && t.st_rdev == c.st_rdev) return true;
  // The loop driver knows its backing file's device and inode, whatever became of the path.
  const int fd = ::open(target.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {
    struct loop_info64 info {};
    const bool is_loop = ::ioctl(fd, LOOP_GET_STATUS64, &info) == 0;
    ::close(fd);
    if (is_loop) return dev_t(info.lo_device) == c.st_dev && ino_t(info.lo_inode) == c.st_ino;
  }
  const std::string backing = loop_backing_file(t.st_rdev);
  struct stat b;
  return !backing.empty() && ::stat(backing.c_str(), &b) == 0 && same_file(b, c);
}

}  // namespace warpvol
