// ECB known answers for every block cipher (testvectors/block_ciphers_ecb.json, VeraCrypt's Tests.c) through core's
// block-cipher factory. The SIMD paths run the same file from their own tests (test_simd_ciphers.cpp).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/crypto/cipher.h"
#include "core/util/bytes.h"
#include "tests/support/vectors.h"

using namespace warpvol;

TEST_CASE("ECB vectors for every block cipher", "[vectors][cipher]") {
  auto j = wvtest::load_vectors("block_ciphers_ecb.json");
  int checked = 0;
  for (const auto& v : j["vectors"]) {
    std::string name = v["cipher"];
    auto id = parse_cipher(name.substr(0, name.find_first_of("- ")));
    REQUIRE(id.has_value());
    auto key = wvtest::hex_bytes(v["key_hex"]);
    if (key.size() != 32) continue;
    auto pt = wvtest::hex_bytes(v["plaintext_hex"]), ct = wvtest::hex_bytes(v["ciphertext_hex"]);
    auto c = make_block_cipher(*id, key.data());
    std::vector<uint8_t> out(16);
    c->encrypt(pt.data(), out.data(), 1);
    INFO(name);
    CHECK(to_hex(out) == to_hex(ct));
    c->decrypt(ct.data(), out.data(), 1);
    CHECK(to_hex(out) == to_hex(pt));
    ++checked;
  }
  CHECK(checked >= 5);
}
