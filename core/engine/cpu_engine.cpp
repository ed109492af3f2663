#include "core/engine/cpu_engine.h"

#include <algorithm>

#include "core/util/error.h"

namespace warpvol {

namespace {

// The smallest piece a request is cut into toward its end (32 KiB): enough data units for every kernel's batch,
// and a few microseconds of work even for AES, so handing it over costs little.
constexpr size_t kMinPieceUnits = 64;

class CpuKey final : public EngineKey {
 public:
  CpuKey(ChainId id, const uint8_t* key_material, IsaLevel level) : chain_(id, key_material, level) {}
  ChainId chain() const override { return chain_.id(); }
  const XtsChain& xts() const { return chain_; }

 private:
  XtsChain chain_;
};

// TrueCrypt's legacy modes: portable code only (64-bit-block ciphers, CBC chains), they exist to be read once.
class LegacyKey final : public EngineKey {
 public:
  LegacyKey(LegacySuite s, const uint8_t* key, uint64_t base) : crypt_(s, key, base) {}
  // Engines route legacy keys by legacy() before they look at a chain; there is no XTS chain to name.
  ChainId chain() const override { throw Error(ErrorKind::Format, "a legacy-mode key has no XTS chain"); }
  const LegacyCrypt* legacy() const override { return &crypt_; }

 private:
  LegacyCrypt crypt_;
};

// Runs a request through a legacy key: whole units per piece. LRW blocks and CBC sectors are independent per
// unit, so pieces run in parallel as XTS ones do.
void legacy_process(ThreadPool& pool, const LegacyCrypt& c, Direction d, uint64_t unit0, uint8_t* data,
                    size_t nunits) {
  pool.parallel_ranges(nunits, kMinPieceUnits, kChunkUnits, [&](size_t first, size_t end) {
    c.units(d, unit0 + first, data + first * kDataUnitSize, end - first);
  });
}

const CpuKey& cpu_key(const EngineKey& k) {
  auto* p = dynamic_cast<const CpuKey*>(&k);
  if (!p) throw Error(ErrorKind::Usage, "engine key was prepared by another engine");
  return *p;
}

}  // namespace

CpuEngine::CpuEngine(unsigned threads) : CpuEngine(threads, active_isa()) {}

CpuEngine::CpuEngine(unsigned threads, IsaLevel max_level)
    : level_(max_level), pool_(std::make_unique<ThreadPool>(threads)) {}

std::string CpuEngine::detail() const {
  const unsigned n = threads();
  return std::to_string(n) + (n == 1 ? " thread, " : " threads, ") + std::string(isa_name(level_)) + " path";
}

std::shared_ptr<const EngineKey> CpuEngine::prepare(ChainId chain, const uint8_t* key_material) {
  return std::make_shared<CpuKey>(chain, key_material, level_);
}

std::shared_ptr<const EngineKey> CpuEngine::prepare_legacy(LegacySuite suite, const uint8_t* key,
                                                           uint64_t lrw_unit_base) {
  return std::make_shared<LegacyKey>(suite, key, lrw_unit_base);
}

void CpuEngine::process(const EngineKey& key, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) {
  if (const LegacyCrypt* l = key.legacy()) return legacy_process(*pool_, *l, d, unit0, data, nunits);
  const XtsChain& chain = cpu_key(key).xts();
  // Each piece (at most a 256 KiB chunk) goes through every cascade layer while it is in cache.
  pool_->parallel_ranges(nunits, kMinPieceUnits, kChunkUnits, [&](size_t first, size_t end) {
    chain.process(d, unit0 + first, data + first * kDataUnitSize, end - first);
  });
}

void CpuEngine::reencrypt(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                          size_t nunits) {
  reencrypt_each(from, to, unit0, data, nunits, {});
}

void CpuEngine::reencrypt_each(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                               size_t nunits, const UnitsDone& done) {
  if (from.legacy() || to.legacy()) {  // a migration away from a legacy mode: two passes per piece
    pool_->parallel_ranges(nunits, kMinPieceUnits, kChunkUnits, [&](size_t first, size_t end) {
      uint8_t* p = data + first * kDataUnitSize;
      const size_t n = end - first;
      if (const LegacyCrypt* l = from.legacy()) l->units(Direction::Decrypt, unit0 + first, p, n);
      else cpu_key(from).xts().decrypt(unit0 + first, p, n);
      if (const LegacyCrypt* l = to.legacy()) l->units(Direction::Encrypt, unit0 + first, p, n);
      else cpu_key(to).xts().encrypt(unit0 + first, p, n);
      if (done) done(first, end);
    });
    return;
  }
  const XtsChain& a = cpu_key(from).xts();
  const XtsChain& b = cpu_key(to).xts();
  pool_->parallel_ranges(nunits, kMinPieceUnits, kChunkUnits, [&](size_t first, size_t end) {
    uint8_t* p = data + first * kDataUnitSize;
    a.decrypt(unit0 + first, p, end - first);
    b.encrypt(unit0 + first, p, end - first);
    if (done) done(first, end);
  });
}

}  // namespace warpvol
