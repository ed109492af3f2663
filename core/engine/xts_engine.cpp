#include "core/engine/xts_engine.h"

#include <algorithm>

#include "core/crypto/unit_xxh3.h"
#include "core/util/aligned_buffer.h"
#include "core/util/error.h"

namespace warpvol {

std::shared_ptr<const EngineKey> XtsEngine::prepare_legacy(LegacySuite suite, const uint8_t*, uint64_t) {
  throw Error(ErrorKind::Usage, "the " + name() + " engine does not run TrueCrypt's legacy modes (" + suite.name() +
                                    "): use --engine cpu or auto");
}

void XtsEngine::reencrypt(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                          size_t nunits) {
  for (size_t done = 0; done < nunits; done += kChunkUnits) {
    const size_t n = std::min(kChunkUnits, nunits - done);
    uint8_t* p = data + done * kDataUnitSize;
    process(from, Direction::Decrypt, unit0 + done, p, n);
    process(to, Direction::Encrypt, unit0 + done, p, n);
  }
}

void XtsEngine::reencrypt_each(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                               size_t nunits, const UnitsDone& done) {
  reencrypt(from, to, unit0, data, nunits);
  if (nunits) done(0, nunits);
}

void XtsEngine::reencrypt_hashed(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                                 size_t nunits, uint8_t* hashes) {
  reencrypt_each(from, to, unit0, data, nunits, [data, hashes](size_t first, size_t end) {
    xxh3_128_units(data + first * kDataUnitSize, end - first, hashes + first * kUnitXxh3Bytes);
  });
}

std::future<void> XtsEngine::submit(std::shared_ptr<const EngineKey> key, Direction d, uint64_t unit0,
                                    uint8_t* data, size_t nunits) {
  return std::async(std::launch::async, [this, key = std::move(key), d, unit0, data, nunits] {
    process(*key, d, unit0, data, nunits);
  });
}

IoBuffer XtsEngine::io_buffer(size_t bytes) { return IoBuffer::aligned(bytes); }

IoBuffer IoBuffer::aligned(size_t bytes) {
  auto* b = new AlignedBuffer(bytes);
  return IoBuffer(b->data(), b->size(), [b](uint8_t*, size_t) { delete b; }, false);
}

}  // namespace warpvol
