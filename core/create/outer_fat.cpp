// FAT12/16/32 (Microsoft's "FAT: General Overview of On-Disk Format"): the used space ends after the highest
// cluster with a non-zero FAT entry. The FAT is read in chunks, and only as far as the cluster count needs: a boot
// sector claiming a huge FAT costs reads, never memory.
#include <vector>

#include "core/create/outer_fs_probe.h"

namespace warpvol::outer_fs {

std::optional<OuterFsInfo> probe_fat(const PlaintextReader& read, const uint8_t* bs, size_t head_len,
                                     uint64_t data_size) {
  if (head_len < 512 || bs[510] != 0x55 || bs[511] != 0xAA) return std::nullopt;
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
  const uint64_t fat_bytes = fatsz * bps;
  // Bytes of FAT that hold entries 0 .. clusters+1 (a FAT12 pair of entries shares 3 bytes).
  const uint64_t needed = std::min<uint64_t>(fat_bytes, bits == 12 ? (clusters + 2) * 3 / 2 + 2 : (clusters + 2) * (bits / 8));
  const uint64_t fat_start = uint64_t(rsvd) * bps;
  // Chunks start at a multiple of 3 bytes (two FAT12 entries) and of 4, and overlap by 2 bytes so a FAT12 entry
  // spanning a chunk boundary is read whole.
  const uint64_t step = kScanChunk / 12 * 12;
  std::vector<uint8_t> chunk;
  uint64_t highest = 0;  // highest used cluster number (>= 2), 0 = none
  for (uint64_t base = 0; base < needed; base += step) {
    const size_t len = size_t(std::min<uint64_t>(step + 2, needed - base));
    chunk.resize(len);
    read(fat_start + base, chunk.data(), len);
    // Clusters whose entry starts in [base, base + step).
    uint64_t c0, c1;
    if (bits == 12) { c0 = base / 3 * 2; c1 = (base + step) / 3 * 2; }
    else { c0 = base / (bits / 8); c1 = (base + step) / (bits / 8); }
    c0 = std::max<uint64_t>(c0, 2);
    c1 = std::min<uint64_t>(c1, clusters + 2);
    for (uint64_t c = c0; c < c1; ++c) {
      uint32_t v;
      if (bits == 12) {
        const uint64_t o = c + c / 2 - base;
        if (o + 1 >= len) break;
        const uint16_t w = le16(chunk.data() + o);
        v = (c & 1) ? (w >> 4) : (w & 0x0FFF);
      } else if (bits == 16) {
        const uint64_t o = 2 * c - base;
        if (o + 1 >= len) break;
        v = le16(chunk.data() + o);
      } else {
        const uint64_t o = 4 * c - base;
        if (o + 3 >= len) break;
        v = le32(chunk.data() + o) & 0x0FFFFFFF;
      }
      if (v != 0) highest = c;
    }
  }
  const uint64_t end_sector = highest ? first_data + (highest - 2 + 1) * spc : first_data;
  info.used_end = end_sector * bps;
  info.understood = true;
  return info;
}

}  // namespace warpvol::outer_fs
