// exFAT (Microsoft's exFAT file system specification): the Allocation Bitmap, found through its directory entry
// (type 0x81) in the root directory, has one bit per cluster of the cluster heap; the used space ends after the
// highest set bit. Files marked NoFatChain leave their FAT entries zero, so the FAT alone would under-report: the
// bitmap is the authority. The root directory and the bitmap are followed through their FAT chains (bounded by the
// cluster count, so a looping chain ends), read in chunks.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/create/outer_fs_probe.h"
#include "core/util/error.h"

namespace warpvol::outer_fs {
namespace {

struct ExfatGeometry {
  uint64_t bps = 0, cluster_bytes = 0, fat_offset = 0, heap_offset = 0;  // bytes
  uint32_t cluster_count = 0;
  uint64_t cluster_pos(uint32_t c) const { return heap_offset + uint64_t(c - 2) * cluster_bytes; }
};

[[noreturn]] void damaged(const std::string& what) {
  throw Error(ErrorKind::Format, "the outer volume's exFAT filesystem is inconsistent (" + what +
                                     "); check it with fsck.exfat before adding a hidden volume");
}

// Calls fn(cluster) for each cluster of the chain starting at `first` (at most cluster_count clusters).
template <class Fn>
void for_each_cluster(const PlaintextReader& read, const ExfatGeometry& g, uint32_t first, Fn fn) {
  uint32_t c = first;
  for (uint64_t n = 0; n <= g.cluster_count; ++n) {
    if (c < 2 || c > g.cluster_count + 1) damaged("cluster chain leaves the cluster heap");
    if (!fn(c)) return;
    uint8_t e[4];
    read(g.fat_offset + uint64_t(c) * 4, e, 4);
    const uint32_t next = le32(e);
    if (next == 0xFFFFFFFF) return;
    c = next;
  }
  damaged("cluster chain loops");
}

}  // namespace

std::optional<OuterFsInfo> probe_exfat(const PlaintextReader& read, const uint8_t* b, size_t head_len,
                                       uint64_t data_size) {
  if (head_len < 512 || std::memcmp(b + 3, "EXFAT   ", 8) != 0) return std::nullopt;
  const unsigned bps_shift = b[108], spc_shift = b[109];
  if (bps_shift < 9 || bps_shift > 12 || spc_shift > 25 - bps_shift) damaged("bad sector or cluster size");
  ExfatGeometry g;
  g.bps = uint64_t(1) << bps_shift;
  g.cluster_bytes = g.bps << spc_shift;
  g.fat_offset = uint64_t(le32(b + 80)) * g.bps;
  g.heap_offset = uint64_t(le32(b + 88)) * g.bps;
  g.cluster_count = le32(b + 92);
  const uint32_t root = le32(b + 96);
  const uint64_t volume_bytes = le64(b + 72) * g.bps;
  if (volume_bytes > data_size || g.cluster_count == 0 ||
      g.heap_offset + uint64_t(g.cluster_count) * g.cluster_bytes > volume_bytes ||
      g.fat_offset + (uint64_t(g.cluster_count) + 2) * 4 > g.heap_offset)
    damaged("its geometry does not fit the volume");

  // The Allocation Bitmap entries (one, or two with TexFAT's second FAT) in the root directory.
  std::vector<std::pair<uint32_t, uint64_t>> bitmaps;  // first cluster, bytes
  std::vector<uint8_t> buf;
  bool end = false;
  for_each_cluster(read, g, root, [&](uint32_t c) {
    for (uint64_t off = 0; off < g.cluster_bytes && !end; off += kScanChunk) {
      const size_t len = size_t(std::min<uint64_t>(kScanChunk, g.cluster_bytes - off));
      buf.resize(len);
      read(g.cluster_pos(c) + off, buf.data(), len);
      for (size_t e = 0; e + 32 <= len; e += 32) {
        const uint8_t type = buf[e];
        if (type == 0x00) {  // end of directory
          end = true;
          break;
        }
        if (type == 0x81) bitmaps.emplace_back(le32(&buf[e + 20]), le64(&buf[e + 24]));
      }
    }
    return !end;
  });
  if (bitmaps.empty()) damaged("no allocation bitmap in the root directory");

  std::optional<uint64_t> highest;  // highest cluster index (bit number) in use
  for (const auto& [first, bytes] : bitmaps) {
    if (bytes < (uint64_t(g.cluster_count) + 7) / 8) damaged("allocation bitmap shorter than the cluster count");
    uint64_t bit_base = 0;  // bit number of the first bit of the current cluster
    for_each_cluster(read, g, first, [&](uint32_t c) {
      const uint64_t bits_here = std::min<uint64_t>(g.cluster_bytes * 8, g.cluster_count - bit_base);
      if (auto h = highest_set_bit(read, g.cluster_pos(c), bits_here)) highest = std::max(highest.value_or(0), bit_base + *h);
      bit_base += bits_here;
      return bit_base < g.cluster_count;
    });
  }
  OuterFsInfo info;
  info.type = "exFAT";
  info.understood = true;
  // Bit i is cluster i + 2, which lies at heap + i * cluster size.
  info.used_end = highest ? g.heap_offset + (*highest + 1) * g.cluster_bytes : g.heap_offset;
  return info;
}

}  // namespace warpvol::outer_fs
