#include "core/engine/engine_benchmark.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "core/util/aligned_buffer.h"
#include "core/util/random.h"

namespace warpvol {

namespace {

// The best of `samples` windows of at least min_seconds each, after one warm-up pass.
template <class F>
double rate(F&& pass, size_t bytes, double min_seconds, unsigned samples,
            const std::function<void()>& check_cancel) {
  using Clock = std::chrono::steady_clock;
  pass();  // warm-up: first touch of pages, GPU context and key upload
  double best = 0;
  for (unsigned s = 0; s < std::max(1u, samples); ++s) {
    int passes = 0;
    const auto t0 = Clock::now();
    double el = 0;
    do {
      if (check_cancel) check_cancel();
      pass();
      ++passes;
      el = std::chrono::duration<double>(Clock::now() - t0).count();
    } while (el < min_seconds);
    best = std::max(best, double(bytes) * passes / 1e6 / el);
  }
  return best;
}

}  // namespace

EngineRate measure_engine(XtsEngine& engine, ChainId chain, size_t bytes, double min_seconds,
                          const std::function<void()>& check_cancel, unsigned samples, RatePasses passes) {
  const size_t units = std::max<size_t>(1, bytes / kDataUnitSize);
  // Page-aligned like the buffers of export, create, re-encryption and the mount, so that the figure the ratio
  // goals compare against is the one those paths can reach (a vector's data sits 16 bytes into a cache line).
  const size_t len = units * kDataUnitSize;
  AlignedBuffer buf(len);
  std::memset(buf.data(), 0, len);
  // Two random keys: the timed passes' and one that makes the data. The data is the engine's ciphertext of zeros
  // under the second key, which no table lookup tells from random bytes (random bytes from the OS, getrandom on one
  // core, cost more than all of auto's timed windows); under the timed key a decryption never gives the zeros back.
  std::vector<uint8_t> key(2 * 2 * chain_info(chain).key_size());
  random_bytes(key.data(), key.size());
  auto k = engine.prepare(chain, key.data());
  engine.process(*engine.prepare(chain, key.data() + key.size() / 2), Direction::Encrypt, 256, buf.data(), units);
  EngineRate r;
  if (passes != RatePasses::Decrypt)
    r.encrypt_MBps = rate([&] { engine.process(*k, Direction::Encrypt, 256, buf.data(), units); }, len, min_seconds,
                          samples, check_cancel);
  if (passes != RatePasses::Encrypt)
    r.decrypt_MBps = rate([&] { engine.process(*k, Direction::Decrypt, 256, buf.data(), units); }, len, min_seconds,
                          samples, check_cancel);
  return r;
}

}  // namespace warpvol
