// The data path of a job that reads a data area and transforms it on the engine: export (decrypt, in order, to a
// file, stdout or a device) and anything else that streams a whole area through the engine. Several workers each
// take the next chunk, read it with a positioned read (disjoint ranges: on tmpfs and most devices reads scale with
// the number of readers, where one reader alone is the bound), process it on the engine (a synchronous call: the
// GPU engine's pipeline overlaps the workers' chunks, the CPU engine spreads each over its pool) and hand it to the
// sink. Buffers come from the engine (XtsEngine::io_buffer): pinned on the GPU engine, so no staging copy.
// Ordered sinks (a pipe, a device written in order) get the chunks in order from the calling thread, with up to
// `in_flight` chunks read ahead; unordered sinks (positioned writes into a regular file) are called from the
// workers as each chunk is done. The sink owns the output's checks and commit: this file moves bytes only.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "core/engine/xts_engine.h"
#include "core/util/progress.h"

namespace warpvol {

struct StreamOptions {
  size_t chunk_bytes = size_t(8) << 20;  // per read and engine request (a multiple of 512)
  unsigned workers = 0;                  // readers; 0 = one per 4 cores, 2..8
  size_t in_flight = 0;                  // chunks read ahead of an ordered sink; 0 = 2 x workers, at least 4
  bool ordered = true;                   // sink called in order from the calling thread, else from the workers
  std::string phase = "stream";
  ProgressFn progress;
  CancelToken cancel;                    // checked per chunk; throws Error(Interrupted)
};

// Fills buf[0..len) with the area's bytes at pos (ciphertext, or plaintext when no engine is given). Called from
// several threads at once for disjoint ranges.
using ChunkSource = std::function<void(uint64_t pos, uint8_t* buf, size_t len)>;
// Takes the processed bytes at pos.
using ChunkSink = std::function<void(uint64_t pos, const uint8_t* buf, size_t len)>;

// Streams [0, length) from source through engine (direction d, data unit of position 0 = first_unit; no engine:
// bytes go through unchanged) to sink. With an engine, length and chunk_bytes must be multiples of 512. Buffers
// are wiped before they are released. Returns when the sink took everything; rethrows the first error.
void stream_area(uint64_t length, const ChunkSource& source, XtsEngine* engine, std::shared_ptr<const EngineKey> key,
                 Direction d, uint64_t first_unit, const ChunkSink& sink, const StreamOptions& opt);

unsigned default_stream_workers();

}  // namespace warpvol
