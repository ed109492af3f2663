// Loop devices over the plaintext file: LOOP_CTL_GET_FREE, then LOOP_CONFIGURE (LOOP_SET_FD + LOOP_SET_STATUS64 on
// kernels before 5.8), always with LO_FLAGS_AUTOCLEAR: the kernel detaches the device when its last user closes
// it, so a crash between attach and mount leaks nothing. The attaching file descriptor must therefore stay open
// until the filesystem is mounted (LoopDevice owns it).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace warpvol::mount {

class LoopDevice {
 public:
  // Attaches a free loop device to `backing`. block_size: the logical block size (the volume's sector size).
  // direct_io: LO_FLAGS_DIRECT_IO (the loop driver then bypasses the page cache of the backing file).
  static LoopDevice attach(const std::string& backing, bool read_only, uint32_t block_size, bool direct_io);

  LoopDevice(LoopDevice&& o) noexcept : path_(std::move(o.path_)), fd_(o.fd_) { o.fd_ = -1; }
  LoopDevice(const LoopDevice&) = delete;
  LoopDevice& operator=(const LoopDevice&) = delete;
  ~LoopDevice();  // closes the descriptor: with nothing mounted, the device detaches (autoclear)

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  // Closes our descriptor now (after mount(2) took its own reference).
  void release();

 private:
  LoopDevice(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
};

// The file a loop device is attached to ("" when it is free or does not exist), from sysfs.
std::string loop_backing_file(const std::string& device);
// LOOP_CLR_FD. Returns false (without throwing) when the device is busy: the kernel then detaches it on last close
// (autoclear). Throws Error(Io) on other failures.
bool detach_loop(const std::string& device);

}  // namespace warpvol::mount
