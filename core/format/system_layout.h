// Where a system-encrypted volume's plaintext lies, as VeraCrypt maps it (src/Volume/Volume.cpp,
// partitionInSystemEncryptionScope; docs/format-spec.md §2.5): the file is a whole drive (or its image); the volume is
// one partition of it -- chosen by number or, by default, the one holding the first encrypted byte -- or, without a
// partition table, the whole key scope [encrypted area start, + volume size). Data units count from the drive's
// start. A header whose encrypted-area length differs from its volume size belongs to an encryption that did not
// finish: only [start, + length) is ciphertext, the rest is read as it lies, and the volume is read-only.
#pragma once
#include "core/format/open.h"

namespace warpvol {

// Fills data_offset, data_size, first_unit and the encrypted extent of `o` (a System slot). Throws Error(Usage)
// for a partition number the drive lacks or one outside the key scope, Error(Format) for an inconsistent header.
void apply_system_layout(OpenedHeader& o, BlockFile& drive, const OpenOptions& opt);

}  // namespace warpvol
