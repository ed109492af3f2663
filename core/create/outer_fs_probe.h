// Internals of the outer-filesystem scan (outer_fs.h): one probe per filesystem, each in its own file
// (outer_fat.cpp, outer_exfat.cpp, outer_ntfs.cpp, outer_ext4.cpp), and the helpers they share. A probe returns
// nullopt when the boot sector / superblock is not its filesystem, and throws Error(Format) when it is but its
// metadata is inconsistent (then nothing can be trusted about the used space). Every read of metadata whose size
// the filesystem itself claims goes through bounded chunks: the scan's memory is O(kScanChunk), whatever the
// (possibly hostile) boot sector says.
#pragma once
#include <cstdint>
#include <optional>

#include "core/create/outer_fs.h"

namespace warpvol::outer_fs {

constexpr size_t kScanChunk = size_t(1) << 20;

inline uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
inline uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

// The index of the highest set bit among the first nbits bits of a bitmap (bit i = byte i/8, bit i%8) stored at
// [offset, offset + ceil(nbits/8)) of the plaintext; nullopt when none is set. Reads kScanChunk bytes at a time,
// from the end backwards (used space usually ends early, but the answer is at the end).
std::optional<uint64_t> highest_set_bit(const PlaintextReader& read, uint64_t offset, uint64_t nbits);

// `head` holds the first head_len bytes of the plaintext (at least 69632 when the volume is that large).
std::optional<OuterFsInfo> probe_fat(const PlaintextReader& read, const uint8_t* head, size_t head_len,
                                     uint64_t data_size);
std::optional<OuterFsInfo> probe_exfat(const PlaintextReader& read, const uint8_t* head, size_t head_len,
                                       uint64_t data_size);
std::optional<OuterFsInfo> probe_ntfs(const PlaintextReader& read, const uint8_t* head, size_t head_len,
                                      uint64_t data_size);
std::optional<OuterFsInfo> probe_ext4(const PlaintextReader& read, const uint8_t* head, size_t head_len,
                                      uint64_t data_size);

}  // namespace warpvol::outer_fs
