// FailFile: a BlockFile wrapper for crash tests (after KeePassXC's FailDevice). It counts write operations (and,
// optionally, syncs) and at the N-th one simulates a failure:
//   Error      the N-th write throws Error(Io) and writes nothing (a full disk, a yanked USB stick);
//   TornWrite  the N-th write stores only its first torn_bytes bytes (default: half, rounded down to 512), then
//              throws — a write interrupted mid-way;
//   PowerLoss  writes are held in memory until sync(); at the N-th operation every write since the last
//              successful sync() is dropped (the inner file keeps exactly what was synced) and Error(Io) is thrown.
// After the failure every further write or sync throws too (the device is gone); reads still work and see what
// the inner file holds plus (PowerLoss) pending writes before the failure. truncate() is durable at once (pending
// writes stay pending, clipped). A file closed without sync() loses its pending writes. With fail_at = 0 nothing
// fails, so a test can first count the operations of a run and then fail each of them in turn.
//
// Several files can share one FailGroup: one operation counter over all of them (a crash between a container write
// and a journal fsync), and a power loss drops the pending writes of every file in the group, since a crash takes
// the whole machine down, not one file. A FailFile made from a FailPlan is a group of its own. Thread-safe (one
// mutex per group), as the fill's several writer threads need.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
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

class FailFile;

class FailGroup {
 public:
  explicit FailGroup(FailPlan plan = {}) : plan_(plan) {}
  FailGroup(const FailGroup&) = delete;
  FailGroup& operator=(const FailGroup&) = delete;

  uint64_t operations() const {  // operations seen so far, the failing one included
    std::lock_guard<std::mutex> lk(mu_);
    return ops_;
  }
  bool failed() const {
    std::lock_guard<std::mutex> lk(mu_);
    return failed_;
  }
  // Wraps every file it is given in a FailFile of this group (for the jobs' wrap_* options). The group must
  // outlive the files.
  std::function<std::unique_ptr<BlockFile>(std::unique_ptr<BlockFile>)> wrapper();

 private:
  friend class FailFile;
  mutable std::mutex mu_;
  FailPlan plan_;
  uint64_t ops_ = 0;
  bool failed_ = false;
  std::set<FailFile*> live_;
};

class FailFile final : public BlockFile {
 public:
  FailFile(std::unique_ptr<BlockFile> inner, FailPlan plan);  // a group of its own
  FailFile(std::unique_ptr<BlockFile> inner, FailGroup& group);
  ~FailFile() override;

  uint64_t size() const override;
  void read_at(uint64_t offset, uint8_t* buf, size_t len) override;
  void write_at(uint64_t offset, const uint8_t* buf, size_t len) override;
  void sync() override;
  bool writable() const override { return inner_->writable(); }
  const std::string& path() const override { return inner_->path(); }
  void truncate(uint64_t new_size) override;

  uint64_t operations() const { return group_.operations(); }
  bool failed() const { return group_.failed(); }
  BlockFile& inner() { return *inner_; }

 private:
  // Counts one operation of the group; returns true when this one must fail. Called with the group's mutex held.
  bool next_op_fails();
  [[noreturn]] void fail(const char* what);
  void drop_pending();
  void flush_pending();
  uint64_t size_locked() const;

  struct Pending {
    uint64_t offset;
    std::vector<uint8_t> data;
  };
  std::unique_ptr<FailGroup> own_;  // set when the file is a group of its own; before group_, which may refer to it
  FailGroup& group_;
  std::unique_ptr<BlockFile> inner_;
  std::vector<Pending> pending_;  // PowerLoss: writes not yet synced, in order
  uint64_t pending_size_ = 0;     // logical size including pending writes
};

}  // namespace warpvol
