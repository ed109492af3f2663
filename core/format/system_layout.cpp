#include "core/format/system_layout.h"

#include <algorithm>

#include "core/format/partition_table.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

std::string partition_list(const std::vector<Partition>& parts) {
  if (parts.empty()) return "the image has no partition table";
  std::string s = "partitions:";
  for (const auto& p : parts)
    s += " " + std::to_string(p.number) + " (offset " + std::to_string(p.offset) + ", " + std::to_string(p.size) +
         " bytes)";
  return s;
}

}  // namespace

void apply_system_layout(OpenedHeader& o, BlockFile& drive, const OpenOptions& opt) {
  const HeaderFields& h = o.fields;
  const uint64_t start = h.encrypted_area_start, scope = h.volume_size, length = h.encrypted_area_length;
  if (length > scope || scope == 0)
    throw Error(ErrorKind::Format, "system-encryption header is inconsistent: " + std::to_string(length) +
                                       " bytes encrypted of a " + std::to_string(scope) + "-byte volume");
  const auto parts = read_partition_table(drive);
  std::optional<Partition> chosen;
  if (opt.system_partition && *opt.system_partition > 0) {
    for (const auto& p : parts)
      if (p.number == *opt.system_partition) chosen = p;
    if (!chosen)
      throw Error(ErrorKind::Usage, "--partition " + std::to_string(*opt.system_partition) + ": no such partition (" +
                                        partition_list(parts) + ")");
  } else {
    chosen = partition_containing(parts, start);  // the one VeraCrypt would mount with system encryption
  }
  if (chosen) {
    if (chosen->offset < start || chosen->offset + chosen->size > start + scope)
      throw Error(ErrorKind::Usage, "partition " + std::to_string(chosen->number) + " (offset " +
                                        std::to_string(chosen->offset) + ", " + std::to_string(chosen->size) +
                                        " bytes) lies outside the system encryption's key scope (offset " +
                                        std::to_string(start) + ", " + std::to_string(scope) + " bytes)");
    o.data_offset = chosen->offset;
    o.data_size = chosen->size;
    o.system_partition = chosen->number;
  } else {
    o.data_offset = start;
    o.data_size = scope;
  }
  o.first_unit = o.data_offset / kDataUnitSize;
  // The ciphertext part of the data area.
  const uint64_t enc_end = start + length;
  o.encrypted_begin = std::clamp(start, o.data_offset, o.data_offset + o.data_size) - o.data_offset;
  o.encrypted_end = std::clamp(enc_end, o.data_offset, o.data_offset + o.data_size) - o.data_offset;
  if (length != scope) {
    o.read_only = true;
    if (opt.notice)
      opt.notice("system encryption did not finish: of its " + std::to_string(scope) + "-byte volume (drive offset " +
                 std::to_string(start) + ") only " + std::to_string(length) +
                 " bytes are encrypted; the rest is read as it lies on the drive, and the volume is read-only, as in "
                 "VeraCrypt");
  }
}

}  // namespace warpvol
