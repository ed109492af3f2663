#include "core/format/partition_table.h"

#include <array>
#include <cstdio>
#include <set>

#include "core/util/bytes.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

constexpr uint64_t kSector = 512;

std::array<uint8_t, kSector> read_sector(BlockFile& f, uint64_t lba) {
  std::array<uint8_t, kSector> s{};
  if ((lba + 1) * kSector > f.size()) throw Error(ErrorKind::Format, "partition table: sector past the image's end");
  f.read_at(lba * kSector, s.data(), kSector);
  return s;
}

bool is_extended(uint8_t type) { return type == 0x05 || type == 0x0f || type == 0x85; }

std::string mbr_type(uint8_t t) {
  char b[16];
  std::snprintf(b, sizeof b, "mbr 0x%02x", t);
  return b;
}

// A GUID as text: the first three fields are stored little-endian.
std::string guid_text(const uint8_t* g) {
  char b[40];
  std::snprintf(b, sizeof b, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", load_le32(g),
                unsigned(g[4] | g[5] << 8), unsigned(g[6] | g[7] << 8), g[8], g[9], g[10], g[11], g[12], g[13],
                g[14], g[15]);
  return b;
}

std::vector<Partition> read_gpt(BlockFile& f) {
  const auto h = read_sector(f, 1);
  if (std::string(reinterpret_cast<const char*>(h.data()), 8) != "EFI PART")
    throw Error(ErrorKind::Format, "partition table: protective MBR without a GPT header at sector 1");
  const uint64_t entries_lba = load_le64(h.data() + 72);
  const uint32_t count = load_le32(h.data() + 80), entry_size = load_le32(h.data() + 84);
  if (entry_size < 128 || entry_size > 4096 || entry_size % 8 || count > 16384)
    throw Error(ErrorKind::Format, "partition table: GPT header with an implausible entry array");
  std::vector<uint8_t> arr(size_t(count) * entry_size);
  if (entries_lba * kSector + arr.size() > f.size())
    throw Error(ErrorKind::Format, "partition table: GPT entries past the image's end");
  f.read_at(entries_lba * kSector, arr.data(), arr.size());
  std::vector<Partition> out;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* e = arr.data() + size_t(i) * entry_size;
    bool used = false;
    for (int k = 0; k < 16; ++k) used |= e[k] != 0;
    if (!used) continue;
    const uint64_t first = load_le64(e + 32), last = load_le64(e + 40);
    if (last < first) continue;
    out.push_back({int(i) + 1, first * kSector, (last - first + 1) * kSector, "gpt " + guid_text(e)});
  }
  return out;
}

}  // namespace

std::vector<Partition> read_partition_table(BlockFile& f) {
  if (f.size() < kSector) return {};
  const auto mbr = read_sector(f, 0);
  if (mbr[510] != 0x55 || mbr[511] != 0xaa) return {};
  std::vector<Partition> out;
  std::optional<uint64_t> extended_lba;
  for (int i = 0; i < 4; ++i) {
    const uint8_t* e = mbr.data() + 446 + 16 * i;
    const uint8_t type = e[4];
    const uint64_t lba = load_le32(e + 8), n = load_le32(e + 12);
    if (type == 0 || n == 0) continue;
    if (type == 0xee) return read_gpt(f);
    if (is_extended(type)) {
      if (!extended_lba) extended_lba = lba;
      continue;
    }
    out.push_back({i + 1, lba * kSector, n * kSector, mbr_type(type)});
  }
  // Logical partitions: a chain of EBRs, each's first entry relative to itself, its link relative to the
  // extended partition's start.
  if (extended_lba) {
    std::set<uint64_t> seen;
    uint64_t ebr = *extended_lba;
    int number = 5;
    while (true) {
      if (!seen.insert(ebr).second) throw Error(ErrorKind::Format, "partition table: the EBR chain loops");
      const auto s = read_sector(f, ebr);
      if (s[510] != 0x55 || s[511] != 0xaa) break;
      const uint8_t* e = s.data() + 446;
      if (e[4] != 0 && load_le32(e + 12) != 0)
        out.push_back({number++, (ebr + load_le32(e + 8)) * kSector, uint64_t(load_le32(e + 12)) * kSector,
                       mbr_type(e[4])});
      const uint8_t* link = s.data() + 446 + 16;
      if (!is_extended(link[4]) || load_le32(link + 12) == 0) break;
      ebr = *extended_lba + load_le32(link + 8);
    }
  }
  return out;
}

std::optional<Partition> partition_containing(const std::vector<Partition>& parts, uint64_t offset) {
  for (const auto& p : parts)
    if (offset >= p.offset && offset - p.offset < p.size) return p;
  return std::nullopt;
}

}  // namespace warpvol
