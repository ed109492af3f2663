// The data path of a job that reads a data area and transforms it on the engine: export (decrypt, in order, to a
// file, stdout or a device) and anything else that streams a whole area through the engine. Several workers each
// take the next chunk, read it with a positioned read (disjoint ranges: on tmpfs and most devices reads scale with
// the number of readers, where one reader alone is the bound), process it on the engine (a synchronous call: the
// GPU engine's pipeline overlaps the workers' chunks, the CPU engine spreads each over its pool) and hand it to the
// sink. With an engine that takes several callers (the GPU's pipeline), an ordered stream's readers and engine
// callers are threads of their own, and an unordered stream keeps a spare worker reading while a worker waits for
// the GPU's round trip: either way the reads never pause for the engine. Buffers come from the engine
// (XtsEngine::io_buffer): pinned on the GPU engine, so no staging copy.
// Ordered sinks (a pipe, a device or a file written in order) get the chunks in order from the calling thread, with
// up to `in_flight` chunks read ahead; unordered sinks (positioned writes, each chunk from the worker that
// processed it, while it is still in that core's cache; a re-encryption zone's checksum entries) are called from
// the workers as each chunk is done, `sink_threads` at a time. The sink owns the output's checks and commit: this
// file moves bytes only.
// The general form takes any in-place transform of a chunk (re-encryption's decrypt-then-encrypt, by volume part)
// and can work in a caller's buffer that keeps the whole area (a re-encryption hot zone, written out afterwards).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/engine/xts_engine.h"
#include "core/util/progress.h"

namespace warpvol {

// Bytes per read and engine request when the caller does not say. An engine that takes several callers (the GPU)
// gets smaller chunks: the ring of chunks in flight then stays in the CPU's last-level cache between the read into
// a buffer and the GPU's DMA from it and back, instead of each byte crossing host memory once more each way
// (docs/perf/measurements-2026-11-27.md).
constexpr size_t kStreamChunk = size_t(8) << 20;
constexpr size_t kStreamChunkMultiCaller = size_t(4) << 20;

struct StreamOptions {
  size_t chunk_bytes = 0;                // per read and engine request (a multiple of 512); 0 = kStreamChunk, or
                                         // kStreamChunkMultiCaller with an engine that takes several callers
  unsigned workers = 0;                  // reads under way at once; 0 = default_stream_workers (an ordered ring
                                         // with engine callers: default_ring_readers). With an engine that takes
                                         // several callers, as many more threads hold its requests (ordered: one
                                         // engine caller per request; unordered: spare workers)
  size_t in_flight = 0;                  // chunks read ahead of an ordered sink; 0 = 2 x workers, at least 4;
                                         // with an engine that takes several callers, readers + 2 per caller
  bool ordered = true;                   // sink called in order from the calling thread, else from the workers
  unsigned sink_threads = 0;             // unordered: sink calls at once (1: one writer at a time); 0 = any
  std::string phase = "stream";
  ProgressFn progress;
  CancelToken cancel;                    // checked per chunk; throws Error(Interrupted)
  // The whole area's buffer (at least length bytes), chunk at pos in region + pos, instead of a ring of buffers:
  // nothing is read ahead of the sink beyond the area, and the caller keeps the result.
  uint8_t* region = nullptr;
  // Gets one line at the end: where the threads spent their time (reading, waiting for and in the engine, the
  // sink), to tell which stage bounds the job (--verbose).
  std::function<void(const std::string&)> summary;
};

// Fills buf[0..len) with the area's bytes at pos (ciphertext, or plaintext when no engine is given). Called from
// several threads at once for disjoint ranges.
using ChunkSource = std::function<void(uint64_t pos, uint8_t* buf, size_t len)>;
// Takes the processed bytes at pos.
using ChunkSink = std::function<void(uint64_t pos, const uint8_t* buf, size_t len)>;

// Transforms buf[0..len), the chunk at pos, in place. Called from up to `slots` threads at once.
struct ChunkTransform {
  std::function<void(uint64_t pos, uint8_t* buf, size_t len)> fn;
  unsigned slots = 1;
  std::function<IoBuffer(size_t)> buffer;  // ring buffers (the engine's io_buffer); empty: page-aligned memory
};

// Streams [0, length) from source through transform (none: bytes go through unchanged) to sink. Ring buffers are
// wiped before they are released (a region is the caller's). Returns when the sink took everything; rethrows the
// first error.
void stream_area(uint64_t length, const ChunkSource& source, const ChunkTransform& transform, const ChunkSink& sink,
                 const StreamOptions& opt);

// Streams [0, length) from source through engine (direction d, data unit of position 0 = first_unit; no engine:
// bytes go through unchanged) to sink. With an engine, length and chunk_bytes must be multiples of 512. Buffers
// are wiped before they are released. Returns when the sink took everything; rethrows the first error.
void stream_area(uint64_t length, const ChunkSource& source, XtsEngine* engine, std::shared_ptr<const EngineKey> key,
                 Direction d, uint64_t first_unit, const ChunkSink& sink, const StreamOptions& opt);

// Readers for a job: one per 4 cores (2..8), or WARPVOL_STREAM_WORKERS. An engine that takes several callers at
// once (the GPU's pipeline) leaves the cores idle, so its jobs read with twice as many (up to 16): one reader
// alone is the bound on tmpfs and most devices, and more than that only added host memory traffic.
unsigned default_stream_workers(unsigned engine_concurrency = 1);

// Readers of an ordered ring whose engine callers are threads of their own (the export through the GPU): the cores
// left beside the callers' requests (each keeps one thread of the engine busy: the GPU agent's stream threads wait
// for their CUDA events spinning), the sink and the callers' wake-ups, at least default_stream_workers and at most
// 16. Fewer readers left the engine callers waiting for chunks; more took cores that the callers and the sink then
// lacked (docs/perf/measurements-2026-12-04-session41.md). WARPVOL_STREAM_WORKERS sets it too.
unsigned default_ring_readers(unsigned engine_callers);

}  // namespace warpvol
