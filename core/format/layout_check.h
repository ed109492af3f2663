// The one decision whether a decrypted header's fields fit the layout it was found in (docs/format-spec.md §2, §3). A
// header with a valid CRC can still describe a data area that a V2 layout cannot hold: writing through it would
// overwrite the volume's own header slots. open_header() calls this for every command (info, export, mount,
// change, reencrypt, ...), so they all refuse the same headers with the same one-line Error(Format) (exit 4).
#pragma once
#include <cstdint>

#include "core/format/open.h"

namespace warpvol {

// o: the opened header with data_offset/data_size already computed from its fields; file_size: the container's.
// Refused: an empty data area, a data size or offset that is not a multiple of 512, a data area past the end of
// the container, a V2-layout header (normal or hidden slot) older than header version 4 or whose data area
// overlaps the header slots (the first and the last 128 KiB), and a VeraCrypt header that asks for the legacy V1
// layout (required version below 0x010b: no VeraCrypt release wrote one).
void check_layout(const OpenedHeader& o, uint64_t file_size);

}  // namespace warpvol
