// Random-access files under the volume code. PosixFile is the real one; the crash tests' FailFile
// (tests/support/fail_file.h) wraps another and fails or "loses power" at the N-th write (after KeePassXC's
// FailDevice).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace warpvol {

class BlockFile {
 public:
  virtual ~BlockFile() = default;
  virtual uint64_t size() const = 0;
  // Full reads/writes or Error(Io). Reading past the end is an error.
  virtual void read_at(uint64_t offset, uint8_t* buf, size_t len) = 0;
  virtual void write_at(uint64_t offset, const uint8_t* buf, size_t len) = 0;
  virtual void sync() = 0;  // fsync: a commit point relies on it
  virtual bool writable() const = 0;
  virtual const std::string& path() const = 0;
  virtual void truncate(uint64_t new_size) = 0;
  // Bulk write that bypasses the page cache (O_DIRECT) where the file system allows it: no copy of the data through
  // the kernel, so a CPU-bound writer (create's fill) keeps its cores for encryption. buf, offset and len must be
  // multiples of kDirectAlign. Returns false, having written nothing, when this file cannot do it (then write_at);
  // throws Error(Io) on a real write error. Default: not supported.
  virtual bool write_at_direct(uint64_t offset, const uint8_t* buf, size_t len) { return false; }
};

constexpr size_t kDirectAlign = 4096;  // alignment of write_at_direct's buffer, offset and length

// A second descriptor of the same open file, with O_DIRECT and `access` (O_RDONLY or O_WRONLY), opened through
// /proc/self/fd so that a rename of the path in between does not matter. -1 where the file system does not do
// O_DIRECT (tmpfs before Linux 6.6, some FUSE file systems). The caller closes it.
int reopen_direct(int fd, int access);

enum class OpenMode { ReadOnly, ReadWrite, CreateNew /* O_EXCL, mode 0600 */, CreateTruncate /* mode 0600 */ };

// Opens a regular file or block device. Error kinds: Io (missing, unreadable, is a directory),
// Busy (CreateNew on an existing file).
std::unique_ptr<BlockFile> open_file(const std::string& path, OpenMode mode);

}  // namespace warpvol
