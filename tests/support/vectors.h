// Reading testvectors/: the folder, JSON files in it, and the hex strings they hold. One loader for every test.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace wvtest {

std::string vectors_dir();  // testvectors/
// testvectors/NAME parsed; throws naming the file when it cannot be read.
nlohmann::json load_vectors(const std::string& name);
// A JSON hex string as bytes (core's from_hex: throws on odd length or a non-hex digit).
std::vector<uint8_t> hex_bytes(const nlohmann::json& hex);
// A CRC field written as hex ("cbf43926") as a number.
uint32_t hex_u32(const nlohmann::json& hex);

std::string read_text(const std::string& path);
std::vector<uint8_t> read_binary(const std::string& path);

}  // namespace wvtest
