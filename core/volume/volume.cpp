#include "core/volume/volume.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/util/error.h"

namespace warpvol {

std::unique_ptr<Volume> Volume::open(const std::string& path, const OpenOptions& opt,
                                     std::shared_ptr<XtsEngine> engine, bool writable) {
  auto file = open_file(path, writable ? OpenMode::ReadWrite : OpenMode::ReadOnly);
  OpenedHeader h = open_header(*file, opt);
  return std::make_unique<Volume>(std::move(file), std::move(h), std::move(engine));
}

Volume::Volume(std::unique_ptr<BlockFile> file, OpenedHeader header, std::shared_ptr<XtsEngine> engine)
    : file_(std::move(file)), header_(std::move(header)), engine_(std::move(engine)) {
  key_ = header_.legacy ? engine_->prepare_legacy(*header_.legacy, header_.fields.key_area.data(),
                                                  header_.data_offset / kDataUnitSize)
                        : engine_->prepare(header_.chain, header_.fields.key_area.data());
}

// Decrypts n units read from unit `index` of the data area in place, leaving alone the units outside the
// header's encrypted extent (plaintext on disk: a system encryption that did not finish).
void Volume::decrypt_units(uint64_t index, uint8_t* buf, size_t n) {
  const uint64_t lo = std::max(index, header_.encrypted_begin / kDataUnitSize);
  const uint64_t hi = std::min<uint64_t>(index + n, header_.encrypted_end / kDataUnitSize);
  if (lo >= hi) return;
  engine_->process(*key_, Direction::Decrypt, header_.first_unit + lo, buf + (lo - index) * kDataUnitSize,
                   size_t(hi - lo));
}

// Plaintext offset -> file offset and data-unit number: both start at the data area.
void Volume::read(uint64_t offset, uint8_t* buf, size_t len) {
  if (offset > size() || len > size() - offset) throw Error(ErrorKind::Io, "read past the end of the volume");
  while (len) {
    const uint64_t unit_index = offset / kDataUnitSize;
    const size_t head = size_t(offset % kDataUnitSize);
    if (head == 0 && len >= kDataUnitSize) {
      // Whole units straight into the caller's buffer.
      const size_t n = len / kDataUnitSize;
      file_->read_at(header_.data_offset + offset, buf, n * kDataUnitSize);
      decrypt_units(unit_index, buf, n);
      buf += n * kDataUnitSize;
      offset += n * kDataUnitSize;
      len -= n * kDataUnitSize;
      continue;
    }
    alignas(16) uint8_t unit[kDataUnitSize];
    file_->read_at(header_.data_offset + unit_index * kDataUnitSize, unit, kDataUnitSize);
    decrypt_units(unit_index, unit, 1);
    const size_t take = std::min(len, kDataUnitSize - head);
    std::memcpy(buf, unit + head, take);
    buf += take;
    offset += take;
    len -= take;
  }
}

void Volume::write(uint64_t offset, const uint8_t* buf, size_t len) {
  if (!file_->writable()) throw Error(ErrorKind::Io, "the volume is open read-only");
  if (header_.read_only)
    throw Error(ErrorKind::Format, "the volume is read-only: its system encryption did not finish");
  if (offset > size() || len > size() - offset) throw Error(ErrorKind::Io, "write past the end of the volume");
  std::vector<uint8_t> tmp;
  while (len) {
    const uint64_t unit_index = offset / kDataUnitSize;
    const size_t head = size_t(offset % kDataUnitSize);
    if (head == 0 && len >= kDataUnitSize) {
      const size_t n = std::min(len / kDataUnitSize, size_t(8) << 11);  // up to 8 MiB per step
      tmp.assign(buf, buf + n * kDataUnitSize);
      engine_->process(*key_, Direction::Encrypt, header_.first_unit + unit_index, tmp.data(), n);
      file_->write_at(header_.data_offset + offset, tmp.data(), tmp.size());
      buf += n * kDataUnitSize;
      offset += n * kDataUnitSize;
      len -= n * kDataUnitSize;
      continue;
    }
    // Partial unit: read-modify-write.
    alignas(16) uint8_t unit[kDataUnitSize];
    const uint64_t file_off = header_.data_offset + unit_index * kDataUnitSize;
    file_->read_at(file_off, unit, kDataUnitSize);
    engine_->process(*key_, Direction::Decrypt, header_.first_unit + unit_index, unit, 1);
    const size_t take = std::min(len, kDataUnitSize - head);
    std::memcpy(unit + head, buf, take);
    engine_->process(*key_, Direction::Encrypt, header_.first_unit + unit_index, unit, 1);
    file_->write_at(file_off, unit, kDataUnitSize);
    buf += take;
    offset += take;
    len -= take;
  }
}

}  // namespace warpvol
