// The encrypt-and-write job shared by create (fill), import and anything else that writes a whole data area: the
// job pipeline (core/job/stream.h) with the plaintext source and the engine's encryption; each chunk is written
// with a positioned write from the worker that encrypted it, one worker at a time into a regular file (its writes
// serialise on the inode lock, and writers waiting for that lock spin on the cores the engine needs:
// BlockFile::parallel_writes), several at once into a block device. Buffers are the engine's (pinned on the GPU
// engine) and aligned, so they are written with O_DIRECT where the file system allows it (write_at_direct). Every
// `sync_every` bytes a background thread fsync()s the file, so the disk writes back while the engine works instead
// of in one long fsync at the end. The file must allow write_at() from several threads and sync() concurrently
// with write_at(), as PosixFile (pwrite/fsync) and FailFile do.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/engine/xts_engine.h"
#include "core/io/file.h"
#include "core/util/progress.h"

namespace warpvol {

struct FillOptions {
  size_t chunk_bytes = size_t(8) << 20;      // per engine request; multiple of 512
  size_t writers = 0;                         // workers (each fills and encrypts a chunk); 0 = the pipeline's default
  uint64_t sync_every = uint64_t(256) << 20;  // 0 = only the caller syncs
  std::string phase = "fill";                 // for progress
  ProgressFn progress;
  CancelToken cancel;                         // checked per chunk; throws Error(Interrupted)
  // Gets one line at the end: where the workers spent their time (filling, waiting for and in the engine, writing,
  // waiting for the one writer), to tell which stage bounds the fill (--verbose).
  std::function<void(const std::string&)> summary;
};

// Source of plaintext: fill buf[0..len) with the bytes at data-area position pos (called from several threads at
// once for disjoint ranges, in no particular order). An empty source means the plaintext does not matter (a fill
// under a throw-away key, which nobody will ever decrypt): each buffer starts as zeros and is then encrypted again
// as it is, so a chunk's plaintext is the ciphertext its buffer held before. That spares a memset of the whole
// data area (docs/perf/design-figures.md, "Create").
using PlaintextSource = std::function<void(uint64_t pos, uint8_t* buf, size_t len)>;

// Encrypts `length` bytes (multiple of 512) from `source` under `key` and writes them at file offset `offset`;
// data units start at `first_unit`. Returns when everything is written (not synced, unless sync_every hit).
void encrypt_to_file(BlockFile& file, uint64_t offset, uint64_t length, uint64_t first_unit, XtsEngine& engine,
                     std::shared_ptr<const EngineKey> key, const PlaintextSource& source, const FillOptions& opt);

}  // namespace warpvol
