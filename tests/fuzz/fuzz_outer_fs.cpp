// The outer-volume filesystem probe of `create --type hidden` (core/create/outer_fs.h): FAT12/16/32 boot sector
// and FAT scan, exFAT/NTFS/ext/btrfs signatures, over an outer data area whose first bytes are the input.
//
// Input: u32 outer data-area size (capped at 64 MiB) | the data area's first bytes (the rest reads as zeros)
// Properties: the probe reads only inside the data area, and the used end it reports lies inside it. Run with
// -malloc_limit_mb=16 (fuzz_outer_fs.options): the scan's memory must not grow with what the boot sector claims.
#include <algorithm>
#include <cstring>

#include "core/create/outer_fs.h"
#include "core/util/error.h"
#include "tests/fuzz/support.h"

using namespace warpvol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* p = data;
  size_t n = size;
  const uint64_t data_size = std::min<uint64_t>(fuzz::take_le(p, n, 4), uint64_t(64) << 20);
  const PlaintextReader read = [&](uint64_t offset, uint8_t* buf, size_t len) {
    WARPVOL_FUZZ_CHECK(offset <= data_size && len <= data_size - offset, "read outside the outer data area");
    if (len == 0) return;
    std::memset(buf, 0, len);
    if (offset < n) std::memcpy(buf, p + offset, size_t(std::min<uint64_t>(len, n - offset)));
  };
  try {
    const OuterFsInfo info = scan_outer_filesystem(read, data_size);
    WARPVOL_FUZZ_CHECK(!info.type.empty(), "no filesystem type reported");
    if (info.understood) WARPVOL_FUZZ_CHECK(info.used_end <= data_size, "used end past the data area");
  } catch (const Error&) {
  }
  return 0;
}
