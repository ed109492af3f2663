#include "core/volume/volume.h"

#include "core/util/error.h"

namespace warpvol {

std::unique_ptr<Volume> Volume::open(const std::string& path, const OpenOptions& opt,
                                     std::shared_ptr<XtsEngine> engine, bool writable) {
  auto file = open_file(path, writable ? OpenMode::ReadWrite : OpenMode::ReadOnly);
  OpenedHeader h = open_header(*file, opt);
  return std::make_unique<Volume>(std::move(file), std::move(h), std::move(engine));
}

DataLayout data_layout(const OpenedHeader& h) {
  return {h.data_offset, h.data_size, h.first_unit, h.encrypted_begin, h.encrypted_end};
}

Volume::Volume(std::unique_ptr<BlockFile> file, OpenedHeader header, std::shared_ptr<XtsEngine> engine)
    : file_(std::move(file)), header_(std::move(header)), engine_(std::move(engine)) {
  key_ = header_.legacy ? engine_->prepare_legacy(*header_.legacy, header_.fields.key_area.data(),
                                                  header_.data_offset / kDataUnitSize)
                        : engine_->prepare(header_.chain, header_.fields.key_area.data());
  DeviceOptions o;
  o.read_only = !file_->writable() || header_.read_only;
  device_ = std::make_unique<PlainDevice>(*file_, data_layout(header_), engine_, key_, o);
}

void Volume::write(uint64_t offset, const uint8_t* buf, size_t len) {
  if (header_.read_only && file_->writable())
    throw Error(ErrorKind::Format, "the volume is read-only: its system encryption did not finish");
  device_->write(offset, buf, len);
}

}  // namespace warpvol
