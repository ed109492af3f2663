// Where a system-encrypted volume's plaintext lies, as VeraCrypt maps it (src/Volume/Volume.cpp,
// partitionInSystemEncryptionScope; docs/format-spec.md §2.5): the file is a whole drive (or its image); the volume is
// one partition of it -- chosen by number or, by default, the one holding the first encrypted byte -- or, without a
// partition table, the whole key scope [encrypted area start, + volume size). Or the file is an image of ONE
// partition whose start within the drive the user gives (--partition-offset): the image itself is the volume. Data
// units count from the drive's start either way. A header whose encrypted-area length differs from its volume size
// belongs to an encryption that did not finish: only [start, + length) is ciphertext, the rest is read as it lies,
// and the volume is read-only.
//
// The system header lives in the drive's sector 62, outside every partition: an image of one partition does not hold
// it, so it comes from a separate file (--header-file), as VeraCrypt itself reads it from the parent drive.
#pragma once
#include <memory>
#include <string>

#include "core/format/open.h"

namespace warpvol {

// Fills data_offset, data_size, first_unit and the encrypted extent of `o` (a System slot). Throws Error(Usage)
// for a partition number the drive lacks or a partition outside the key scope, Error(Format) for an inconsistent
// header.
void apply_system_layout(OpenedHeader& o, BlockFile& drive, const OpenOptions& opt);

// A --header-file opened and the system header found in it:
//   exactly 512 bytes: the header itself (the EFI rescue disk's EFI/VeraCrypt/svh_bak, a copy of sector 62);
//   an ISO 9660 image ("\1CD001" at 0x8000): a VeraCrypt/TrueCrypt MBR rescue disk, header at 0xd000 + 31744
//     (BootEncryption.cpp CreateRescueIsoImage: the boot loader image at TC_CD_BOOTSECTOR_OFFSET, its sector 62);
//   anything else of at least 32256 bytes: the start of the drive (its first 63 sectors, or the whole drive's
//     image), header at sector 62.
// Error(Io) when the file cannot be read, Error(Usage) for a file that is none of these.
struct SystemHeaderSource {
  std::unique_ptr<BlockFile> file;
  uint64_t offset = 0;
  std::string kind;  // "header file", "rescue disk image", "drive start"
};
SystemHeaderSource system_header_source(const std::string& path);

}  // namespace warpvol
