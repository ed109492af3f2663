// Throughput of an engine for one chain on random data (never zeros, which flatter table lookups): what
// `warpvol benchmark` prints and the GUI's benchmark dialog charts, so both measure the same way.
#pragma once
#include <cstddef>
#include <functional>

#include "core/engine/xts_engine.h"

namespace warpvol {

struct EngineRate {
  double encrypt_MBps = 0;
  double decrypt_MBps = 0;
};

// Which of the two directions measure_engine times (the other's figure stays 0).
enum class RatePasses { Both, Encrypt, Decrypt };

// Encrypts then decrypts a `bytes`-long random buffer (rounded down to whole data units, at least one) repeatedly
// for at least min_seconds each, after one warm-up pass; with samples > 1, the best of that many such windows each
// way (a probe that other work on the cores can only slow); `passes` leaves out a direction the caller does not
// use. check_cancel may throw to abort.
EngineRate measure_engine(XtsEngine& engine, ChainId chain, size_t bytes, double min_seconds,
                          const std::function<void()>& check_cancel = {}, unsigned samples = 1,
                          RatePasses passes = RatePasses::Both);

}  // namespace warpvol
