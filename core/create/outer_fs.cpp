#include "core/create/outer_fs.h"

#include <cstring>
#include <vector>

#include "core/util/error.h"

namespace warpvol {

namespace {
uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }

// FAT (Microsoft's "FAT: General Overview of On-Disk Format"): the highest cluster with a non-zero FAT entry.
std::optional<OuterFsInfo> scan_fat(const PlaintextReader& read, const uint8_t* bs, uint64_t data_size) {
  if (bs[510] != 0x55 || bs[511] != 0xAA) return std::nullopt;
  if (bs[0] != 0xEB && bs[0] != 0xE9) return std::nullopt;
  const uint32_t bps = le16(bs + 11), spc = bs[13], rsvd = le16(bs + 14), nfats = bs[16], root_ents = le16(bs + 17);
  const uint32_t tot16 = le16(bs + 19), fatsz16 = le16(bs + 22), tot32 = le32(bs + 32), fatsz32 = le32(bs + 36);
  if (bps < 512 || bps > 4096 || (bps & (bps - 1)) || spc == 0 || (spc & (spc - 1)) || rsvd == 0 || nfats == 0)
    return std::nullopt;
  const uint64_t fatsz = fatsz16 ? fatsz16 : fatsz32;
  const uint64_t totsec = tot16 ? tot16 : tot32;
  if (fatsz == 0 || totsec == 0) return std::nullopt;
  const uint64_t root_secs = (uint64_t(root_ents) * 32 + bps - 1) / bps;
  const uint64_t first_data = rsvd + nfats * fatsz + root_secs;
  if (first_data >= totsec || totsec * bps > data_size) return std::nullopt;
  const uint64_t clusters = (totsec - first_data) / spc;
  OuterFsInfo info;
  int bits;
  if (clusters < 4085) { info.type = "FAT12"; bits = 12; }
  else if (clusters < 65525) { info.type = "FAT16"; bits = 16; }
  else { info.type = "FAT32"; bits = 32; }
  std::vector<uint8_t> fat(size_t(fatsz * bps));
  read(uint64_t(rsvd) * bps, fat.data(), fat.size());
  uint64_t highest = 0;  // highest used cluster number (>= 2), 0 = none
  for (uint64_t c = 2; c < clusters + 2; ++c) {
    uint32_t v;
    if (bits == 12) {
      const uint64_t o = c + c / 2;
      if (o + 1 >= fat.size()) break;
      const uint16_t w = le16(fat.data() + o);
      v = (c & 1) ? (w >> 4) : (w & 0x0FFF);
    } else if (bits == 16) {
      if (2 * c + 1 >= fat.size()) break;
      v = le16(fat.data() + 2 * c);
    } else {
      if (4 * c + 3 >= fat.size()) break;
      v = le32(fat.data() + 4 * c) & 0x0FFFFFFF;
    }
    if (v != 0) highest = c;
  }
  const uint64_t end_sector = highest ? first_data + (highest - 2 + 1) * spc : first_data;
  info.used_end = end_sector * bps;
  info.understood = true;
  return info;
}
}  // namespace

OuterFsInfo scan_outer_filesystem(const PlaintextReader& read, uint64_t data_size) {
  std::vector<uint8_t> head(size_t(std::min<uint64_t>(data_size, 69632)));
  read(0, head.data(), head.size());
  const uint8_t* b = head.data();
  OuterFsInfo info;
  if (head.size() >= 512) {
    if (std::memcmp(b + 3, "EXFAT   ", 8) == 0) {
      info.type = "exFAT";
      return info;
    }
    if (std::memcmp(b + 3, "NTFS    ", 8) == 0) {
      info.type = "NTFS";
      return info;
    }
    if (auto fat = scan_fat(read, b, data_size)) return *fat;
  }
  if (head.size() >= 1082 && le16(b + 1080) == 0xEF53) {
    info.type = "ext2/3/4";
    return info;
  }
  if (head.size() >= 65608 && std::memcmp(b + 65600, "_BHRfS_M", 8) == 0) {
    info.type = "btrfs";
    return info;
  }
  info.type = "none";
  info.understood = true;
  info.used_end = 0;
  return info;
}

}  // namespace warpvol
