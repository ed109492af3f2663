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

// Encrypts then decrypts a `bytes`-long random buffer (rounded down to whole data units, at least one) repeatedly
// for at least min_seconds each, after one warm-up pass; with samples > 1, the best of that many such windows each
// way (a probe that other work on the cores can only slow). check_cancel may throw to abort.
EngineRate measure_engine(XtsEngine& engine, ChainId chain, size_t bytes, double min_seconds,
                          const std::function<void()>& check_cancel = {}, unsigned samples = 1);

}  // namespace warpvol
