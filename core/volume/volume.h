// An opened volume: its container file, its header and the engine key, and the plaintext of its data area as a
// PlainDevice (plain_device.h). Export and create's outer-volume scan read through it; warpvol-mountd builds its
// PlainDevice itself from the layout that `mount` passes it.
#pragma once
#include <memory>
#include <string>

#include "core/engine/xts_engine.h"
#include "core/format/open.h"
#include "core/io/file.h"
#include "core/volume/plain_device.h"

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
  PlainDevice& device() { return *device_; }

  // Plaintext access; offset + len must lie within [0, size()).
  void read(uint64_t offset, uint8_t* buf, size_t len) { device_->read(offset, buf, len); }
  void write(uint64_t offset, const uint8_t* buf, size_t len);
  void flush() { file_->sync(); }

 private:
  std::unique_ptr<BlockFile> file_;
  OpenedHeader header_;
  std::shared_ptr<XtsEngine> engine_;
  std::shared_ptr<const EngineKey> key_;
  std::unique_ptr<PlainDevice> device_;
};

// The data area of an opened header as a PlainDevice lays it out.
DataLayout data_layout(const OpenedHeader& h);

}  // namespace warpvol
