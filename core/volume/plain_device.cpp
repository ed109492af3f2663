#include "core/volume/plain_device.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "core/io/aligned_scratch.h"
#include "core/util/secure.h"

namespace warpvol {

namespace {

constexpr size_t kUnit = kDataUnitSize;
constexpr size_t kMaxStep = size_t(4) << 20;  // bytes per engine call for large unaligned/copying requests

thread_local AlignedScratch t_scratch(size_t(1) << 20);

uint8_t* scratch(size_t n) {
  uint8_t* p = t_scratch.get(n);
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace

PlainDevice::PlainDevice(BlockFile& file, DataLayout layout, std::shared_ptr<XtsEngine> engine,
                         std::shared_ptr<const EngineKey> key, DeviceOptions opt)
    : file_(file), layout_(layout), engine_(std::move(engine)), key_(std::move(key)), opt_(opt) {}

void PlainDevice::read_container(uint64_t file_off, uint8_t* buf, size_t len) {
  if (opt_.direct_reads && file_.read_at_direct(file_off, buf, len)) {
    direct_reads_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  file_.read_at(file_off, buf, len);
}

// Decrypts n units from data unit `unit` of the area in place, leaving alone those outside the encrypted extent.
void PlainDevice::decrypt(uint64_t unit, uint8_t* data, size_t n) {
  const uint64_t lo = std::max(unit, layout_.encrypted_begin / kUnit);
  const uint64_t hi = std::min<uint64_t>(unit + n, layout_.encrypted_end / kUnit);
  if (lo >= hi) return;
  engine_->process(*key_, Direction::Decrypt, layout_.first_unit + lo, data + (lo - unit) * kUnit, size_t(hi - lo));
}

void PlainDevice::read(uint64_t off, uint8_t* buf, size_t len) {
  if (off > size() || len > size() - off) throw IoError(ErrorKind::Io, "read past the end of the volume", EINVAL);
  if (len == 0) return;
  if (off % kUnit == 0 && len % kUnit == 0) {
    read_container(layout_.data_offset + off, buf, len);
    decrypt(off / kUnit, buf, len / kUnit);
    return;
  }
  while (len) {
    const uint64_t u0 = off / kUnit;
    const size_t head = size_t(off % kUnit);
    const size_t take = std::min(len, kMaxStep - head);
    const size_t nunits = (head + take + kUnit - 1) / kUnit;
    uint8_t* s = scratch(nunits * kUnit);
    read_container(layout_.data_offset + u0 * kUnit, s, nunits * kUnit);
    decrypt(u0, s, nunits);
    std::memcpy(buf, s + head, take);
    buf += take;
    off += take;
    len -= take;
  }
}

void PlainDevice::check_write(uint64_t off, size_t len) {
  if (opt_.read_only) throw IoError(ErrorKind::Io, "the volume is open read-only", EROFS);
  if (off > size() || len > size() - off) throw IoError(ErrorKind::Io, "write past the end of the volume", ENOSPC);
  if (triggered_.load(std::memory_order_acquire))
    throw IoError(ErrorKind::Io, "hidden volume protection was triggered: every write is refused", EIO);
  const HiddenProtection& prot = opt_.protection;
  if (!prot.enabled()) return;
  const uint64_t u0 = off / kUnit, u1 = (off + len + kUnit - 1) / kUnit;
  const uint64_t host = layout_.data_offset + u0 * kUnit, host_len = (u1 - u0) * kUnit;
  if (!prot.intersects(host, host_len)) return;
  const std::string what = "write of " + std::to_string(len) + " bytes at plaintext offset " + std::to_string(off) +
                           " (container bytes " + std::to_string(host) + ".." + std::to_string(host + host_len) +
                           ") intersects the hidden volume [" + std::to_string(prot.start()) + ", " +
                           std::to_string(prot.end()) + ")";
  if (!triggered_.exchange(true, std::memory_order_acq_rel) && on_trigger_) on_trigger_(what);
  throw IoError(ErrorKind::Io, "hidden volume protection: " + what, EIO);
}

void PlainDevice::write_units(uint64_t unit, uint8_t* data, size_t nunits) {
  engine_->process(*key_, Direction::Encrypt, layout_.first_unit + unit, data, nunits);
  std::unique_lock<std::mutex> lk(write_mu_, std::defer_lock);
  if (opt_.serialize_writes) lk.lock();
  file_.write_at(layout_.data_offset + unit * kUnit, data, nunits * kUnit);
}

void PlainDevice::write_scratch(uint64_t off, uint8_t* buf, size_t len) {
  if (len == 0) return;
  if (off % kUnit != 0 || len % kUnit != 0) return write(off, buf, len);
  check_write(off, len);
  std::shared_lock<std::shared_mutex> lk(rmw_);
  write_units(off / kUnit, buf, len / kUnit);
}

void PlainDevice::write(uint64_t off, const uint8_t* buf, size_t len) {
  if (len == 0) return;
  check_write(off, len);
  while (len) {
    const uint64_t u0 = off / kUnit;
    const size_t head = size_t(off % kUnit);
    if (head == 0 && len >= kUnit) {
      // Whole units: copy (the caller's buffer is const), encrypt, write.
      const size_t n = std::min(len / kUnit, kMaxStep / kUnit);
      uint8_t* s = scratch(n * kUnit);
      std::memcpy(s, buf, n * kUnit);
      std::shared_lock<std::shared_mutex> lk(rmw_);
      write_units(u0, s, n);
      buf += n * kUnit;
      off += n * kUnit;
      len -= n * kUnit;
      continue;
    }
    // A partial unit: read-modify-write, exclusive against every other write.
    const size_t take = std::min(len, kUnit - head);
    alignas(64) uint8_t unit[kUnit];
    struct Wipe {
      uint8_t* p;
      ~Wipe() { secure_wipe(p, kUnit); }
    } wipe{unit};
    std::unique_lock<std::shared_mutex> lk(rmw_);
    file_.read_at(layout_.data_offset + u0 * kUnit, unit, kUnit);
    decrypt(u0, unit, 1);
    std::memcpy(unit + head, buf, take);
    write_units(u0, unit, 1);
    lk.unlock();
    buf += take;
    off += take;
    len -= take;
  }
}

}  // namespace warpvol
