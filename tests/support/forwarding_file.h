// A BlockFile that passes every call to the file it wraps: a test derives from it and overrides only the calls it
// watches or changes (counts, gates, a size that cannot change). Direct I/O and parallel_writes keep BlockFile's
// defaults (off), so a job over the wrapper takes the plain write path and one writer, whatever the inner file.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "core/io/file.h"

namespace wvtest {

class ForwardingFile : public warpvol::BlockFile {
 public:
  explicit ForwardingFile(std::unique_ptr<warpvol::BlockFile> inner) : inner_(std::move(inner)) {}
  uint64_t size() const override { return inner_->size(); }
  void read_at(uint64_t offset, uint8_t* buf, size_t len) override { inner_->read_at(offset, buf, len); }
  void write_at(uint64_t offset, const uint8_t* buf, size_t len) override { inner_->write_at(offset, buf, len); }
  void sync() override { inner_->sync(); }
  bool writable() const override { return inner_->writable(); }
  const std::string& path() const override { return inner_->path(); }
  void truncate(uint64_t new_size) override { inner_->truncate(new_size); }

 protected:
  warpvol::BlockFile& inner() { return *inner_; }

 private:
  std::unique_ptr<warpvol::BlockFile> inner_;
};

}  // namespace wvtest
