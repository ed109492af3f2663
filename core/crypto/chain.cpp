#include "core/crypto/chain.h"

#include <algorithm>
#include <cctype>

#include "core/util/error.h"

namespace warpvol {

namespace {
using C = CipherId;
std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
  return r;
}
}  // namespace

const std::vector<ChainInfo>& all_chains() {
  static const std::vector<ChainInfo> chains = {
      {ChainId::Aes, "AES", "aes", {C::Aes}, true},
      {ChainId::Serpent, "Serpent", "serpent", {C::Serpent}, true},
      {ChainId::Twofish, "Twofish", "twofish", {C::Twofish}, true},
      {ChainId::Camellia, "Camellia", "camellia", {C::Camellia}, false},
      {ChainId::Kuznyechik, "Kuznyechik", "kuznyechik", {C::Kuznyechik}, false},
      {ChainId::AesTwofish, "AES-Twofish", "aes-twofish", {C::Twofish, C::Aes}, true},
      {ChainId::AesTwofishSerpent, "AES-Twofish-Serpent", "aes-twofish-serpent", {C::Serpent, C::Twofish, C::Aes}, true},
      {ChainId::CamelliaKuznyechik, "Camellia-Kuznyechik", "camellia-kuznyechik", {C::Kuznyechik, C::Camellia}, false},
      {ChainId::CamelliaSerpent, "Camellia-Serpent", "camellia-serpent", {C::Serpent, C::Camellia}, false},
      {ChainId::KuznyechikAes, "Kuznyechik-AES", "kuznyechik-aes", {C::Aes, C::Kuznyechik}, false},
      {ChainId::KuznyechikSerpentCamellia, "Kuznyechik-Serpent-Camellia", "kuznyechik-serpent-camellia",
       {C::Camellia, C::Serpent, C::Kuznyechik}, false},
      {ChainId::KuznyechikTwofish, "Kuznyechik-Twofish", "kuznyechik-twofish", {C::Twofish, C::Kuznyechik}, false},
      {ChainId::SerpentAes, "Serpent-AES", "serpent-aes", {C::Aes, C::Serpent}, true},
      {ChainId::SerpentTwofishAes, "Serpent-Twofish-AES", "serpent-twofish-aes", {C::Aes, C::Twofish, C::Serpent}, true},
      {ChainId::TwofishSerpent, "Twofish-Serpent", "twofish-serpent", {C::Serpent, C::Twofish}, true},
  };
  return chains;
}

const ChainInfo& chain_info(ChainId id) {
  for (const auto& c : all_chains())
    if (c.id == id) return c;
  throw Error(ErrorKind::Usage, "unknown encryption algorithm id");
}

std::optional<ChainId> parse_chain(std::string_view name) {
  const std::string n = lower(name);
  for (const auto& c : all_chains())
    if (n == c.cli_name || n == lower(c.name)) return c.id;
  return std::nullopt;
}

std::string chain_names_list() {
  std::string s;
  for (const auto& c : all_chains()) {
    if (!s.empty()) s += ", ";
    s += c.cli_name;
  }
  return s;
}

XtsChain::XtsChain(ChainId id, const uint8_t* key_material, IsaLevel max_level) : id_(id) {
  const ChainInfo& info = chain_info(id);
  const size_t K = info.key_size();
  for (size_t i = 0; i < info.order.size(); ++i)
    layers_.push_back(make_xts(info.order[i], key_material + 32 * i, key_material + K + 32 * i, max_level));
}

void XtsChain::encrypt(uint64_t unit0, uint8_t* data, size_t nunits) const {
  for (const auto& layer : layers_) layer->encrypt(unit0, data, nunits);
}

void XtsChain::decrypt(uint64_t unit0, uint8_t* data, size_t nunits) const {
  for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) (*it)->decrypt(unit0, data, nunits);
}

std::string XtsChain::impl_names() const {
  std::string s;
  for (const auto& l : layers_) {
    if (!s.empty()) s += "+";
    s += std::string(cipher_name(l->cipher())) + ":" + std::string(l->impl_name());
  }
  return s;
}

void chain_header_crypt(ChainId id, const uint8_t* header_key, Direction d, uint8_t* bytes448) {
  const ChainInfo& info = chain_info(id);
  const size_t K = info.key_size();
  const size_t n = info.order.size();
  constexpr size_t kHeaderBlocks = 448 / kBlockSize;
  for (size_t step = 0; step < n; ++step) {
    const size_t i = d == Direction::Encrypt ? step : n - 1 - step;
    auto data = make_block_cipher(info.order[i], header_key + 32 * i);
    auto tweak = make_block_cipher(info.order[i], header_key + K + 32 * i);
    xts_blocks(*data, *tweak, d, 0, bytes448, kHeaderBlocks);
  }
}

}  // namespace warpvol
