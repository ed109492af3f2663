// Implements tests/support/fail_file.h.
#include "tests/support/fail_file.h"

#include <algorithm>
#include <cstring>

#include "core/util/error.h"

namespace warpvol {

std::function<std::unique_ptr<BlockFile>(std::unique_ptr<BlockFile>)> FailGroup::wrapper() {
  return [this](std::unique_ptr<BlockFile> f) -> std::unique_ptr<BlockFile> {
    return std::make_unique<FailFile>(std::move(f), *this);
  };
}

FailFile::FailFile(std::unique_ptr<BlockFile> inner, FailPlan plan)
    : own_(std::make_unique<FailGroup>(plan)), group_(*own_), inner_(std::move(inner)),
      pending_size_(inner_->size()) {
  group_.live_.insert(this);
}

FailFile::FailFile(std::unique_ptr<BlockFile> inner, FailGroup& group)
    : group_(group), inner_(std::move(inner)), pending_size_(inner_->size()) {
  std::lock_guard<std::mutex> lk(group_.mu_);
  group_.live_.insert(this);
}

FailFile::~FailFile() {  // pending (un-synced) writes are lost, as on a power cut
  std::lock_guard<std::mutex> lk(group_.mu_);
  group_.live_.erase(this);
}

uint64_t FailFile::size() const {
  std::lock_guard<std::mutex> lk(group_.mu_);
  return size_locked();
}

uint64_t FailFile::size_locked() const {
  return group_.plan_.mode == FailMode::PowerLoss ? std::max(pending_size_, inner_->size()) : inner_->size();
}

bool FailFile::next_op_fails() {
  if (group_.failed_) fail("the device failed earlier");
  ++group_.ops_;
  return group_.plan_.fail_at != 0 && group_.ops_ == group_.plan_.fail_at;
}

void FailFile::drop_pending() {
  pending_.clear();
  pending_size_ = inner_->size();
}

void FailFile::fail(const char* what) {
  if (!group_.failed_ && group_.plan_.mode == FailMode::PowerLoss)
    for (FailFile* f : group_.live_) f->drop_pending();
  group_.failed_ = true;
  throw Error(ErrorKind::Io, inner_->path() + ": injected failure at operation " + std::to_string(group_.ops_) +
                                 " (" + what + ")");
}

void FailFile::read_at(uint64_t off, uint8_t* buf, size_t len) {
  std::lock_guard<std::mutex> lk(group_.mu_);
  if (group_.plan_.mode != FailMode::PowerLoss || pending_.empty()) {
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
  std::lock_guard<std::mutex> lk(group_.mu_);
  if (next_op_fails()) {
    if (group_.plan_.mode == FailMode::TornWrite) {
      const size_t torn = group_.plan_.torn_bytes;
      const size_t n = torn ? std::min(torn, len) : (len / 2) / 512 * 512;
      if (n) inner_->write_at(off, buf, n);
    }
    fail("write");
  }
  if (group_.plan_.mode == FailMode::PowerLoss) {
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
  std::lock_guard<std::mutex> lk(group_.mu_);
  if (group_.plan_.count_syncs) {
    if (next_op_fails()) fail("sync");
  } else if (group_.failed_) {
    fail("the device failed earlier");
  }
  if (group_.plan_.mode == FailMode::PowerLoss) flush_pending();
  inner_->sync();
}

void FailFile::truncate(uint64_t n) {
  std::lock_guard<std::mutex> lk(group_.mu_);
  if (group_.failed_) fail("the device failed earlier");
  // Metadata change: treated as durable at once. Pending (un-synced) writes stay pending, clipped to the new size.
  inner_->truncate(n);
  if (group_.plan_.mode == FailMode::PowerLoss) {
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
