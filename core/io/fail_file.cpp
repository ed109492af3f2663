#include "core/io/fail_file.h"

#include <algorithm>
#include <cstring>

#include "core/util/error.h"

namespace warpvol {

FailFile::FailFile(std::unique_ptr<BlockFile> inner, FailPlan plan)
    : inner_(std::move(inner)), plan_(plan), pending_size_(inner_->size()) {}

FailFile::~FailFile() = default;  // pending (un-synced) writes are lost, as on a power cut

uint64_t FailFile::size() const {
  std::lock_guard<std::mutex> lk(mu_);
  return size_locked();
}

uint64_t FailFile::size_locked() const {
  return plan_.mode == FailMode::PowerLoss ? std::max(pending_size_, inner_->size()) : inner_->size();
}

bool FailFile::next_op_fails() {
  if (failed_) fail("the device failed earlier");
  ++ops_;
  return plan_.fail_at != 0 && ops_ == plan_.fail_at;
}

void FailFile::fail(const char* what) {
  failed_ = true;
  if (plan_.mode == FailMode::PowerLoss) {
    pending_.clear();
    pending_size_ = inner_->size();
  }
  throw Error(ErrorKind::Io, inner_->path() + ": injected failure at operation " + std::to_string(ops_) + " (" +
                                 what + ")");
}

void FailFile::read_at(uint64_t off, uint8_t* buf, size_t len) {
  std::lock_guard<std::mutex> lk(mu_);
  if (plan_.mode != FailMode::PowerLoss || pending_.empty()) {
    inner_->read_at(off, buf, len);
    return;
  }
  if (off + len > size_locked()) throw Error(ErrorKind::Io, path() + ": read past the end of the file");
  // Base: what the inner file has (zeros beyond its end), then the pending writes in order.
  const uint64_t isz = inner_->size();
  std::memset(buf, 0, len);
  if (off < isz) inner_->read_at(off, buf, size_t(std::min<uint64_t>(len, isz - off)));
  for (const auto& p : pending_) {
    const uint64_t a = std::max(off, p.offset), b = std::min(off + len, p.offset + p.data.size());
    if (a < b) std::memcpy(buf + (a - off), p.data.data() + (a - p.offset), size_t(b - a));
  }
}

void FailFile::write_at(uint64_t off, const uint8_t* buf, size_t len) {
  std::lock_guard<std::mutex> lk(mu_);
  if (next_op_fails()) {
    if (plan_.mode == FailMode::TornWrite) {
      size_t n = plan_.torn_bytes ? std::min(plan_.torn_bytes, len) : (len / 2) / 512 * 512;
      if (n) inner_->write_at(off, buf, n);
    }
    fail("write");
  }
  if (plan_.mode == FailMode::PowerLoss) {
    pending_.push_back({off, std::vector<uint8_t>(buf, buf + len)});
    pending_size_ = std::max(size_locked(), off + len);
    return;
  }
  inner_->write_at(off, buf, len);
}

void FailFile::flush_pending() {
  for (const auto& p : pending_) inner_->write_at(p.offset, p.data.data(), p.data.size());
  pending_.clear();
  pending_size_ = inner_->size();
}

void FailFile::sync() {
  std::lock_guard<std::mutex> lk(mu_);
  if (plan_.count_syncs) {
    if (next_op_fails()) fail("sync");
  } else if (failed_) {
    fail("the device failed earlier");
  }
  if (plan_.mode == FailMode::PowerLoss) flush_pending();
  inner_->sync();
}

void FailFile::truncate(uint64_t n) {
  std::lock_guard<std::mutex> lk(mu_);
  if (failed_) fail("the device failed earlier");
  // Metadata change: treated as durable at once. Pending (un-synced) writes stay pending, clipped to the new size.
  inner_->truncate(n);
  if (plan_.mode == FailMode::PowerLoss) {
    for (auto& p : pending_) {
      if (p.offset >= n) p.data.clear();
      else if (p.offset + p.data.size() > n) p.data.resize(size_t(n - p.offset));
    }
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [](const Pending& p) { return p.data.empty(); }),
                   pending_.end());
  }
  pending_size_ = n;
}

}  // namespace warpvol
