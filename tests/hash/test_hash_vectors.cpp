// Hash, HMAC and CRC-32 known answers (testvectors/hashes.json, hmac.json, crc32.json) through core's PRF and
// CRC functions.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/kdf/prf.h"
#include "core/util/bytes.h"
#include "tests/support/test_support.h"

using namespace warpvol;

TEST_CASE("Hash vectors", "[vectors][hash]") {
  auto j = wvtest::load_vectors("hashes.json");
  int n = 0;
  for (auto it = j["vectors"].begin(); it != j["vectors"].end(); ++it) {
    auto prf = parse_prf(it.key());
    REQUIRE(prf.has_value());
    for (const auto& v : it.value()) {
      auto in = wvtest::hex_bytes(v["input_hex"]);
      CHECK(to_hex(hash_bytes(*prf, in.data(), in.size())) == v["digest_hex"].get<std::string>());
      ++n;
    }
  }
  CHECK(n >= 10);
}

TEST_CASE("HMAC vectors", "[vectors][hmac]") {
  auto j = wvtest::load_vectors("hmac.json");
  for (const auto& v : j["vectors"]) {
    PrfId prf = wvtest::prf_from_vector_name(v["prf"]);
    auto key = wvtest::hex_bytes(v["key_hex"]), data = wvtest::hex_bytes(v["data_hex"]);
    auto mac = hmac_bytes(prf, key.data(), key.size(), data.data(), data.size());
    std::string want = v["mac_hex"];
    INFO(v["prf"].get<std::string>());
    CHECK(to_hex(mac).substr(0, want.size()) == want);
  }
}

TEST_CASE("CRC-32 vectors", "[vectors][crc]") {
  CHECK(crc32(reinterpret_cast<const uint8_t*>("123456789"), 9) == 0xCBF43926u);
  auto j = wvtest::load_vectors("crc32.json");
  for (const auto& v : j["vectors"]) {
    if (!v.contains("input_hex")) continue;
    auto in = wvtest::hex_bytes(v["input_hex"]);
    CHECK(crc32(in.data(), in.size()) == wvtest::hex_u32(v["crc32"]));
  }
}
