#include "core/create/outer_fs.h"

#include <cstring>
#include <vector>

#include "core/create/outer_fs_probe.h"

namespace warpvol {

namespace outer_fs {
std::optional<uint64_t> highest_set_bit(const PlaintextReader& read, uint64_t offset, uint64_t nbits) {
  std::vector<uint8_t> buf;
  const uint64_t nbytes = (nbits + 7) / 8;
  for (uint64_t end = nbytes; end > 0;) {
    const uint64_t begin = end > kScanChunk ? end - kScanChunk : 0;
    buf.resize(size_t(end - begin));
    read(offset + begin, buf.data(), buf.size());
    for (uint64_t i = end; i-- > begin;) {
      uint8_t byte = buf[size_t(i - begin)];
      if (i == nbytes - 1 && nbits % 8) byte &= uint8_t((1u << (nbits % 8)) - 1);  // bits past nbits do not count
      if (byte) {
        int top = 7;
        while (!(byte >> top & 1)) --top;
        return i * 8 + uint64_t(top);
      }
    }
    end = begin;
  }
  return std::nullopt;
}
}  // namespace outer_fs

OuterFsInfo scan_outer_filesystem(const PlaintextReader& read, uint64_t data_size) {
  using namespace outer_fs;
  std::vector<uint8_t> head(size_t(std::min<uint64_t>(data_size, 69632)));
  read(0, head.data(), head.size());
  const uint8_t* b = head.data();
  for (auto probe : {probe_exfat, probe_ntfs, probe_fat, probe_ext4})
    if (auto info = probe(read, b, head.size(), data_size)) return *info;
  OuterFsInfo info;
  if (head.size() >= 65608 && std::memcmp(b + 65600, "_BHRfS_M", 8) == 0) {
    info.type = "btrfs";
    return info;
  }
  if (head.size() >= 4 && std::memcmp(b, "XFSB", 4) == 0) {
    info.type = "XFS";
    return info;
  }
  // No signature: no filesystem, or one not known here. Either way nothing tells where used space ends.
  info.type = "none";
  return info;
}

}  // namespace warpvol
