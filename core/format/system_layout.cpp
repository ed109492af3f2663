#include "core/format/system_layout.h"

#include <algorithm>
#include <cstring>

#include "core/format/partition_table.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

constexpr uint64_t kIsoDescriptorOffset = 0x8000;   // ISO 9660 primary volume descriptor ("\1CD001")
constexpr uint64_t kRescueBootImageOffset = 0xd000; // TC_CD_BOOTSECTOR_OFFSET: the rescue disk's boot-track copy

std::string partition_list(const std::vector<Partition>& parts) {
  if (parts.empty()) return "the image has no partition table";
  std::string s = "partitions:";
  for (const auto& p : parts)
    s += " " + std::to_string(p.number) + " (offset " + std::to_string(p.offset) + ", " + std::to_string(p.size) +
         " bytes)";
  return s;
}

std::string scope_text(uint64_t start, uint64_t scope) {
  return "the system encryption's key scope (drive offset " + std::to_string(start) + ", " + std::to_string(scope) +
         " bytes)";
}

}  // namespace

void apply_system_layout(OpenedHeader& o, BlockFile& drive, const OpenOptions& opt) {
  const HeaderFields& h = o.fields;
  const uint64_t start = h.encrypted_area_start, scope = h.volume_size, length = h.encrypted_area_length;
  if (length > scope || scope == 0 || start > UINT64_MAX - scope)
    throw Error(ErrorKind::Format, "system-encryption header is inconsistent: " + std::to_string(length) +
                                       " bytes encrypted of a " + std::to_string(scope) + "-byte volume");
  // Where the volume begins within the drive (its data units count from there) and where within the file.
  uint64_t drive_offset = 0;
  if (opt.system_partition_offset) {
    // The file is the partition: all of it is the volume, as VeraCrypt takes the partition device's size.
    const uint64_t p = *opt.system_partition_offset, size = drive.size();
    if (p % kDataUnitSize)
      throw Error(ErrorKind::Usage, "--partition-offset " + std::to_string(p) + " is not a multiple of 512");
    if (p < start || p > start + scope || size > start + scope - p)
      throw Error(ErrorKind::Usage, "--partition-offset " + std::to_string(p) + ": a " + std::to_string(size) +
                                        "-byte partition there lies outside " + scope_text(start, scope) +
                                        "; give the partition's start sector within the drive");
    drive_offset = p;
    o.data_offset = 0;
    o.data_size = size;
  } else {
    const auto parts = read_partition_table(drive);
    std::optional<Partition> chosen;
    if (opt.system_partition && *opt.system_partition > 0) {
      for (const auto& p : parts)
        if (p.number == *opt.system_partition) chosen = p;
      if (!chosen)
        throw Error(ErrorKind::Usage, "--partition " + std::to_string(*opt.system_partition) +
                                          ": no such partition (" + partition_list(parts) + ")");
    } else {
      chosen = partition_containing(parts, start);  // the one VeraCrypt would mount with system encryption
    }
    if (chosen) {
      if (chosen->offset < start || chosen->offset + chosen->size > start + scope)
        throw Error(ErrorKind::Usage, "partition " + std::to_string(chosen->number) + " (offset " +
                                          std::to_string(chosen->offset) + ", " + std::to_string(chosen->size) +
                                          " bytes) lies outside " + scope_text(start, scope));
      drive_offset = chosen->offset;
      o.data_size = chosen->size;
      o.system_partition = chosen->number;
    } else {
      drive_offset = start;
      o.data_size = scope;
    }
    o.data_offset = drive_offset;
  }
  o.first_unit = drive_offset / kDataUnitSize;
  // The ciphertext part of the volume, from drive coordinates to the volume's.
  const uint64_t enc_end = start + length;
  o.encrypted_begin = std::clamp(start, drive_offset, drive_offset + o.data_size) - drive_offset;
  o.encrypted_end = std::clamp(enc_end, drive_offset, drive_offset + o.data_size) - drive_offset;
  if (length != scope) {
    o.read_only = true;
    if (opt.notice)
      opt.notice("system encryption did not finish: of its " + std::to_string(scope) + "-byte volume (drive offset " +
                 std::to_string(start) + ") only " + std::to_string(length) +
                 " bytes are encrypted; the rest is read as it lies, and the volume is read-only, as in VeraCrypt");
  }
}

SystemHeaderSource system_header_source(const std::string& path) {
  SystemHeaderSource s;
  s.file = open_file(path, OpenMode::ReadOnly);
  const uint64_t size = s.file->size();
  uint8_t magic[6] = {};
  if (size == kHeaderSize) {
    s.offset = 0;
    s.kind = "header file";
    return s;
  }
  if (size >= kIsoDescriptorOffset + sizeof magic) s.file->read_at(kIsoDescriptorOffset, magic, sizeof magic);
  if (std::memcmp(magic, "\1CD001", 6) == 0) {
    s.offset = kRescueBootImageOffset + kSystemHeaderOffset;
    s.kind = "rescue disk image";
    if (size < s.offset + kHeaderSize)
      throw Error(ErrorKind::Usage, "--header-file " + path + ": an ISO image of " + std::to_string(size) +
                                        " bytes, too short for a rescue disk's header at offset " +
                                        std::to_string(s.offset));
    return s;
  }
  if (size >= kSystemHeaderOffset + kHeaderSize) {
    s.offset = kSystemHeaderOffset;
    s.kind = "drive start";
    return s;
  }
  throw Error(ErrorKind::Usage, "--header-file " + path + ": " + std::to_string(size) +
                                    " bytes, not a system header source (a 512-byte header, the drive's first 63 "
                                    "sectors or more, or a VeraCrypt rescue disk image)");
}

}  // namespace warpvol
