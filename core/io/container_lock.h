// The exclusive flock() on a container that marks it in use: warpvol-mountd holds it for as long as the volume
// is mounted and reencrypt while it works. Whoever is about to replace or rewrite a container asks here first, and
// create/import hold it until their new file has been renamed over the old one.
#pragma once
#include <string>

namespace warpvol {

// Error(Busy) "<path>: in use (mounted by warpvol or being re-encrypted); dismount it first" when another open
// file description holds the lock. Nothing happens for a path that does not exist or cannot be opened (the caller's
// own checks report those).
void refuse_container_in_use(const std::string& path);

// The lock of an existing file or block device, held until destruction (or release()), so that no mount can start
// on it meanwhile. Error(Busy) as refuse_container_in_use when another holds it; holds nothing for a path that does
// not exist or cannot be opened.
class ContainerLock {
 public:
  ContainerLock() = default;
  explicit ContainerLock(const std::string& path);
  ~ContainerLock() { release(); }
  ContainerLock(ContainerLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  ContainerLock& operator=(ContainerLock&& o) noexcept;
  ContainerLock(const ContainerLock&) = delete;
  ContainerLock& operator=(const ContainerLock&) = delete;

  // Whether the lock is held on the file that `path` names now (false when nothing is held, or when the path was
  // replaced by another file since).
  bool covers(const std::string& path) const;
  void release();

 private:
  int fd_ = -1;
};

// For the FUSE process: takes the lock on `fd` (the container as opened by mount, named `path`) for fd's lifetime.
// Error(Busy) when another process holds it, or when `path` no longer names fd's file: a create/import --force
// holds the lock until its rename, so a mount that opened the old file before that rename is refused here instead
// of serving a file that no longer has a name.
void lock_container_fd(int fd, const std::string& path);

}  // namespace warpvol
