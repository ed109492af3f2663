// Implements tests/support/xts_vectors.h.
#include "tests/support/xts_vectors.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

#include "core/util/bytes.h"
#include "tests/support/test_support.h"
#include "tests/support/vectors.h"

namespace wvtest {

using namespace warpvol;

std::vector<XtsProvider> engine_providers() {
  std::vector<ChainId> every;
  for (const auto& c : all_chains()) every.push_back(c.id);
  std::vector<XtsProvider> out;
  for (const auto& eng : engines_under_test()) {
    auto engine = eng.engine;
    out.push_back({eng.name, every, [engine](ChainId chain, const uint8_t* km) -> XtsProvider::Crypt {
                     std::shared_ptr<const EngineKey> key = engine->prepare(chain, km);
                     return [engine, key](Direction d, uint64_t unit0, uint8_t* data, size_t n) {
                       engine->process(*key, d, unit0, data, n);
                     };
                   }});
  }
  return out;
}

XtsProvider cipher_provider(std::string name, CipherId cipher, MakeXts make) {
  const auto chain = parse_chain(cipher_name(cipher));
  REQUIRE(chain.has_value());
  return {std::move(name), {*chain}, [cipher, make](ChainId, const uint8_t* km) -> XtsProvider::Crypt {
            std::shared_ptr<XtsCipher> x = make(km, km + 32);
            REQUIRE(x->cipher() == cipher);
            return [x](Direction d, uint64_t unit0, uint8_t* data, size_t n) { x->process(d, unit0, data, n); };
          }};
}

void check_ieee1619_vectors(const std::vector<XtsProvider>& providers) {
  const auto j = load_vectors("xts_aes256_ieee1619.json");
  REQUIRE(j.at("vectors").size() >= 5);
  for (const auto& p : providers) {
    REQUIRE(std::count(p.chains.begin(), p.chains.end(), ChainId::Aes) == 1);
    for (const auto& v : j.at("vectors")) {
      INFO(p.name << " " << v.at("name").get<std::string>());
      REQUIRE(v.at("data_unit_size").get<int>() == 512);
      REQUIRE(v.at("start_block_in_unit").get<int>() == 0);
      std::vector<uint8_t> km = hex_bytes(v.at("key1_hex"));
      const auto k2 = hex_bytes(v.at("key2_hex"));
      km.insert(km.end(), k2.begin(), k2.end());
      const auto pt = hex_bytes(v.at("plaintext_hex")), ct = hex_bytes(v.at("ciphertext_hex"));
      REQUIRE(pt.size() == 512);
      const uint64_t unit = v.at("data_unit_number").get<uint64_t>();
      auto crypt = p.key(ChainId::Aes, km.data());
      std::vector<uint8_t> buf = pt;
      crypt(Direction::Encrypt, unit, buf.data(), 1);
      CHECK(to_hex(buf) == to_hex(ct));
      crypt(Direction::Decrypt, unit, buf.data(), 1);
      CHECK(to_hex(buf) == to_hex(pt));
    }
  }
}

void check_cascade_crc_vectors(const std::vector<XtsProvider>& providers) {
  const auto j = load_vectors("xts_cascades_crc.json");
  const auto unit = hex_bytes(j.at("plaintext_unit_hex"));
  REQUIRE(unit.size() == 512);
  std::vector<uint8_t> plain;
  for (int i = 0; i < 4; ++i) plain.insert(plain.end(), unit.begin(), unit.end());
  REQUIRE(crc32(plain.data(), plain.size()) == hex_u32(j.at("plaintext_buffer_crc32")));
  for (const auto& p : providers) {
    int entries = 0;
    for (const auto& e : j.at("entries")) {
      const auto id = parse_chain(e.at("ea").get<std::string>());
      REQUIRE(id.has_value());
      if (std::find(p.chains.begin(), p.chains.end(), *id) == p.chains.end()) continue;
      ++entries;
      const auto& info = chain_info(*id);
      INFO(p.name << " " << info.name);
      // The file's encryption order is VeraCrypt's; the chain table must agree with it.
      REQUIRE(e.at("encryption_order").size() == info.order.size());
      for (size_t i = 0; i < info.order.size(); ++i)
        CHECK(e.at("encryption_order")[i].get<std::string>() == std::string(cipher_name(info.order[i])));
      const size_t K = info.key_size();
      std::vector<uint8_t> km(2 * K);
      for (size_t i = 0; i < info.order.size(); ++i) {
        const auto k1 = hex_bytes(e.at("primary_keys_hex").at(i)), k2 = hex_bytes(e.at("secondary_keys_hex").at(i));
        REQUIRE((k1.size() == 32 && k2.size() == 32));
        std::memcpy(km.data() + 32 * i, k1.data(), 32);
        std::memcpy(km.data() + K + 32 * i, k2.data(), 32);
      }
      auto crypt = p.key(*id, km.data());
      int c = 0;
      for (const auto& [name, crc] : e.at("data_units_crc32").items()) {
        INFO(name);
        REQUIRE(name.find("case" + std::to_string(c)) == 0);
        const uint64_t first = 0xFFFFFFFFFFull - uint64_t(c);
        std::vector<uint8_t> buf = plain;
        crypt(Direction::Encrypt, first, buf.data(), 4);
        CHECK(crc32(buf.data(), buf.size()) == hex_u32(crc));
        crypt(Direction::Decrypt, first, buf.data(), 4);
        CHECK(buf == plain);
        ++c;
      }
      CHECK(c == 4);
      std::vector<uint8_t> buf = plain;
      crypt(Direction::Encrypt, 0, buf.data(), 4);
      CHECK(crc32(buf.data(), buf.size()) == hex_u32(e.at("buffer_crc32_start_unit_0")));
    }
    INFO(p.name);
    CHECK(entries >= 1);
  }
}

}  // namespace wvtest
