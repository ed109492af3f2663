// Opening a path that should be a volume, a keyfile or another data file without ever blocking in open(2): a FIFO
// opened for reading waits for a writer forever, and a character device (a tty, /dev/zero) is no volume either.
#pragma once
#include <sys/stat.h>

#include <string>

namespace warpvol {

// Opens `path` with `flags` (O_RDONLY, O_RDWR, O_CREAT..., O_CLOEXEC is added) and O_NONBLOCK, so the open
// returns at once whatever the path is; fstat()s it and refuses anything but a regular file or a block device with
// Error(Io) "<what>: not a regular file or block device"; then clears O_NONBLOCK. A directory gets its own
// message. Other errors: throw_errno(what). `what` names the path in messages (defaults to the path). Returns the
// descriptor, *st filled when given.
int open_regular_or_block(const std::string& path, int flags, const std::string& what = "", struct stat* st = nullptr,
                          mode_t create_mode = 0600);

}  // namespace warpvol
