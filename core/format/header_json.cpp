#include "core/format/header_json.h"

#include <cstdio>

#include "core/crypto/chain.h"
#include "core/format/header.h"
#include "core/kdf/prf.h"

namespace warpvol {

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

std::string program_version_text(uint16_t version) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", version);
  return buf;
}

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
  nlohmann::ordered_json j = {
      {"volume", path},
      {"format", format_name(h.format)},
      {"header_version", f.version},
      {"required_program_version", program_version_text(f.required_version)},
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
  if (!h.header_file.empty()) j["header"]["file"] = h.header_file;
  return j;
}

}  // namespace warpvol
