// How a half re-encrypted container is recognised (core/reencrypt/reencrypt.h has the whole protocol).
//
// While a container is being re-encrypted its header slots hold headers whose "required program version" field
// (offset 70, docs/format-spec.md §3.1) is kReencryptMarkerVersion. VeraCrypt (C++ VolumeHeader::Deserialize and the C
// ReadVolumeHeader) and TrueCrypt 7.1a refuse such a header with "a newer version is required" instead of mounting
// a data area that is half old and half new ciphertext; warpvol's open_header recognises the exact value and says
// to run `warpvol reencrypt --resume`. The value is above every VeraCrypt (0x0126 = 1.26) and TrueCrypt (0x071a)
// version and far from the legacy-layout thresholds (< 0x0600 / < 0x010b).
#pragma once
#include <cstdint>
#include <string>

namespace warpvol {

constexpr uint16_t kReencryptMarkerVersion = 0xFE01;
// Part of open_header's message for such a header (re-encryption recognises it).
constexpr const char* kHalfReencryptedPhrase = "is half re-encrypted";

// The resume state of a re-encryption lives next to the container: "<volume>.warpvol-reencrypt" in the volume's
// folder (or in --journal-dir).
constexpr const char* kReencryptJournalSuffix = ".warpvol-reencrypt";

}  // namespace warpvol
