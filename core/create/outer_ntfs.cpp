// NTFS (the layout ntfs-3g and the Linux ntfs3 driver read): the $Bitmap metafile (MFT record 6) has one bit per
// cluster; the used space ends after the highest set bit. Its $DATA attribute is followed through its run list and
// read in chunks. NTFS keeps a copy of its boot sector in the volume's last sector, after the last cluster: a
// hidden volume at the end of the outer volume overwrites that copy (the primary boot sector stays).
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/create/outer_fs_probe.h"
#include "core/util/error.h"

namespace warpvol::outer_fs {
namespace {

[[noreturn]] void damaged(const std::string& what) {
  throw Error(ErrorKind::Format, "the outer volume's NTFS filesystem is inconsistent (" + what +
                                     "); check it with ntfsfix or chkdsk before adding a hidden volume");
}

uint64_t le_n(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}
int64_t sle_n(const uint8_t* p, unsigned n) {
  uint64_t v = le_n(p, n);
  if (n && n < 8 && (p[n - 1] & 0x80)) v |= ~uint64_t(0) << (8 * n);
  return int64_t(v);
}

}  // namespace

std::optional<OuterFsInfo> probe_ntfs(const PlaintextReader& read, const uint8_t* b, size_t head_len,
                                      uint64_t data_size) {
  if (head_len < 512 || std::memcmp(b + 3, "NTFS    ", 8) != 0) return std::nullopt;
  const uint64_t bps = le16(b + 11);
  if (bps < 256 || bps > 4096 || (bps & (bps - 1))) damaged("bad sector size");
  const uint8_t spc_raw = b[13];
  // Above 0x80 the byte is a negative log2; clusters past 2 MiB are refused below, so larger shifts are too.
  const uint64_t spc = spc_raw <= 0x80 ? spc_raw : 256 - spc_raw <= 21 ? uint64_t(1) << (256 - spc_raw) : 0;
  if (spc == 0 || (spc & (spc - 1)) || spc * bps > (uint64_t(2) << 20)) damaged("bad cluster size");
  const uint64_t cluster = spc * bps;
  const uint64_t total_sectors = le64(b + 40);
  if (total_sectors > data_size / bps) damaged("it is larger than the volume");
  const uint64_t clusters = total_sectors / spc;
  const uint64_t mft_lcn = le64(b + 48);
  const int8_t rec_raw = int8_t(b[64]);
  // A negative count is log2 of the size in bytes; anything past 2^16 is refused below, so larger shifts are too.
  const uint64_t rec_size = rec_raw > 0 ? uint64_t(rec_raw) * cluster
                            : -int(rec_raw) <= 16 ? uint64_t(1) << unsigned(-int(rec_raw)) : 0;
  if (rec_size < 512 || rec_size > 65536 || mft_lcn >= clusters) damaged("bad MFT location or record size");
  if (mft_lcn * cluster + 7 * rec_size > data_size) damaged("MFT record 6 lies past the end of the volume");

  // MFT record 6 is $Bitmap; apply the update sequence (the last two bytes of every 512-byte block).
  std::vector<uint8_t> rec(rec_size);
  read(mft_lcn * cluster + 6 * rec_size, rec.data(), rec.size());
  if (std::memcmp(rec.data(), "FILE", 4) != 0) damaged("MFT record 6 ($Bitmap) has no FILE signature");
  const uint16_t usa_off = le16(&rec[4]), usa_count = le16(&rec[6]);
  if (usa_count == 0 || usa_off + 2u * usa_count > rec_size || uint64_t(usa_count - 1) * 512 > rec_size)
    damaged("bad update sequence in MFT record 6");
  for (unsigned i = 1; i < usa_count; ++i) {
    uint8_t* tail = &rec[i * 512 - 2];
    if (std::memcmp(tail, &rec[usa_off], 2) != 0) damaged("torn MFT record 6");
    std::memcpy(tail, &rec[usa_off + 2 * i], 2);
  }
  // The unnamed $DATA attribute (type 0x80).
  size_t a = le16(&rec[20]);
  const uint8_t* data = nullptr;
  while (a + 16 <= rec_size) {
    const uint32_t type = le32(&rec[a]), len = le32(&rec[a + 4]);
    if (type == 0xFFFFFFFF) break;
    if (len < 16 || a + len > rec_size) damaged("bad attribute in MFT record 6");
    if (type == 0x80 && rec[a + 9] == 0) {
      data = &rec[a];
      break;
    }
    a += len;
  }
  if (!data) damaged("$Bitmap has no data attribute");
  const uint32_t attr_len = le32(data + 4);

  std::optional<uint64_t> highest;
  if (data[8] == 0) {  // resident (tiny volumes)
    const uint32_t vlen = le32(data + 16);
    const uint16_t voff = le16(data + 20);
    if (voff + uint64_t(vlen) > attr_len) damaged("bad resident $Bitmap");
    for (uint64_t i = std::min<uint64_t>(vlen * 8ull, clusters); i-- > 0;)
      if (data[voff + i / 8] >> (i % 8) & 1) {
        highest = i;
        break;
      }
  } else {
    if (attr_len < 64) damaged("bad non-resident $Bitmap");
    const uint16_t runs_off = le16(data + 32);
    if (runs_off >= attr_len) damaged("bad $Bitmap run list");
    const uint8_t* p = data + runs_off;
    const uint8_t* end = data + attr_len;
    int64_t lcn = 0;
    uint64_t bit_base = 0;  // bit number of the current run's first bit
    while (p < end && *p != 0 && bit_base < clusters) {
      const unsigned ln = *p & 0x0F, on = *p >> 4;
      if (ln == 0 || ln > 8 || on > 8 || p + 1 + ln + on > end) damaged("bad $Bitmap run list");
      const uint64_t run_clusters = le_n(p + 1, ln);
      if (run_clusters > clusters) damaged("$Bitmap run longer than the volume");
      const uint64_t run_bits = std::min<uint64_t>(run_clusters * cluster * 8, clusters - bit_base);
      if (on == 0) {
        // A sparse run reads as zeros: no cluster in it is used.
      } else {
        lcn += sle_n(p + 1 + ln, on);
        if (lcn < 0 || uint64_t(lcn) + run_clusters > clusters) damaged("$Bitmap run outside the volume");
        if (auto h = highest_set_bit(read, uint64_t(lcn) * cluster, run_bits))
          highest = std::max(highest.value_or(0), bit_base + *h);
      }
      bit_base += run_bits;
      p += 1 + ln + on;
    }
  }
  if (!highest) damaged("$Bitmap marks no cluster as used");
  OuterFsInfo info;
  info.type = "NTFS";
  info.understood = true;
  info.used_end = (*highest + 1) * cluster;
  return info;
}

}  // namespace warpvol::outer_fs
