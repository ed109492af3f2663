#include "core/mount/loop_device.h"

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/mount/runtime.h"
#include "core/util/error.h"

namespace warpvol::mount {

namespace {

constexpr unsigned kLoopMajor = 7;

// Opens /dev/loopN, creating the node when the system has no devtmpfs/udev that made it.
int open_loop_node(int n, bool read_only, std::string& path) {
  path = "/dev/loop" + std::to_string(n);
  for (int attempt = 0; attempt < 50; ++attempt) {
    int fd = ::open(path.c_str(), (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
    if (fd >= 0) return fd;
    if (errno != ENOENT) throw_errno("cannot open " + path);
    if (::mknod(path.c_str(), S_IFBLK | 0660, makedev(kLoopMajor, unsigned(n))) == 0) continue;
    if (errno != EEXIST) throw_errno("cannot create the device node " + path);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  throw Error(ErrorKind::Io, "cannot open " + path + ": the device node did not appear");
}

}  // namespace

LoopDevice LoopDevice::attach(const std::string& backing, bool read_only, uint32_t block_size, bool direct_io) {
  int file_fd = ::open(backing.c_str(), (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
  if (file_fd < 0) throw_errno("cannot open " + backing);
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } file_closer{file_fd};

  int ctl = ::open("/dev/loop-control", O_RDWR | O_CLOEXEC);
  if (ctl < 0) {
    if (errno == EACCES || errno == EPERM)
      throw Error(ErrorKind::Usage, "cannot open /dev/loop-control: attaching a loop device needs root "
                                    "(CAP_SYS_ADMIN); use --filesystem none to get only the plaintext device");
    throw_errno("cannot open /dev/loop-control (is the loop module loaded?)");
  }
  FdCloser ctl_closer{ctl};

  for (int attempt = 0; attempt < 64; ++attempt) {
    int n = ::ioctl(ctl, LOOP_CTL_GET_FREE);
    if (n < 0) throw_errno("no free loop device (LOOP_CTL_GET_FREE)");
    std::string path;
    int fd = open_loop_node(n, read_only, path);

    struct loop_config cfg;
    std::memset(&cfg, 0, sizeof cfg);
    cfg.fd = uint32_t(file_fd);
    cfg.block_size = block_size;
    cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | (read_only ? LO_FLAGS_READ_ONLY : 0) | (direct_io ? LO_FLAGS_DIRECT_IO : 0);
    std::strncpy(reinterpret_cast<char*>(cfg.info.lo_file_name), backing.c_str(), LO_NAME_SIZE - 1);
    int rc = ::ioctl(fd, LOOP_CONFIGURE, &cfg);
    if (rc != 0 && errno == EINVAL && direct_io) {
      // The backing file refused direct I/O: buffered is still correct.
      cfg.info.lo_flags &= ~uint32_t(LO_FLAGS_DIRECT_IO);
      rc = ::ioctl(fd, LOOP_CONFIGURE, &cfg);
    }
    if (rc == 0) return LoopDevice(path, fd);
    const int e = errno;
    if (e == EBUSY) {  // someone else took it between GET_FREE and CONFIGURE
      ::close(fd);
      continue;
    }
    if (e != ENOTTY && e != EINVAL) {
      ::close(fd);
      throw_errno("cannot attach " + path + " to " + backing, e);
    }
    // Kernel before 5.8: LOOP_SET_FD, then the flags and block size.
    if (::ioctl(fd, LOOP_SET_FD, file_fd) != 0) {
      const int e2 = errno;
      ::close(fd);
      if (e2 == EBUSY) continue;
      throw_errno("cannot attach " + path + " to " + backing, e2);
    }
    struct loop_info64 info;
    std::memset(&info, 0, sizeof info);
    info.lo_flags = LO_FLAGS_AUTOCLEAR;
    std::strncpy(reinterpret_cast<char*>(info.lo_file_name), backing.c_str(), LO_NAME_SIZE - 1);
    if (::ioctl(fd, LOOP_SET_STATUS64, &info) != 0) {
      const int e2 = errno;
      ::ioctl(fd, LOOP_CLR_FD, 0);
      ::close(fd);
      throw_errno("cannot configure " + path, e2);
    }
    if (block_size > 512) (void)::ioctl(fd, LOOP_SET_BLOCK_SIZE, (unsigned long)block_size);
    if (direct_io) (void)::ioctl(fd, LOOP_SET_DIRECT_IO, 1UL);
    return LoopDevice(path, fd);
  }
  throw Error(ErrorKind::Busy, "cannot get a free loop device (all busy)");
}

LoopDevice::~LoopDevice() { release(); }

void LoopDevice::release() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

std::string loop_backing_file(const std::string& device) {
  const std::string name = std::filesystem::path(device).filename().string();
  try {
    auto t = read_small_file("/sys/block/" + name + "/loop/backing_file");
    if (!t) return "";
    std::string s = *t;
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  } catch (const Error&) {
    return "";
  }
}

bool detach_loop(const std::string& device) {
  int fd = ::open(device.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENXIO) return true;
    throw_errno("cannot open " + device);
  }
  int rc = ::ioctl(fd, LOOP_CLR_FD, 0);
  const int e = errno;
  ::close(fd);
  if (rc == 0 || e == ENXIO) return true;
  if (e == EBUSY) return false;
  throw_errno("cannot detach " + device, e);
}

}  // namespace warpvol::mount
