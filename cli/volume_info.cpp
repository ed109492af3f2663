#include "cli/volume_info.h"

#include <cstdio>
#include <ostream>

#include "cli/command.h"
#include "core/crypto/chain.h"
#include "core/format/header.h"
#include "core/kdf/prf.h"
#include "core/util/error.h"

namespace warpvol::cli {

std::unique_ptr<BlockFile> open_volume_file(const std::string& path) {
  if (path.empty()) throw Error(ErrorKind::Usage, "empty volume path");
  auto file = open_file(path, OpenMode::ReadOnly);
  if (file->size() < kHeaderSize)
    throw Error(ErrorKind::Auth, path + ": not a TrueCrypt/VeraCrypt volume (" + std::to_string(file->size()) +
                                     " bytes, smaller than one " + std::to_string(kHeaderSize) + "-byte header)");
  return file;
}

std::string format_name(VolumeFormat f) { return f == VolumeFormat::TrueCrypt ? "TrueCrypt" : "VeraCrypt"; }

std::string flags_text(uint32_t flags) {
  std::string s;
  auto add = [&](const std::string& x) { s += (s.empty() ? "" : ", ") + x; };
  if (flags & kFlagSystem) add("system-encryption");
  if (flags & kFlagInPlace) add("in-place-encryption");
  uint32_t rest = flags & ~(kFlagSystem | kFlagInPlace);
  if (rest) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%x (unknown)", rest);
    add(buf);
  }
  return s.empty() ? "none" : s;
}

namespace {
std::string hex16(uint16_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}
std::string header_used(const OpenedHeader& h) {
  return std::string(h.from_backup ? "backup" : "primary") + " header (" + std::string(slot_kind_name(h.slot)) +
         " slot) at offset " + std::to_string(h.header_offset);
}
}  // namespace

// Name, cli name, ciphers in encryption order, mode and key bits of the volume's encryption (XTS chain or legacy).
struct EncryptionText {
  std::string name, cli_name, mode;
  std::vector<std::string> order;
  size_t key_bits = 0;
};
EncryptionText encryption_text(const OpenedHeader& h) {
  EncryptionText e;
  if (h.legacy) {
    const LegacyEaInfo& ea = legacy_ea_info(h.legacy->ea);
    e.name = std::string(ea.name);
    e.cli_name = std::string(ea.cli_name);
    e.mode = std::string(legacy_mode_name(h.legacy->mode));
    for (LegacyCipherId c : ea.order) e.order.push_back(std::string(legacy_cipher_info(c).name));
    e.key_bits = ea.cipher_key_bytes() * 8;
    return e;
  }
  const ChainInfo& ci = chain_info(h.chain);
  e.name = std::string(ci.name);
  e.cli_name = std::string(ci.cli_name);
  e.mode = "XTS";
  for (CipherId c : ci.order) e.order.push_back(std::string(cipher_name(c)));
  e.key_bits = ci.key_size() * 8;
  return e;
}

nlohmann::ordered_json header_json(const OpenedHeader& h, const std::string& path) {
  const EncryptionText et = encryption_text(h);
  const HeaderFields& f = h.fields;
  nlohmann::ordered_json ciphers = nlohmann::ordered_json::array();
  for (const auto& c : et.order) ciphers.push_back(c);
  nlohmann::ordered_json kdf = {{"prf", std::string(prf_info(h.kdf.prf).cli_name)},
                        {"prf_name", h.kdf.prf == PrfId::Argon2id ? std::string("Argon2id")
                                                                  : "HMAC-" + std::string(prf_info(h.kdf.prf).name)},
                        {"description", h.kdf.describe()}};
  if (h.kdf.prf == PrfId::Argon2id) {
    kdf["t_cost"] = h.kdf.argon2.t_cost;
    kdf["m_cost_kib"] = h.kdf.argon2.m_cost_kib;
  } else {
    kdf["iterations"] = h.kdf.iterations;
  }
  nlohmann::ordered_json flags = nlohmann::ordered_json::array();
  if (f.flags & kFlagSystem) flags.push_back("system-encryption");
  if (f.flags & kFlagInPlace) flags.push_back("in-place-encryption");
  return {
      {"volume", path},
      {"format", format_name(h.format)},
      {"header_version", f.version},
      {"required_program_version", hex16(f.required_version)},
      {"volume_type", std::string(slot_kind_name(h.slot))},
      {"encryption", et.name},
      {"encryption_cli", et.cli_name},
      {"encryption_order", ciphers},
      {"mode", et.mode},
      {"key_bits", et.key_bits},
      {"legacy", h.legacy.has_value()},
      {"prf", std::string(prf_info(h.kdf.prf).cli_name)},
      {"kdf", kdf},
      {"sector_size", f.sector_size},
      {"data_offset", h.data_offset},
      {"data_size", h.data_size},
      {"first_data_unit", h.first_unit},
      {"volume_size", f.volume_size},
      {"hidden_volume_size", f.hidden_volume_size},
      {"encrypted_area_start", f.encrypted_area_start},
      {"encrypted_area_length", f.encrypted_area_length},
      {"header", {{"used", h.from_backup ? "backup" : "primary"},
                  {"slot", std::string(slot_kind_name(h.slot))},
                  {"offset", h.header_offset}}},
      {"flags", f.flags},
      {"flag_names", flags},
      {"master_key_vulnerable", h.master_key_vulnerable},
  };
}

void print_header_text(std::ostream& os, const OpenedHeader& h, const std::string& path) {
  const EncryptionText et = encryption_text(h);
  const HeaderFields& f = h.fields;
  auto row = [&](const std::string& k, const std::string& v) {
    os << k << ":" << std::string(k.size() < 22 ? 22 - k.size() : 1, ' ') << v << "\n";
  };
  row("Volume", path);
  row("Format", format_name(h.format));
  row("Header version", std::to_string(f.version) + " (requires program version " + hex16(f.required_version) + ")");
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
