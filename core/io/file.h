// Random-access files under the volume code. PosixFile is the real one; the crash tests' FailFile
// (tests/support/fail_file.h) wraps another and fails or "loses power" at the N-th write (after KeePassXC's
// FailDevice).
#pragma once
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>

#include "core/util/error.h"

namespace warpvol {

// An Error that keeps the errno behind it: the system call's, or the one a device operation stands for (EROFS for a
// write to a read-only device, ENOSPC past its end), so that the FUSE process can answer with it (errno_of).
class IoError : public Error {
 public:
  IoError(ErrorKind kind, const std::string& message, int err) : Error(kind, message), err_(err) {}
  int err() const { return err_; }

 private:
  int err_;
};
// Throws IoError("<what>: <strerror(err)>", err), of the kind throw_errno gives.
[[noreturn]] void throw_io_errno(const std::string& what, int err);

// Runs f and returns 0, or the negative errno of what it threw: IoError's, ENOMEM for an allocation, EIO for
// anything else (an injected fault, an engine failure). The FUSE process replies with it.
template <class F>
int errno_of(F&& f) noexcept {
  try {
    f();
    return 0;
  } catch (const IoError& e) {
    return -e.err();
  } catch (const std::bad_alloc&) {
    return -ENOMEM;
  } catch (...) {
    return -EIO;
  }
}

class BlockFile {
 public:
  virtual ~BlockFile() = default;
  virtual uint64_t size() const = 0;
  // Full reads/writes or Error(Io). Reading past the end is an error.
  virtual void read_at(uint64_t offset, uint8_t* buf, size_t len) = 0;
  virtual void write_at(uint64_t offset, const uint8_t* buf, size_t len) = 0;
  virtual void sync() = 0;  // fsync: a commit point relies on it
  // fdatasync where the file has it: the data durable, metadata only as far as needed to read it back.
  virtual void sync_data() { sync(); }
  virtual bool writable() const = 0;
  virtual const std::string& path() const = 0;
  virtual void truncate(uint64_t new_size) = 0;
  // Bulk write that bypasses the page cache (O_DIRECT) where the file system allows it: no copy of the data through
  // the kernel, so a CPU-bound writer (create's fill) keeps its cores for encryption. buf, offset and len must be
  // multiples of kDirectAlign. Returns false, having written nothing, when this file cannot do it (then write_at);
  // throws Error(Io) on a real write error. Default: not supported.
  virtual bool write_at_direct(uint64_t offset, const uint8_t* buf, size_t len) { return false; }
  // The same for reads: no second page cache under one the caller keeps (FUSE) and no copy out of it. Returns false
  // when this file cannot do it for this request (then read_at); the first refusal of an aligned request turns it
  // off for good. Thread-safe.
  virtual bool read_at_direct(uint64_t offset, uint8_t* buf, size_t len) { return false; }
  // Copies [src_offset, src_offset + len) of `src` to [offset, offset + len) of this file inside the kernel
  // (copy_file_range: from one file's pages to the other's, no buffer of ours in between, one copy per byte).
  // Returns false, having written nothing, where these two files cannot (another kind of file, file systems that
  // refuse, block devices): then read and write_at. Throws Error(Io) on a real error. Default: not supported.
  virtual bool copy_range_from(BlockFile& src, uint64_t src_offset, uint64_t offset, uint64_t len) { return false; }
  // Whether several threads writing disjoint ranges at once add throughput. Block devices: yes (Linux takes no
  // inode lock for their writes). A regular file: no. Its writes serialise on the inode's lock in Linux file
  // systems (buffered writes everywhere; tmpfs's O_DIRECT is buffered too), and writers waiting for that lock spin
  // on the CPU while its owner runs, so extra writers add CPU time and take cores from the job's readers and
  // engine without adding bytes. Jobs write such a file from one thread.
  virtual bool parallel_writes() const { return false; }
};

// Wraps a file an operation opens for writing (tests: fault injection with FailFile).
using FileWrapper = std::function<std::unique_ptr<BlockFile>(std::unique_ptr<BlockFile>)>;

constexpr size_t kDirectAlign = 4096;  // alignment of write_at_direct's buffer, offset and length

// A second descriptor of the same open file, with O_DIRECT and `access` (O_RDONLY or O_WRONLY), opened through
// /proc/self/fd so that a rename of the path in between does not matter. -1 where the file system does not do
// O_DIRECT (tmpfs before Linux 6.6, some FUSE file systems). The caller closes it.
int reopen_direct(int fd, int access);

enum class OpenMode { ReadOnly, ReadWrite, CreateNew /* O_EXCL, mode 0600 */, CreateTruncate /* mode 0600 */ };

// Opens a regular file or block device. Error kinds: Io (missing, unreadable, is a directory),
// Busy (CreateNew on an existing file).
std::unique_ptr<BlockFile> open_file(const std::string& path, OpenMode mode);
// A BlockFile over a descriptor opened elsewhere (warpvol-mountd gets its container that way); it takes the
// descriptor and closes it. `path` names it in messages. Throws Error(Io) when fstat or the size query fails.
std::unique_ptr<BlockFile> adopt_file(int fd, const std::string& path, bool writable);
// path exists and is a block device (a job writes it from several threads, a regular file from one).
bool is_block_device(const std::string& path);

}  // namespace warpvol
