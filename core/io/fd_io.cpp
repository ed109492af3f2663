#include "core/io/fd_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "core/util/error.h"

namespace warpvol {

namespace {

// One loop for all four: `op(p, n, done)` transfers up to n bytes at p, `done` bytes into the request.
template <class Op>
ssize_t transfer_full(size_t len, bool writing, const StopOnSignal& stop, Op op) {
  size_t done = 0;
  while (done < len) {
    const ssize_t r = op(done);
    if (r < 0) {
      const int e = errno;
      if (e == EINTR && !(stop && stop())) continue;
      errno = e;  // stop() may have changed it
      return -1;
    }
    if (r == 0) {
      if (!writing) break;  // end of file
      errno = EIO;          // a write that makes no progress would loop forever
      return -1;
    }
    done += size_t(r);
    // A signal that arrives after part of the request was done shows as a short count, not EINTR.
    if (done < len && stop && stop()) {
      errno = EINTR;
      return -1;
    }
  }
  return ssize_t(done);
}

}  // namespace

ssize_t read_full(int fd, void* buf, size_t len, const StopOnSignal& stop) {
  auto* p = static_cast<uint8_t*>(buf);
  return transfer_full(len, false, stop, [&](size_t done) { return ::read(fd, p + done, len - done); });
}

ssize_t write_full(int fd, const void* buf, size_t len, const StopOnSignal& stop) {
  const auto* p = static_cast<const uint8_t*>(buf);
  return transfer_full(len, true, stop, [&](size_t done) { return ::write(fd, p + done, len - done); });
}

ssize_t pread_full(int fd, void* buf, size_t len, uint64_t offset) {
  auto* p = static_cast<uint8_t*>(buf);
  return transfer_full(len, false, {},
                       [&](size_t done) { return ::pread(fd, p + done, len - done, off_t(offset + done)); });
}

ssize_t pwrite_full(int fd, const void* buf, size_t len, uint64_t offset) {
  const auto* p = static_cast<const uint8_t*>(buf);
  return transfer_full(len, true, {},
                       [&](size_t done) { return ::pwrite(fd, p + done, len - done, off_t(offset + done)); });
}

void fsync_folder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw_errno("cannot open folder " + folder);
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int e = errno;
    ::close(fd);
    throw_errno("cannot fsync folder " + folder, e);
  }
  ::close(fd);
}

std::string folder_of(const std::string& path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return dir.empty() ? std::string(".") : dir.string();
}

}  // namespace warpvol
