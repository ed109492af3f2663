#include "core/format/layout_check.h"

#include <cstdio>
#include <string>

#include "core/util/error.h"

namespace warpvol {

namespace {

[[noreturn]] void refuse(const std::string& why) {
  throw Error(ErrorKind::Format, "inconsistent volume header: " + why);
}

std::string area(const OpenedHeader& o) {
  return "data area of " + std::to_string(o.data_size) + " bytes at offset " + std::to_string(o.data_offset);
}

}  // namespace

void check_layout(const OpenedHeader& o, uint64_t H) {
  const HeaderFields& h = o.fields;
  if (o.format == VolumeFormat::VeraCrypt && (o.slot == SlotKind::LegacyNormal || o.slot == SlotKind::LegacyHidden))
  {
    char v[8];
    std::snprintf(v, sizeof v, "%04x", unsigned(h.required_version));
    refuse(std::string("a VeraCrypt header requiring program version 0x") + v +
           " (below 0x010b) asks for the legacy V1 layout, which no VeraCrypt release wrote");
  }
  if (o.data_size == 0) refuse("the data area is empty (volume size 0 in the header)");
  if (o.data_offset % 512) refuse("the data area does not start on a 512-byte boundary");
  if (o.data_size % 512) refuse("the data size " + std::to_string(o.data_size) + " is not a multiple of 512");
  if (o.data_offset > H || o.data_size > H - o.data_offset)
    refuse("the " + area(o) + " extends past the end of the container (" + std::to_string(H) + " bytes)");
  if (o.slot == SlotKind::Normal || o.slot == SlotKind::Hidden) {
    // The V2 layout (TrueCrypt 6.0+, every VeraCrypt volume): header version 4 or 5, two 64 KiB header slots at
    // the start and their embedded backups in the last 128 KiB; the data area lies strictly between them.
    if (h.version < 4)
      refuse("header version " + std::to_string(h.version) + " in a " + std::string(slot_kind_name(o.slot)) +
             " header slot (the layout with embedded backup headers needs version 4 or 5)");
    if (o.data_offset < kDataOffsetV2 || H < 2 * kDataOffsetV2 || o.data_offset + o.data_size > H - kDataOffsetV2)
      refuse("the " + area(o) + " overlaps the header slots (the first and the last 131072 bytes of the " +
             std::to_string(H) + "-byte container)");
  }
}

}  // namespace warpvol
