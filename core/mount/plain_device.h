// The plaintext device that the FUSE process serves: random-access reads and writes at any byte offset of a
// volume's data area, straight on the container's file descriptor and an engine, with
//  - whole 512-byte data units passed through in one engine call (a 1 MiB FUSE request = one pread + one engine
//    call + one reply, no per-4 KiB work), in per-thread buffers (no allocation per request);
//  - reads of the container with O_DIRECT where the file system or device takes it and the request is aligned for
//    it, straight into the FUSE thread's buffer: no second page cache under the one above the loop device, and no
//    copy out of freshly filled page-cache pages (see pread_full);
//  - partial units read-modify-written under a lock, so concurrent writers never lose each other's bytes;
//  - hidden-volume protection (docs/format-spec.md §7.5): a write whose host range intersects the protected range is
//    refused with EIO and from then on every write fails (VeraCrypt's HiddenVolumeProtectionTriggered);
//  - read-only: writes fail with EROFS.
// Errors are returned as negative errno values (FUSE replies with them), never thrown.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "core/engine/xts_engine.h"

namespace warpvol::mount {

// The host byte range [start, end) of a hidden volume that the outer volume must not write.
class HiddenProtection {
 public:
  HiddenProtection() = default;
  HiddenProtection(uint64_t start, uint64_t end) : enabled_(true), start_(start), end_(end) {}
  bool enabled() const { return enabled_; }
  uint64_t start() const { return start_; }
  uint64_t end() const { return end_; }
  bool intersects(uint64_t host_off, uint64_t len) const {
    return enabled_ && len && host_off < end_ && host_off + len > start_;
  }

 private:
  bool enabled_ = false;
  uint64_t start_ = 0, end_ = 0;
};

struct DataLayout {
  uint64_t data_offset = 0;  // byte offset of the data area in the container
  uint64_t data_size = 0;    // plaintext bytes
  uint64_t first_unit = 0;   // data-unit number of the byte at data_offset
};

class PlainDevice {
 public:
  // fd: the container, opened O_RDWR unless read_only; not owned (the caller closes it after the device).
  PlainDevice(int fd, bool read_only, DataLayout layout, std::shared_ptr<XtsEngine> engine,
              std::shared_ptr<const EngineKey> key, HiddenProtection protection);
  ~PlainDevice();
  PlainDevice(const PlainDevice&) = delete;
  PlainDevice& operator=(const PlainDevice&) = delete;

  uint64_t size() const { return layout_.data_size; }
  bool read_only() const { return read_only_; }
  bool protection_triggered() const { return triggered_.load(std::memory_order_acquire); }
  const HiddenProtection& protection() const { return protection_; }
  // Whether the container took O_DIRECT, and how many container reads went that way (mountd logs it at close).
  bool reads_direct() const { return direct_fd_ >= 0; }  // opened; direct_ok_ may have turned off since
  uint64_t direct_reads() const { return direct_reads_.load(std::memory_order_relaxed); }
  // Called once, from the writing thread, when protection triggers (with a description of the refused write).
  void on_trigger(std::function<void(const std::string&)> f) { on_trigger_ = std::move(f); }

  // Reads [off, off+len) of the plaintext into buf; off+len must be <= size(). 0 or -errno.
  int read(uint64_t off, uint8_t* buf, size_t len);
  // Writes buf to [off, off+len). 0 or -errno (-EROFS read-only, -EIO protection, -ENOSPC past the end).
  int write(uint64_t off, const uint8_t* buf, size_t len);
  // Like write(), but buf may be used as scratch space (encrypted in place) when the request is unit-aligned:
  // saves a copy of every request. buf's content is unspecified afterwards.
  int write_scratch(uint64_t off, uint8_t* buf, size_t len);
  // fdatasync of the container. 0 or -errno.
  int sync();

 private:
  int check_write(uint64_t off, size_t len);
  int pread_full(uint8_t* buf, size_t len, uint64_t file_off);
  int pwrite_full(const uint8_t* buf, size_t len, uint64_t file_off);
  int write_units(uint64_t unit, uint8_t* data, size_t nunits);  // encrypts data in place, then writes

  int fd_;
  int direct_fd_ = -1;  // the same file opened O_RDONLY | O_DIRECT, or -1 where that is refused
  std::atomic<bool> direct_ok_{false};  // direct_fd_ is open and no aligned read was refused with EINVAL
  std::atomic<uint64_t> direct_reads_{0};
  bool read_only_;
  DataLayout layout_;
  std::shared_ptr<XtsEngine> engine_;
  std::shared_ptr<const EngineKey> key_;
  HiddenProtection protection_;
  std::atomic<bool> triggered_{false};
  std::function<void(const std::string&)> on_trigger_;
  // Unit-aligned writes share it; read-modify-writes of partial units take it exclusively.
  std::shared_mutex rmw_;
  bool serialize_writes_ = false;  // the container is a regular file: one pwrite at a time (see write_units)
  std::mutex pwrite_mu_;
};

}  // namespace warpvol::mount
