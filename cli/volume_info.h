// Opening a volume for a command (file checks before any password prompt) and describing an opened header as
// text or JSON (the `info` command; tests parse the JSON back).
#pragma once
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/format/open.h"
#include "core/io/file.h"

namespace warpvol::cli {

// Opens VOLUME read-only and rejects what cannot be a volume before a password is asked for.
std::unique_ptr<BlockFile> open_volume_file(const std::string& path);

nlohmann::ordered_json header_json(const OpenedHeader& h, const std::string& path);
void print_header_text(std::ostream& os, const OpenedHeader& h, const std::string& path);

std::string format_name(VolumeFormat f);  // "VeraCrypt", "TrueCrypt"
std::string flags_text(uint32_t flags);   // "none", "system-encryption, in-place-encryption", "0x10 (unknown)"

}  // namespace warpvol::cli
