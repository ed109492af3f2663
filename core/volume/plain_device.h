// The plaintext of a volume's data area as a random-access device over its container (a BlockFile) and an engine:
// reads and writes at any byte offset. Volume (export, create's outer-volume scan, the tests) and warpvol-mountd
// (FUSE, through errno_of in core/io/file.h) both go through it.
//  - whole 512-byte data units pass through in one engine call (a 1 MiB FUSE request = one container read + one
//    engine call, no per-4 KiB work); reads of whole units decrypt in the caller's buffer;
//  - container reads can use O_DIRECT (BlockFile::read_at_direct) where the file takes it and the request is
//    aligned: under FUSE, no second page cache under the one above a loop device, and no copy out of freshly filled
//    page-cache pages;
//  - partial units are read-modify-written under a lock, so concurrent writers never lose each other's bytes;
//  - hidden-volume protection (format-spec §7.5): a write whose host range intersects the protected range is refused
//    with EIO and from then on every write fails (VeraCrypt's HiddenVolumeProtectionTriggered);
//  - units outside the encrypted extent are plaintext on disk (a system encryption that did not finish) and are
//    not decrypted.
// Errors are IoError with the errno FUSE answers: EINVAL (read past the end), EROFS (read-only), ENOSPC (write past
// the end), EIO (protection), or the container's own.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "core/engine/xts_engine.h"
#include "core/io/file.h"

namespace warpvol {

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
  // The part of the data area [encrypted_begin, encrypted_end) (data-area offsets) that holds ciphertext.
  uint64_t encrypted_begin = 0, encrypted_end = UINT64_MAX;
};

struct DeviceOptions {
  bool read_only = false;
  HiddenProtection protection;
  bool direct_reads = false;  // aligned container reads with O_DIRECT where the file takes it (FUSE: see above)
  // One container write at a time. A container file's buffered writes are serialised by the kernel anyway (the
  // inode lock), and its waiters spin on that lock while the holder copies a whole request; queued here instead,
  // they sleep and the other threads encrypt meanwhile. Block devices take no such lock: leave their writes
  // parallel.
  bool serialize_writes = false;
};

class PlainDevice {
 public:
  // `file` must outlive the device.
  PlainDevice(BlockFile& file, DataLayout layout, std::shared_ptr<XtsEngine> engine,
              std::shared_ptr<const EngineKey> key, DeviceOptions opt = {});
  PlainDevice(const PlainDevice&) = delete;
  PlainDevice& operator=(const PlainDevice&) = delete;

  uint64_t size() const { return layout_.data_size; }
  bool read_only() const { return opt_.read_only; }
  bool protection_triggered() const { return triggered_.load(std::memory_order_acquire); }
  const HiddenProtection& protection() const { return opt_.protection; }
  uint64_t direct_reads() const { return direct_reads_.load(std::memory_order_relaxed); }  // container reads with O_DIRECT
  // Called once, from the writing thread, when protection triggers (with a description of the refused write).
  void on_trigger(std::function<void(const std::string&)> f) { on_trigger_ = std::move(f); }

  // Reads [off, off+len) of the plaintext into buf; off+len must be <= size().
  void read(uint64_t off, uint8_t* buf, size_t len);
  // Writes buf to [off, off+len).
  void write(uint64_t off, const uint8_t* buf, size_t len);
  // Like write(), but buf may be used as scratch space (encrypted in place) when the request is unit-aligned:
  // saves a copy of every request. buf's content is unspecified afterwards.
  void write_scratch(uint64_t off, uint8_t* buf, size_t len);
  // fdatasync of the container.
  void sync() { file_.sync_data(); }

 private:
  void check_write(uint64_t off, size_t len);
  void read_container(uint64_t file_off, uint8_t* buf, size_t len);
  void decrypt(uint64_t unit, uint8_t* data, size_t nunits);
  void write_units(uint64_t unit, uint8_t* data, size_t nunits);  // encrypts data in place, then writes

  BlockFile& file_;
  DataLayout layout_;
  std::shared_ptr<XtsEngine> engine_;
  std::shared_ptr<const EngineKey> key_;
  DeviceOptions opt_;
  std::atomic<bool> triggered_{false};
  std::atomic<uint64_t> direct_reads_{0};
  std::function<void(const std::string&)> on_trigger_;
  // Unit-aligned writes share it; read-modify-writes of partial units take it exclusively.
  std::shared_mutex rmw_;
  std::mutex write_mu_;  // serialize_writes
};

}  // namespace warpvol
