#include "core/mount/plain_device.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "core/io/file.h"
#include "core/util/error.h"

namespace warpvol::mount {

namespace {

constexpr size_t kUnit = kDataUnitSize;
constexpr size_t kMaxStep = size_t(4) << 20;  // bytes per engine call for large unaligned/copying writes

// One growable, page-aligned buffer per thread (FUSE worker threads live long; no allocation per request).
struct Scratch {
  uint8_t* p = nullptr;
  size_t cap = 0;
  ~Scratch() { std::free(p); }
  uint8_t* get(size_t n) {
    if (n > cap) {
      std::free(p);
      p = nullptr;
      cap = 0;
      void* q = nullptr;
      const size_t want = std::max(n, size_t(1) << 20);
      if (posix_memalign(&q, 4096, want) != 0) return nullptr;
      p = static_cast<uint8_t*>(q);
      cap = want;
    }
    return p;
  }
};
thread_local Scratch t_scratch;

}  // namespace

PlainDevice::PlainDevice(int fd, bool read_only, DataLayout layout, std::shared_ptr<XtsEngine> engine,
                         std::shared_ptr<const EngineKey> key, HiddenProtection protection)
    : fd_(fd),
      read_only_(read_only),
      layout_(layout),
      engine_(std::move(engine)),
      key_(std::move(key)),
      protection_(protection) {
  struct stat st;
  serialize_writes_ = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  direct_fd_ = reopen_direct(fd, O_RDONLY);  // -1 where refused: then every read is buffered
  direct_ok_.store(direct_fd_ >= 0, std::memory_order_relaxed);
}

PlainDevice::~PlainDevice() {
  if (direct_fd_ >= 0) ::close(direct_fd_);
}

// Aligned reads (offset, length and buffer on kDirectAlign, which every device's logical block divides) go through
// the O_DIRECT descriptor; the rest through the buffered one. The first read the kernel still refuses with EINVAL
// (a device whose logical block is larger than kDirectAlign) turns direct reads off for good. Mixing
// the two is coherent: a direct read first writes back dirty pages of its range (the buffered writes of
// write_units). Why direct: buffered, a cold read through a mount spends most of its CPU time copying out of
// freshly filled page-cache pages, and reads slower than the same disk under a loop device with direct I/O
// (docs/perf/design-figures.md, "Mount").
int PlainDevice::pread_full(uint8_t* buf, size_t len, uint64_t file_off) {
  while (len) {
    const bool aligned = direct_ok_.load(std::memory_order_relaxed) && file_off % kDirectAlign == 0 &&
                         len % kDirectAlign == 0 && reinterpret_cast<uintptr_t>(buf) % kDirectAlign == 0;
    ssize_t r = aligned ? ::pread(direct_fd_, buf, len, off_t(file_off)) : -1;
    if (r > 0) direct_reads_.fetch_add(1, std::memory_order_relaxed);
    if (aligned && r < 0 && errno == EINVAL) direct_ok_.store(false, std::memory_order_relaxed);
    if (!aligned || (r < 0 && errno == EINVAL)) r = ::pread(fd_, buf, len, off_t(file_off));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (r == 0) return -EIO;  // the container is shorter than its header says
    buf += r;
    file_off += uint64_t(r);
    len -= size_t(r);
  }
  return 0;
}

int PlainDevice::pwrite_full(const uint8_t* buf, size_t len, uint64_t file_off) {
  while (len) {
    ssize_t r = ::pwrite(fd_, buf, len, off_t(file_off));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (r == 0) return -EIO;
    buf += r;
    file_off += uint64_t(r);
    len -= size_t(r);
  }
  return 0;
}

int PlainDevice::read(uint64_t off, uint8_t* buf, size_t len) {
  if (len == 0) return 0;
  if (off > size() || len > size() - off) return -EINVAL;
  try {
    if (off % kUnit == 0 && len % kUnit == 0) {
      if (int e = pread_full(buf, len, layout_.data_offset + off)) return e;
      engine_->process(*key_, Direction::Decrypt, layout_.first_unit + off / kUnit, buf, len / kUnit);
      return 0;
    }
    while (len) {
      const uint64_t u0 = off / kUnit;
      const size_t head = size_t(off % kUnit);
      const size_t take = std::min(len, kMaxStep - head);
      const size_t nunits = (head + take + kUnit - 1) / kUnit;
      uint8_t* s = t_scratch.get(nunits * kUnit);
      if (!s) return -ENOMEM;
      if (int e = pread_full(s, nunits * kUnit, layout_.data_offset + u0 * kUnit)) return e;
      engine_->process(*key_, Direction::Decrypt, layout_.first_unit + u0, s, nunits);
      std::memcpy(buf, s + head, take);
      buf += take;
      off += take;
      len -= take;
    }
    return 0;
  } catch (const std::bad_alloc&) {
    return -ENOMEM;
  } catch (const std::exception&) {
    return -EIO;  // engine failure (e.g. a GPU error)
  }
}

int PlainDevice::check_write(uint64_t off, size_t len) {
  if (read_only_) return -EROFS;
  if (off > size() || len > size() - off) return -ENOSPC;
  if (triggered_.load(std::memory_order_acquire)) return -EIO;
  if (protection_.enabled()) {
    const uint64_t u0 = off / kUnit, u1 = (off + len + kUnit - 1) / kUnit;
    const uint64_t host = layout_.data_offset + u0 * kUnit, host_len = (u1 - u0) * kUnit;
    if (protection_.intersects(host, host_len)) {
      if (!triggered_.exchange(true, std::memory_order_acq_rel) && on_trigger_) {
        on_trigger_("write of " + std::to_string(len) + " bytes at plaintext offset " + std::to_string(off) +
                    " (container bytes " + std::to_string(host) + ".." + std::to_string(host + host_len) +
                    ") intersects the hidden volume [" + std::to_string(protection_.start()) + ", " +
                    std::to_string(protection_.end()) + ")");
      }
      return -EIO;
    }
  }
  return 0;
}

int PlainDevice::write_units(uint64_t unit, uint8_t* data, size_t nunits) {
  engine_->process(*key_, Direction::Encrypt, layout_.first_unit + unit, data, nunits);
  // A container file's buffered writes are serialised by the kernel anyway (the inode lock), and its waiters spin
  // on that lock while the holder copies a whole request. Queued here instead, they sleep, and the other FUSE
  // threads encrypt meanwhile (a few percent; docs/perf/design-figures.md, "Mount"). Block devices take no such
  // lock, so their writes stay parallel.
  std::unique_lock<std::mutex> lk(pwrite_mu_, std::defer_lock);
  if (serialize_writes_) lk.lock();
  return pwrite_full(data, nunits * kUnit, layout_.data_offset + unit * kUnit);
}

int PlainDevice::write_scratch(uint64_t off, uint8_t* buf, size_t len) {
  if (len == 0) return 0;
  if (off % kUnit != 0 || len % kUnit != 0) return write(off, buf, len);
  if (int e = check_write(off, len)) return e;
  try {
    std::shared_lock<std::shared_mutex> lk(rmw_);
    return write_units(off / kUnit, buf, len / kUnit);
  } catch (const std::exception&) {
    return -EIO;
  }
}

int PlainDevice::write(uint64_t off, const uint8_t* buf, size_t len) {
  if (len == 0) return 0;
  if (int e = check_write(off, len)) return e;
  try {
    while (len) {
      const uint64_t u0 = off / kUnit;
      const size_t head = size_t(off % kUnit);
      if (head == 0 && len >= kUnit) {
        // Whole units: copy (the caller's buffer is const), encrypt, write.
        const size_t n = std::min(len / kUnit, kMaxStep / kUnit);
        uint8_t* s = t_scratch.get(n * kUnit);
        if (!s) return -ENOMEM;
        std::memcpy(s, buf, n * kUnit);
        std::shared_lock<std::shared_mutex> lk(rmw_);
        if (int e = write_units(u0, s, n)) return e;
        buf += n * kUnit;
        off += n * kUnit;
        len -= n * kUnit;
        continue;
      }
      // A partial unit: read-modify-write, exclusive against every other write.
      const size_t take = std::min(len, kUnit - head);
      alignas(64) uint8_t unit[kUnit];
      std::unique_lock<std::shared_mutex> lk(rmw_);
      if (int e = pread_full(unit, kUnit, layout_.data_offset + u0 * kUnit)) return e;
      engine_->process(*key_, Direction::Decrypt, layout_.first_unit + u0, unit, 1);
      std::memcpy(unit + head, buf, take);
      const int e = write_units(u0, unit, 1);
      lk.unlock();
      std::memset(unit, 0, sizeof unit);
      if (e) return e;
      buf += take;
      off += take;
      len -= take;
    }
    return 0;
  } catch (const std::bad_alloc&) {
    return -ENOMEM;
  } catch (const std::exception&) {
    return -EIO;
  }
}

int PlainDevice::sync() {
  if (::fdatasync(fd_) != 0) return -errno;
  return 0;
}

}  // namespace warpvol::mount
