// ext2/3/4 (the kernel's Documentation/filesystems/ext4 on-disk layout): the used space ends after the highest block
// that is allocated in a block group's bitmap or holds metadata. Block groups are read from the last one backwards
// until one has a used block; groups whose bitmap is not initialised (BLOCK_UNINIT) hold only their own backup
// superblock and descriptor copies, if any; the bitmaps and inode tables that every descriptor names count wherever
// they are (flex_bg puts them in early groups). Descriptors are read in chunks.
#include <algorithm>
#include <vector>

#include "core/create/outer_fs_probe.h"
#include "core/util/error.h"

namespace warpvol::outer_fs {
namespace {

[[noreturn]] void damaged(const std::string& what) {
  throw Error(ErrorKind::Format, "the outer volume's ext2/3/4 filesystem is inconsistent or unsupported (" + what +
                                     "); check it with e2fsck before adding a hidden volume");
}

bool is_power_of(uint64_t n, uint64_t base) {
  if (n == 0) return false;
  while (n % base == 0) n /= base;
  return n == 1;
}

}  // namespace

std::optional<OuterFsInfo> probe_ext4(const PlaintextReader& read, const uint8_t* head, size_t head_len,
                                      uint64_t data_size) {
  if (head_len < 2048) return std::nullopt;
  const uint8_t* sb = head + 1024;
  if (le16(sb + 56) != 0xEF53) return std::nullopt;
  const uint32_t log_bs = le32(sb + 24);
  if (log_bs > 6) damaged("bad block size");
  const uint64_t bs = uint64_t(1024) << log_bs;
  const uint32_t compat = le32(sb + 92), incompat = le32(sb + 96), ro_compat = le32(sb + 100);
  const bool is64 = incompat & 0x80;
  uint64_t blocks = le32(sb + 4);
  if (is64) blocks |= uint64_t(le32(sb + 0x150)) << 32;
  const uint64_t first_data = le32(sb + 20);
  const uint64_t bpg = le32(sb + 32), ipg = le32(sb + 40);
  const uint64_t inode_size = le16(sb + 88) ? le16(sb + 88) : 128;
  const uint64_t desc_size = is64 ? le16(sb + 254) : 32;
  const uint64_t reserved_gdt = le16(sb + 206);
  if (incompat & 0x10) damaged("meta_bg layout is not analysed");
  if (blocks == 0 || blocks > data_size / bs || bpg == 0 || bpg > bs * 8 || first_data >= blocks ||
      desc_size < 32 || desc_size > bs || (desc_size & (desc_size - 1)))
    damaged("its geometry does not fit the volume");
  const uint64_t groups = (blocks - first_data + bpg - 1) / bpg;
  const uint64_t gdt_blocks = (groups * desc_size + bs - 1) / bs;
  const uint64_t itable_blocks = (ipg * inode_size + bs - 1) / bs;
  const uint64_t gdt_pos = (first_data + 1) * bs;
  if (gdt_pos + groups * desc_size > blocks * bs) damaged("its group descriptors do not fit the filesystem");
  const bool sparse = ro_compat & 0x1, sparse2 = compat & 0x200;
  const uint32_t backup_bgs[2] = {le32(sb + 0x24C), le32(sb + 0x250)};
  auto has_super = [&](uint64_t g) {
    if (g == 0) return true;
    if (sparse2) return g == backup_bgs[0] || g == backup_bgs[1];
    if (!sparse) return true;
    return g == 1 || is_power_of(g, 3) || is_power_of(g, 5) || is_power_of(g, 7);
  };

  // Descriptors, in chunks: metadata locations of every group, and what each group's bitmap is.
  struct Group {
    uint64_t block_bitmap;
    bool block_uninit;
  };
  std::vector<Group> gs;  // 16 bytes per group: 1 TiB of 4 KiB blocks has 8192 groups
  gs.reserve(size_t(std::min<uint64_t>(groups, kScanChunk / sizeof(Group))));
  uint64_t used_end_block = first_data + 1 + gdt_blocks;  // superblock and descriptors of group 0
  std::vector<uint8_t> chunk;
  const uint64_t per_chunk = kScanChunk / desc_size;
  for (uint64_t g0 = 0; g0 < groups; g0 += per_chunk) {
    const uint64_t n = std::min(per_chunk, groups - g0);
    chunk.resize(size_t(n * desc_size));
    read(gdt_pos + g0 * desc_size, chunk.data(), chunk.size());
    for (uint64_t i = 0; i < n; ++i) {
      const uint8_t* d = &chunk[size_t(i * desc_size)];
      uint64_t bb = le32(d), ib = le32(d + 4), it = le32(d + 8);
      if (is64 && desc_size >= 64) {
        bb |= uint64_t(le32(d + 0x20)) << 32;
        ib |= uint64_t(le32(d + 0x24)) << 32;
        it |= uint64_t(le32(d + 0x28)) << 32;
      }
      if (bb >= blocks || ib >= blocks || it + itable_blocks > blocks) damaged("group metadata outside the filesystem");
      used_end_block = std::max({used_end_block, bb + 1, ib + 1, it + itable_blocks});
      gs.push_back({bb, (le16(d + 0x12) & 0x2) != 0});
    }
  }
  // From the last group backwards: the first group with a used block ends the used space.
  for (uint64_t g = groups; g-- > 0;) {
    const uint64_t start = first_data + g * bpg;
    const uint64_t nblocks = std::min(bpg, blocks - start);
    if (start + nblocks <= used_end_block) break;  // nothing after this can raise the end
    std::optional<uint64_t> highest;
    if (gs[g].block_uninit) {
      if (has_super(g)) highest = 1 + gdt_blocks + reserved_gdt - 1;  // superblock copy, descriptors, reserve
    } else {
      highest = highest_set_bit(read, gs[g].block_bitmap * bs, nblocks);
    }
    if (highest) {
      used_end_block = std::max(used_end_block, start + std::min(*highest + 1, nblocks));
      break;
    }
  }
  OuterFsInfo info;
  info.type = "ext2/3/4";
  info.understood = true;
  info.used_end = used_end_block * bs;
  return info;
}

}  // namespace warpvol::outer_fs
