// Whole-buffer reads and writes on a descriptor, after cryptsetup's lib/utils_io: the system calls may transfer
// fewer bytes than asked (pipes, signals, network and FUSE file systems) or fail with EINTR when a signal arrives
// without SA_RESTART; these loops are the one place that handles both. They return errno-style results, not
// exceptions, so the FUSE process can answer with the errno and the callers that throw name the file themselves.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace warpvol {

// Asked after a call was interrupted by a signal or transferred only part of the rest; returning true stops the loop
// (the result is -1 with errno EINTR), so that a cancelled operation does not wait on, say, a pipe whose reader
// stopped.
using StopOnSignal = std::function<bool()>;

// Reads until `len` bytes or end of file: returns the bytes read (fewer than len only at end of file), or -1 with
// errno set.
ssize_t read_full(int fd, void* buf, size_t len, const StopOnSignal& stop = {});
// Writes all `len` bytes: returns len, or -1 with errno set (EIO where the kernel accepted nothing without an error).
ssize_t write_full(int fd, const void* buf, size_t len, const StopOnSignal& stop = {});
// Positioned variants (pread/pwrite): the file offset of fd is not used or changed.
ssize_t pread_full(int fd, void* buf, size_t len, uint64_t offset);
ssize_t pwrite_full(int fd, const void* buf, size_t len, uint64_t offset);

// fsync of a folder, so that a rename or unlink in it is durable. Throws Error(Io); a file system that cannot sync
// folders (EINVAL) is not an error: there is nothing more to do there.
void fsync_folder(const std::string& folder);
// The folder a path lies in ("." for a bare name).
std::string folder_of(const std::string& path);

}  // namespace warpvol
