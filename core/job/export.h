// Export: the whole decrypted data area of an opened volume, in order, to standard output, to a device or FIFO
// written in place, or to a regular file made through AtomicFile (core/io/atomic_file.h), so that a failure or an
// interrupt leaves no file behind. `warpvol export` is a thin shell over it.
//
// Data path: core/job/stream.h (several workers read chunks with positioned reads, the engine decrypts them in its
// own buffers, pinned on the GPU engine). The output takes the chunks in order from one thread, whatever it is: a
// file's writes serialise on its inode lock, and writers waiting for it spin on the cores the readers and the engine
// need (core/io/file.h, BlockFile::parallel_writes).
#pragma once
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/engine/xts_engine.h"
#include "core/util/progress.h"

namespace warpvol {

class AtomicFile;
class Volume;

// Where an export's plaintext goes: "-" (standard output), a device or FIFO written in place, or a regular file.
class ExportTarget {
 public:
  // Checks only, nothing is created yet (a wrong password must not leave files behind): standard output must not
  // be a terminal; an existing regular file needs `force` and a block device too (its content is destroyed); the
  // target must not be the volume itself (volume_st: the container's stat, or null) nor a folder. Error(Usage),
  // Error(Busy) or Error(Io) otherwise.
  ExportTarget(std::string path, bool force, const struct stat* volume_st);
  ~ExportTarget();
  ExportTarget(const ExportTarget&) = delete;
  ExportTarget& operator=(const ExportTarget&) = delete;

  // A regular file (new or replaced), written with positioned writes from one thread at a time: the engine's
  // one-writer rule (core/engine/engine_factory.h).
  bool to_file() const { return kind_ == Kind::TempFile; }
  // "standard output" or the path, for messages.
  std::string display() const;

  // Opens the target (a regular file: its temporary file, mode 0600).
  void create();
  // In order, for every kind (cancel: stops a write blocked on a pipe; Error(Interrupted)).
  void write(const uint8_t* p, size_t n, const CancelToken& cancel);
  // Positioned, regular files only.
  void write_at(uint64_t off, const uint8_t* p, size_t n);
  // The export's commit point: the temporary file renamed into place; a device or FIFO synced and closed.
  void commit();

 private:
  enum class Kind { Stdout, Direct, TempFile };
  std::string path_;
  bool force_;
  Kind kind_ = Kind::TempFile;
  int fd_ = -1;
  std::unique_ptr<AtomicFile> temp_;
};

struct ExportOptions {
  size_t chunk_bytes = 0;  // per read and engine request; 0 = the stream's default (core/job/stream.h)
  ProgressFn progress;     // phase "export"
  CancelToken cancel;      // Error(Interrupted); the target is not committed
  std::function<void(const std::string&)> summary;  // the stream's stage line (--verbose)
};

// Creates `out`, streams vol's data area through `engine` (decrypt) into it and commits it. On any error the target
// is left uncommitted (a regular file: nothing at its path changed) and the error is rethrown.
void export_volume(Volume& vol, XtsEngine& engine, ExportTarget& out, const ExportOptions& opt);

}  // namespace warpvol
