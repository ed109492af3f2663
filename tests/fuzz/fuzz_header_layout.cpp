// The checks of a decrypted header and the layout decision open_header makes after it (no key derivation):
// check_header, parse_header and open_decrypted_header on a plaintext header in a container of any claimed size.
//
// Input: u8 flags | u8 chain index | u64 container size | u64 system partition | 512-byte plaintext header
//   system partition: top bit set: --partition-offset (the other 63 bits; the container is then the partition's
//   image), else --partition N (N = the low 3 bits, 0: none given).
//   flags bits 0-1: slot (normal, hidden, system, legacy hidden); bit 2: the embedded backup location;
//   bit 3: TrueCrypt (else VeraCrypt); bit 4: recompute both CRCs (so mutations reach the checks behind them).
//   Only combinations open_header can produce are formed: the system slot implies --system, the legacy hidden slot
//   TrueCrypt.
//
// Beyond the sanitizers it checks what every accepted header must satisfy: the data area lies inside the container
// and starts on a 512-byte boundary, parse_header agrees with what was opened, and for the V2 layouts (normal and
// hidden slots) the data area is a non-empty whole number of 512-byte units that leaves both header groups alone
// (the first and the last 128 KiB); a VeraCrypt header never selects a TrueCrypt 5 (V1) layout.
#include <cstring>

#include "core/format/open.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "tests/fuzz/support.h"

using namespace warpvol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* p = data;
  size_t n = size;
  const unsigned flags = unsigned(fuzz::take_le(p, n, 1));
  const auto& chains = all_chains();
  const ChainInfo& chain = chains[fuzz::take_le(p, n, 1) % chains.size()];
  const uint64_t H = fuzz::take_le(p, n, 8);
  // --system --partition N or --partition-offset; eight bytes, as the corpus was written with them.
  const uint64_t partition = fuzz::take_le(p, n, 8);
  uint8_t plain[kHeaderSize] = {};
  std::memcpy(plain, p, std::min(n, kHeaderSize));

  if (flags & 16) {
    store_be32(plain + 72, crc32(plain + 256, 256));
    store_be32(plain + 252, crc32(plain + 64, 188));
  }
  DecryptedHeader d;
  d.plain = plain;
  d.chain = chain.id;
  d.kdf.prf = PrfId::Sha512;
  d.kdf.iterations = 1000;
  const bool backup = flags & 4;
  static const SlotKind kinds[] = {SlotKind::Normal, SlotKind::Hidden, SlotKind::System, SlotKind::LegacyHidden};
  const SlotKind kind = kinds[flags & 3];
  uint64_t at = 0;
  switch (kind) {
    case SlotKind::Normal: at = backup ? H - kHeaderGroupSize : 0; break;
    case SlotKind::Hidden: at = backup ? H - kHeaderSlotSize : kHeaderSlotSize; break;
    case SlotKind::System: at = kSystemHeaderOffset; break;
    default: at = H - 1536; break;
  }
  const VolumeFormat format =
      (flags & 8) || kind == SlotKind::LegacyHidden ? VolumeFormat::TrueCrypt : VolumeFormat::VeraCrypt;
  d.format = format;
  d.loc = {kind, at, backup && (kind == SlotKind::Normal || kind == SlotKind::Hidden)};

  OpenOptions opt;
  opt.system = kind == SlotKind::System;
  if (partition >> 63)
    opt.system_partition_offset = partition & ~(uint64_t(1) << 63);
  else if (partition % 8)
    opt.system_partition = int(partition % 8);
  opt.notice = [](const std::string&) {};
  fuzz::MemoryFile file(nullptr, 0, H);

  (void)check_header(plain, kMagicVera);
  (void)check_header(plain, kMagicTrue);
  OpenedHeader o;
  try {
    o = open_decrypted_header(file, opt, d);
  } catch (const Error&) {
    return 0;  // refused: a clear error is the expected outcome for most inputs
  }
  WARPVOL_FUZZ_CHECK(o.data_offset % 512 == 0, "data area not on a 512-byte boundary");
  WARPVOL_FUZZ_CHECK(o.data_offset <= H && o.data_size <= H - o.data_offset, "data area past the container's end");
  const HeaderFields f = parse_header(plain);
  WARPVOL_FUZZ_CHECK(f.volume_size == o.fields.volume_size && f.encrypted_area_start == o.fields.encrypted_area_start &&
                         f.flags == o.fields.flags && f.sector_size == o.fields.sector_size,
                     "opened fields differ from parse_header");
  WARPVOL_FUZZ_CHECK(o.chain == chain.id && o.format == format, "chain or format changed");
  if (o.slot == SlotKind::System) {
    WARPVOL_FUZZ_CHECK(o.encrypted_begin <= o.encrypted_end && o.encrypted_end <= o.data_size,
                       "encrypted part outside the system volume");
    if (opt.system_partition_offset)
      WARPVOL_FUZZ_CHECK(o.data_offset == 0 && o.data_size == H &&
                             o.first_unit * 512 == *opt.system_partition_offset,
                         "a partition image is not the whole file, or its units do not count from its offset");
  }
  if (format == VolumeFormat::VeraCrypt)
    WARPVOL_FUZZ_CHECK(o.slot != SlotKind::LegacyNormal && o.slot != SlotKind::LegacyHidden,
                       "a VeraCrypt header opened with the TrueCrypt 5 (V1) layout");
  if (o.slot == SlotKind::Normal || o.slot == SlotKind::Hidden) {
    WARPVOL_FUZZ_CHECK(o.data_size > 0, "empty data area accepted");
    WARPVOL_FUZZ_CHECK(o.data_size % 512 == 0, "data size not a multiple of 512 accepted");
    WARPVOL_FUZZ_CHECK(o.data_offset >= kHeaderGroupSize, "data area overlaps the primary header group");
    WARPVOL_FUZZ_CHECK(H >= kHeaderGroupSize && o.data_offset + o.data_size <= H - kHeaderGroupSize,
                       "data area overlaps the embedded backup header group");
  }
  return 0;
}
