// The container lock between mounts and create/import --force: the FUSE process holds an exclusive flock() on the
// container (lock_container_fd), and a command that replaces a container holds the same lock from its check until
// its rename. A flock() from another open file description stands in for a mount starting at that moment.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <string>

#include "core/create/create.h"
#include "core/create/output_file.h"
#include "core/io/atomic_file.h"
#include "core/io/container_lock.h"
#include "core/util/error.h"
#include "tests/support/create_support.h"
#include "tests/support/test_support.h"

using namespace warpvol;
using namespace wvtest;

namespace {

// An open file description of path (as `warpvol mount` passes one to the FUSE process); closed at destruction.
struct Fd {
  int fd;
  explicit Fd(const std::string& path) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) { REQUIRE(fd >= 0); }
  ~Fd() { ::close(fd); }
};

// Whether a mount starting now could lock path (the lock is dropped again at once).
bool lockable(const std::string& path) {
  Fd f(path);
  if (::flock(f.fd, LOCK_EX | LOCK_NB) == 0) return true;
  REQUIRE(errno == EWOULDBLOCK);
  return false;
}

std::string busy_message(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Busy) return e.what();
    throw;
  }
  return {};
}

}  // namespace

TEST_CASE("container lock: a replacing output holds the old file's lock until its rename", "[create][lock]") {
  TempDir d;
  const std::string target = d.file("vol.hc");
  write_bytes(target, {1, 2, 3});
  Fd opened_by_mount(target);  // a mount that opened the container but has not locked it yet
  {
    AtomicFile out(target, true);
    out.lock_target();
    write_bytes(out.temp_path(), {4, 5, 6});
    CHECK_FALSE(lockable(target));  // a mount starting now is refused
    out.commit();
  }
  CHECK(file_bytes(target) == std::vector<uint8_t>{4, 5, 6});
  CHECK(lockable(target));  // the new file is free
  // The mount that opened the old file before the rename gets its lock only now, on a file without a name: refused.
  const std::string msg = busy_message([&] { lock_container_fd(opened_by_mount.fd, target); });
  CHECK(msg.find("replaced") != std::string::npos);
}

TEST_CASE("container lock: a mount that began before the commit keeps its container", "[create][lock]") {
  TempDir d;
  const std::string target = d.file("vol.hc");
  {
    AtomicFile out(target, true);
    out.lock_target();  // no target yet: nothing to lock
    write_bytes(out.temp_path(), {4, 5, 6});
    write_bytes(target, {1, 2, 3});  // appears, and is mounted, before the commit
    Fd mount(target);
    lock_container_fd(mount.fd, target);
    const std::string msg = busy_message([&] { out.commit(); });
    CHECK(msg.find("in use") != std::string::npos);
  }
  CHECK(file_bytes(target) == std::vector<uint8_t>{1, 2, 3});
  CHECK(dir_entries(d.path().string()) == std::vector<std::string>{"vol.hc"});  // the temporary file is gone
}

TEST_CASE("container lock: the FUSE process's lock refuses a second mount and keeps out create --force",
          "[create][lock]") {
  TempDir d;
  const std::string target = d.file("vol.hc");
  write_bytes(target, {1, 2, 3});
  Fd first(target), second(target);
  lock_container_fd(first.fd, target);
  CHECK(busy_message([&] { lock_container_fd(second.fd, target); }).find("in use") != std::string::npos);
  CHECK(busy_message([&] { refuse_container_in_use(target); }).find("in use") != std::string::npos);
  CHECK(busy_message([&] {
          AtomicFile out(target, true);
          out.lock_target();
        }).find("in use") != std::string::npos);
  CHECK(dir_entries(d.path().string()) == std::vector<std::string>{"vol.hc"});
}

TEST_CASE("container lock: create --force holds the lock of the volume it replaces while it writes",
          "[create][lock]") {
  TempDir d;
  const std::string target = d.file("vol.hc");
  write_bytes(target, {1, 2, 3});
  CreateOptions o = normal_options(target, 299008, "pw", ChainId::Aes, PrfId::Sha512, true);
  o.force = true;
  bool checked = false, lockable_while_writing = true;
  o.wrap_file = [&](std::unique_ptr<BlockFile> f) {
    lockable_while_writing = lockable(target);  // a mount of the old volume starting mid-create
    checked = true;
    return f;
  };
  create_volume(o);
  CHECK(checked);
  CHECK_FALSE(lockable_while_writing);
  CHECK(opens(target, open_opts("pw")));
  CHECK(lockable(target));
}
