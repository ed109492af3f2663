// FailFile: a BlockFile wrapper for crash tests (after KeePassXC's FailDevice). It counts write operations (and,
// optionally, syncs) and at the N-th one simulates a failure:
//   Error      the N-th write throws Error(Io) and writes nothing (a full disk, a yanked USB stick);
//   TornWrite  the N-th write stores only its first torn_bytes bytes (default: half, rounded down to 512), then
//              throws — a write interrupted mid-way;
//   PowerLoss  writes are held in memory until sync(); at the N-th operation every write since the last
//              successful sync() is dropped (the inner file keeps exactly what was synced) and Error(Io) is thrown.
// After the failure every further write or sync throws too (the device is gone); reads still work and see what
// the inner file holds plus (PowerLoss) pending writes before the failure. truncate() is durable at once (pending
// writes stay pending, clipped). With fail_at = 0 nothing fails, so a
// test can first count the operations of a run and then fail each of them in turn. Thread-safe (one mutex), as
// the fill's several writer threads need.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/io/file.h"

namespace warpvol {

enum class FailMode { Error, TornWrite, PowerLoss };

struct FailPlan {
  uint64_t fail_at = 0;      // 1-based operation index; 0 = never fail
  FailMode mode = FailMode::Error;
  bool count_syncs = false;  // sync() calls are operations too (fail "between write and fsync")
  size_t torn_bytes = 0;     // TornWrite: bytes that reach the file; 0 = half the write, rounded down to 512
};

class FailFile final : public BlockFile {
 public:
  FailFile(std::unique_ptr<BlockFile> inner, FailPlan plan);
  ~FailFile() override;

  uint64_t size() const override;
  void read_at(uint64_t offset, uint8_t* buf, size_t len) override;
  void write_at(uint64_t offset, const uint8_t* buf, size_t len) override;
  void sync() override;
  bool writable() const override { return inner_->writable(); }
  const std::string& path() const override { return inner_->path(); }
  void truncate(uint64_t new_size) override;

  uint64_t operations() const {  // operations seen so far, the failing one included
    std::lock_guard<std::mutex> lk(mu_);
    return ops_;
  }
  bool failed() const {
    std::lock_guard<std::mutex> lk(mu_);
    return failed_;
  }
  BlockFile& inner() { return *inner_; }

 private:
  // Counts one operation; returns true when this one must fail.
  bool next_op_fails();
  [[noreturn]] void fail(const char* what);
  void flush_pending();
  uint64_t size_locked() const;

  struct Pending {
    uint64_t offset;
    std::vector<uint8_t> data;
  };
  mutable std::mutex mu_;
  std::unique_ptr<BlockFile> inner_;
  FailPlan plan_;
  uint64_t ops_ = 0;
  bool failed_ = false;
  std::vector<Pending> pending_;  // PowerLoss: writes not yet synced, in order
  uint64_t pending_size_ = 0;     // logical size including pending writes
};

}  // namespace warpvol
