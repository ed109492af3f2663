#include "cli/volume_info.h"

#include <ostream>

#include "cli/command.h"
#include "core/format/header.h"
#include "core/format/header_json.h"

namespace warpvol::cli {

namespace {
std::string header_used(const OpenedHeader& h) {
  return std::string(h.from_backup ? "backup" : "primary") + " header (" + std::string(slot_kind_name(h.slot)) +
         " slot) at offset " + std::to_string(h.header_offset) + (h.header_file.empty() ? "" : " of " + h.header_file);
}
}  // namespace

void print_header_text(std::ostream& os, const OpenedHeader& h, const std::string& path) {
  const EncryptionText et = encryption_text(h);
  const HeaderFields& f = h.fields;
  auto row = [&](const std::string& k, const std::string& v) {
    os << k << ":" << std::string(k.size() < 22 ? 22 - k.size() : 1, ' ') << v << "\n";
  };
  row("Volume", path);
  row("Format", format_name(h.format));
  row("Header version", std::to_string(f.version) + " (requires program version " +
                            program_version_text(f.required_version) + ")");
  row("Volume type", std::string(slot_kind_name(h.slot)));
  row("Encryption", et.name + " (" + et.mode + ", " + std::to_string(et.key_bits) + "-bit key" +
                        (h.legacy ? ", TrueCrypt before 5.0" : "") + ")");
  row("Key derivation", h.kdf.describe());
  row("Sector size", std::to_string(f.sector_size) + " bytes");
  row("Data offset", std::to_string(h.data_offset));
  row("Data size", std::to_string(h.data_size) + " (" + format_bytes(h.data_size) + ")");
  row("First data unit", std::to_string(h.first_unit));
  if (f.hidden_volume_size) row("Hidden volume size", std::to_string(f.hidden_volume_size));
  if (f.encrypted_area_length != f.volume_size || f.encrypted_area_start != h.data_offset)
    row("Encrypted area", std::to_string(f.encrypted_area_start) + " + " + std::to_string(f.encrypted_area_length));
  row("Header used", header_used(h));
  row("Flags", flags_text(f.flags));
  if (h.master_key_vulnerable) row("Warning", "primary and secondary master keys are equal (XTS key vulnerable)");
}

}  // namespace warpvol::cli
