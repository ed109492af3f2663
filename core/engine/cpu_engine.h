// Multi-threaded CPU engine: a pool sized to the cores; work is split in 256 KiB chunks, each chunk goes through
// every layer of the cascade while it is hot in cache.
#pragma once
#include <memory>

#include "core/engine/xts_engine.h"
#include "core/util/thread_pool.h"

namespace warpvol {

class CpuEngine : public XtsEngine {
 public:
  // threads = 0: one per core. max_level bounds the SIMD path (defaults to the active level).
  explicit CpuEngine(unsigned threads = 0);
  CpuEngine(unsigned threads, IsaLevel max_level);
  std::string name() const override { return "cpu"; }
  std::string detail() const override;
  unsigned threads() const { return pool_->size(); }
  std::shared_ptr<const EngineKey> prepare(ChainId chain, const uint8_t* key_material) override;
  std::shared_ptr<const EngineKey> prepare_legacy(LegacySuite suite, const uint8_t* key,
                                                  uint64_t lrw_unit_base) override;
  void process(const EngineKey& key, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) override;
  void reencrypt(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                 size_t nunits) override;
  void reencrypt_each(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data, size_t nunits,
                      const UnitsDone& done) override;

 private:
  IsaLevel level_;
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace warpvol
