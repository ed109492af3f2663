// The engine interface: encrypt/decrypt runs of consecutive 512-byte data units for a chain. The CPU engine
// (engine/cpu_engine.h) and the CUDA engine (gpu/) implement it; engine/engine_factory.h chooses (auto|cpu|gpu).
// Designed for batches: callers hand large runs (MiBs), and submit() lets I/O overlap with computation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>

#include "core/crypto/chain.h"
#include "core/engine/io_buffer.h"
#include "core/crypto/legacy_mode.h"

namespace warpvol {

// A chain's key prepared by one engine (expanded schedules, uploaded tables). Immutable once made.
class EngineKey {
 public:
  virtual ~EngineKey() = default;
  virtual ChainId chain() const = 0;
  // A key of TrueCrypt's legacy modes (LRW/CBC) carries its cipher here; engines that run them check this first.
  virtual const LegacyCrypt* legacy() const { return nullptr; }
};

class XtsEngine {
 public:
  virtual ~XtsEngine() = default;
  virtual std::string name() const = 0;    // "cpu", "gpu", "auto"
  virtual std::string detail() const = 0;  // threads, ISA path, device name...
  // key_material: 2K bytes (primary keys || secondary keys), as in a header's master key area.
  virtual std::shared_ptr<const EngineKey> prepare(ChainId chain, const uint8_t* key_material) = 0;
  // TrueCrypt's legacy modes (docs/format-spec.md §6.5): key = the header's key area (legacy_mode.h layout),
  // lrw_unit_base = number of the data area's first unit. Only the CPU engine runs them; the default throws
  // Error(Usage) saying so.
  virtual std::shared_ptr<const EngineKey> prepare_legacy(LegacySuite suite, const uint8_t* key,
                                                          uint64_t lrw_unit_base);
  // In place; unit0 = number of the first data unit. Thread-safe: several callers may use one engine.
  virtual void process(const EngineKey& key, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) = 0;
  // Decrypt with `from` then encrypt with `to`, in one pass over the data (re-encryption). The default runs the
  // two passes per 256 KiB chunk while it is hot in cache.
  virtual void reencrypt(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                         size_t nunits);
  // reencrypt(), handing each run of finished units to done(first, end) (unit indices within `data`): every unit
  // once, from any thread, possibly several at once; all calls returned when this returns. The CPU engine calls it
  // per piece on the thread that re-encrypted it, while the piece is hot in cache, so that a re-encryption's
  // per-unit checksums need no pass of their own over the data. The default calls done(0, nunits) at the end.
  using UnitsDone = std::function<void(size_t first, size_t end)>;
  virtual void reencrypt_each(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                              size_t nunits, const UnitsDone& done);
  // reencrypt(), and per 512-byte unit of the result its XXH3-128 (core/crypto/unit_xxh3.h) at hashes + 16 i:
  // re-encryption's checksum entries, computed where the result is. The GPU engine hashes it in device memory and
  // brings back 16 bytes per unit, so the host does not read the result once more (the hash's own pass over it
  // costs a job bound by host memory as much as a copy). The default hashes each run reencrypt_each() hands over,
  // on its thread.
  virtual void reencrypt_hashed(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                                size_t nunits, uint8_t* hashes);
  // Asynchronous form; `data` must stay valid until the future is ready. The default runs process() on a
  // separate thread.
  virtual std::future<void> submit(std::shared_ptr<const EngineKey> key, Direction d, uint64_t unit0,
                                   uint8_t* data, size_t nunits);
  // A buffer of at least `bytes` for a job's data (io_buffer.h): the engine's pinned memory on the GPU engine,
  // aligned heap memory otherwise (the default). Thread-safe.
  virtual IoBuffer io_buffer(size_t bytes);
  // Page-locks memory handed out before this engine existed (auto's buffers while the GPU engine starts), so that
  // the engine DMAs from it without a staging copy; unpin_host() undoes it before the memory is freed. The default
  // (an engine without DMA) does nothing and says so.
  virtual bool pin_host(uint8_t* p, size_t bytes) {
    (void)p, (void)bytes;
    return false;
  }
  virtual void unpin_host(uint8_t* p) { (void)p; }
  // How many callers of process()/reencrypt() at once still add throughput. The CPU engine spreads each call over
  // all cores and runs a second concurrent call on its caller's thread alone, so a pipeline that keeps several
  // chunks in flight gives it one at a time; the GPU engine overlaps one caller's copies with another's kernels.
  virtual unsigned concurrency() const { return 1; }
  // What the engine's requests cost since it was made, for a job's --verbose stage line (the GPU agent: the round
  // trips, and the part of them spent in the agent); empty where the engine has nothing to add.
  virtual std::string request_stats() const { return {}; }
  // The same two for a job's keys (b: a re-encryption's target key, or null): an engine that runs some chains
  // elsewhere (auto keeps AES and the legacy modes on the CPU) answers for where these keys' requests go.
  virtual IoBuffer io_buffer_for(size_t bytes, const EngineKey& a, const EngineKey* b = nullptr) {
    (void)a, (void)b;
    return io_buffer(bytes);
  }
  virtual unsigned concurrency_for(const EngineKey& a, const EngineKey* b = nullptr) const {
    (void)a, (void)b;
    return concurrency();
  }
  // A job calls this with its keys before it starts threads of its own (a create derives its headers' keys beside
  // the fill): an engine that chooses its path for the job by timing itself (auto, for a job bound by one writer)
  // does it now, on cores that nothing else uses yet. Without the call, the first of the two above does it.
  virtual void plan_job(const EngineKey& a, const EngineKey* b = nullptr) { (void)a, (void)b; }
};

constexpr size_t kChunkUnits = 512;  // 256 KiB, TrueCrypt's encryption primitive's chunk
constexpr size_t kChunkBytes = kChunkUnits * kDataUnitSize;

}  // namespace warpvol
