// An opened volume: random-access plaintext read/write at any byte offset of the data area, through an engine.
// Partial data units are read-modify-written. Export reads system volumes through it, and create reads an outer
// volume's filesystem through it to place a hidden volume; mount (core/mount/plain_device.h) and re-encryption have
// their own.
#pragma once
#include <memory>
#include <string>

#include "core/engine/xts_engine.h"
#include "core/format/open.h"
#include "core/io/file.h"

namespace warpvol {

class Volume {
 public:
  // Opens the file (read-only unless writable) and the header. Throws Error.
  static std::unique_ptr<Volume> open(const std::string& path, const OpenOptions& opt,
                                      std::shared_ptr<XtsEngine> engine, bool writable);
  Volume(std::unique_ptr<BlockFile> file, OpenedHeader header, std::shared_ptr<XtsEngine> engine);

  const OpenedHeader& header() const { return header_; }
  uint64_t size() const { return header_.data_size; }  // plaintext bytes
  uint32_t sector_size() const { return header_.fields.sector_size; }
  BlockFile& file() { return *file_; }
  XtsEngine& engine() { return *engine_; }
  const std::shared_ptr<const EngineKey>& key() const { return key_; }

  // Plaintext access; offset + len must lie within [0, size()).
  void read(uint64_t offset, uint8_t* buf, size_t len);
  void write(uint64_t offset, const uint8_t* buf, size_t len);
  void flush() { file_->sync(); }

 private:
  void decrypt_units(uint64_t index, uint8_t* buf, size_t n);

  std::unique_ptr<BlockFile> file_;
  OpenedHeader header_;
  std::shared_ptr<XtsEngine> engine_;
  std::shared_ptr<const EngineKey> key_;
};

}  // namespace warpvol
