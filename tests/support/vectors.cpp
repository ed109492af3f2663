// Implements tests/support/vectors.h.
#include "tests/support/vectors.h"

#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "core/util/bytes.h"

namespace wvtest {

std::string vectors_dir() {
#ifdef WARPVOL_VECTORS_DIR
  return WARPVOL_VECTORS_DIR;
#else
  return "testvectors";
#endif
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<uint8_t> read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

nlohmann::json load_vectors(const std::string& name) {
  const std::string path = vectors_dir() + "/" + name;
  try {
    return nlohmann::json::parse(read_text(path));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

std::vector<uint8_t> hex_bytes(const nlohmann::json& hex) { return warpvol::from_hex(hex.get<std::string>()); }

uint32_t hex_u32(const nlohmann::json& hex) { return uint32_t(std::stoul(hex.get<std::string>(), nullptr, 16)); }

}  // namespace wvtest
