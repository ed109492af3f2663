// Replacing or creating a file atomically: the bytes go to a temporary file in the target's folder and are renamed
// into place only after everything was written and fsync()ed; the folder is fsync()ed after the rename. A failure,
// an interrupt or a power cut before the rename leaves the previous target (or none) as it was; at worst a temporary
// file stays behind after a power cut. Every file warpvol writes whole goes through here: created volumes and
// keyfiles, header backups, exported images, the re-encryption journal, the mount registry.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/io/container_lock.h"
#include "core/io/file.h"

namespace warpvol {

class AtomicFile {
 public:
  // Creates the temporary file now (mode 0600); Error(Io) when the folder does not take it.
  //  replace    false: commit() refuses an existing target with Error(Busy) "file exists (use --force ...)";
  //  wrap       tests: wraps the temporary file (e.g. in a FailFile) when file() first opens it;
  //  temp_path  "": a fresh ".NAME.warpvol-XXXXXX" next to the target, removed when not committed. Otherwise this
  //             fixed path, truncated: a store that rewrites the same file over and over (the journal) leaves at
  //             most one temporary file behind after a crash, and the next store reuses it.
  explicit AtomicFile(std::string target, bool replace = true, FileWrapper wrap = {}, std::string temp_path = {});
  ~AtomicFile();  // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Opens the temporary file on first use. Thread-safe: several threads may ask for it at once (one open).
  BlockFile& file();
  const std::string& temp_path() const { return temp_; }
  // Reserves `size` bytes (fallocate; ftruncate where unsupported), before file(): a full disk or a file-size limit
  // (FAT32's 4 GiB) shows up at once, not after hours of writing. On tmpfs, where fallocate costs a pass over
  // memory, the free space is checked and the file only sized.
  void reserve(uint64_t size);
  // Takes the target's container lock (core/io/container_lock.h) now and holds it until the rename: a target that
  // is mounted, or whose mount starts meanwhile, is refused with Error(Busy) and kept. For volumes replaced with
  // --force; call it before writing.
  void lock_target();
  // sync, rename into place, fsync of the folder. The rename is the commit point.
  void commit();

 private:
  std::string target_, temp_;
  bool replace_;
  bool lock_target_ = false;
  ContainerLock target_lock_;
  FileWrapper wrap_;
  std::mutex file_mu_;  // guards the first open of file_
  std::unique_ptr<BlockFile> file_;
  bool committed_ = false;
};

// atomic_replace(path, bytes): the whole of `data` as the new content of `path` (mode 0600).
void atomic_replace(const std::string& path, const void* data, size_t len);
inline void atomic_replace(const std::string& path, const std::string& content) {
  atomic_replace(path, content.data(), content.size());
}

}  // namespace warpvol
