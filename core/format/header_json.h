// An opened header described for programs and people: the JSON object of `warpvol info --json` (also the header
// record a mount keeps and the GUI's properties window shows; tests parse it back), and the names the text form
// uses. Here, next to the header, so that every shell describes a volume the same way.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/format/open.h"

namespace warpvol {

nlohmann::ordered_json header_json(const OpenedHeader& h, const std::string& path);

// The volume's encryption as shown: name ("AES-Twofish"), command-line name, mode ("XTS", "LRW", "CBC"), ciphers
// in encryption order, key bits.
struct EncryptionText {
  std::string name, cli_name, mode;
  std::vector<std::string> order;
  size_t key_bits = 0;
};
EncryptionText encryption_text(const OpenedHeader& h);

std::string format_name(VolumeFormat f);             // "VeraCrypt", "TrueCrypt"
std::string flags_text(uint32_t flags);              // "none", "system-encryption, in-place-encryption", "0x10 (unknown)"
std::string program_version_text(uint16_t version);  // "0x010b"

}  // namespace warpvol
