#include "core/mount/runtime.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>

#include "core/io/atomic_file.h"
#include "core/io/fd_io.h"
#include "core/util/error.h"

namespace warpvol::mount {

namespace fs = std::filesystem;
using nlohmann::json;

std::string runtime_dir() {
  if (const char* e = std::getenv("WARPVOL_RUNTIME_DIR"); e && *e) return e;
  if (::geteuid() == 0) return "/run/warpvol";
  if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x && *x) return std::string(x) + "/warpvol";
  return "/tmp/warpvol-" + std::to_string(::geteuid());
}

std::string default_mount_root() {
  if (const char* e = std::getenv("WARPVOL_MEDIA_DIR"); e && *e) return e;
  if (::geteuid() == 0) return "/media/warpvol";
  return runtime_dir() + "/media";
}

std::string record_to_json(const MountRecord& r) {
  json j = {{"slot", r.slot},
            {"state", r.state},
            {"owner_pid", r.owner_pid},
            {"volume", r.volume},
            {"volume_dev", r.volume_dev},
            {"volume_ino", r.volume_ino},
            {"aux_dir", r.aux_dir},
            {"plaintext_device", r.plaintext_device},
            {"loop_device", r.loop_device},
            {"mount_point", r.mount_point},
            {"filesystem", r.filesystem},
            {"mount_helper", r.mount_helper},
            {"created_dirs", r.created_dirs},
            {"pid", r.pid},
            {"pid_start", r.pid_start},
            {"read_only", r.read_only},
            {"protect_hidden", r.protect_hidden},
            {"protected_start", r.protected_start},
            {"protected_end", r.protected_end},
            {"volume_type", r.volume_type},
            {"format", r.format},
            {"chain", r.chain},
            {"prf", r.prf},
            {"engine", r.engine},
            {"size", r.size},
            {"mounted_at", r.mounted_at},
            {"uid", r.uid},
            {"header_info", r.header_info}};
  return j.dump(2) + "\n";
}

namespace {

// An integer field as T, `fallback` when absent. nlohmann's get<T>() would convert a float such as 1e300 with a
// static_cast (undefined behaviour) and wrap integers T cannot hold: those are refused as malformed.
template <class T>
T int_field(const char* what, const json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (it->is_number_unsigned()) {
    const uint64_t v = it->get<uint64_t>();
    if (v <= uint64_t(std::numeric_limits<T>::max())) return T(v);
  } else if (it->is_number_integer()) {
    const int64_t v = it->get<int64_t>();
    if (v >= 0 ? uint64_t(v) <= uint64_t(std::numeric_limits<T>::max())
               : std::is_signed_v<T> && v >= int64_t(std::numeric_limits<T>::min()))
      return T(v);
  }
  throw Error(ErrorKind::Format, std::string(what) + ": \"" + key + "\" is not an integer in range");
}

}  // namespace

MountRecord record_from_json(const std::string& text) {
  try {
    json j = json::parse(text);
    MountRecord r;
    r.slot = int_field("mount record", j, "slot", 0);
    r.state = j.value("state", "mounted");
    r.owner_pid = int_field("mount record", j, "owner_pid", 0);
    r.volume = j.value("volume", "");
    r.volume_dev = int_field("mount record", j, "volume_dev", uint64_t(0));
    r.volume_ino = int_field("mount record", j, "volume_ino", uint64_t(0));
    r.aux_dir = j.value("aux_dir", "");
    r.plaintext_device = j.value("plaintext_device", "");
    r.loop_device = j.value("loop_device", "");
    r.mount_point = j.value("mount_point", "");
    r.filesystem = j.value("filesystem", "none");
    r.mount_helper = j.value("mount_helper", "");
    r.created_dirs = j.value("created_dirs", std::vector<std::string>{});
    r.pid = int_field("mount record", j, "pid", 0);
    r.pid_start = int_field("mount record", j, "pid_start", uint64_t(0));
    r.read_only = j.value("read_only", false);
    r.protect_hidden = j.value("protect_hidden", false);
    r.protected_start = int_field("mount record", j, "protected_start", uint64_t(0));
    r.protected_end = int_field("mount record", j, "protected_end", uint64_t(0));
    r.volume_type = j.value("volume_type", "");
    r.format = j.value("format", "");
    r.chain = j.value("chain", "");
    r.prf = j.value("prf", "");
    r.engine = j.value("engine", "");
    r.size = int_field("mount record", j, "size", uint64_t(0));
    r.mounted_at = int_field("mount record", j, "mounted_at", int64_t(0));
    r.uid = int_field("mount record", j, "uid", uid_t(0));
    r.header_info = j.value("header_info", "");
    if (r.slot < 1 || r.slot > kMaxSlots) throw Error(ErrorKind::Format, "mount record: bad slot number");
    return r;
  } catch (const json::exception& e) {
    throw Error(ErrorKind::Format, std::string("mount record: ") + e.what());
  }
}

std::string state_to_json(const DaemonState& s) {
  json j = {{"protection_triggered", s.protection_triggered},
            {"trigger_detail", s.trigger_detail},
            {"closed", s.closed},
            {"reads", s.reads},
            {"writes", s.writes},
            {"read_bytes", s.read_bytes},
            {"written_bytes", s.written_bytes},
            {"max_request", s.max_request}};
  return j.dump(2) + "\n";
}

DaemonState state_from_json(const std::string& text) {
  DaemonState s;
  try {
    json j = json::parse(text);
    s.protection_triggered = j.value("protection_triggered", false);
    s.trigger_detail = j.value("trigger_detail", "");
    s.closed = j.value("closed", "");
    s.reads = int_field("daemon state", j, "reads", uint64_t(0));
    s.writes = int_field("daemon state", j, "writes", uint64_t(0));
    s.read_bytes = int_field("daemon state", j, "read_bytes", uint64_t(0));
    s.written_bytes = int_field("daemon state", j, "written_bytes", uint64_t(0));
    s.max_request = int_field("daemon state", j, "max_request", uint64_t(0));
  } catch (const json::exception& e) {
    throw Error(ErrorKind::Format, std::string("daemon state: ") + e.what());
  }
  return s;
}

std::optional<std::string> read_small_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw_errno("cannot read " + path);
  }
  std::string s;
  char buf[4096];
  for (;;) {
    const ssize_t r = read_full(fd, buf, sizeof buf);
    if (r < 0) {
      const int e = errno;
      ::close(fd);
      throw_errno("cannot read " + path, e);
    }
    s.append(buf, size_t(r));
    if (size_t(r) < sizeof buf || s.size() > (1u << 20)) break;
  }
  ::close(fd);
  return s;
}

Registry::Registry(std::string dir) : dir_(std::move(dir)) {}

void Registry::ensure() const {
  for (const std::string& d : {dir_, dir_ + "/aux"}) {
    if (::mkdir(d.c_str(), 0700) != 0 && errno != EEXIST) throw_errno("cannot create " + d);
    struct stat st;
    if (::lstat(d.c_str(), &st) != 0) throw_errno(d);
    if (!S_ISDIR(st.st_mode)) throw Error(ErrorKind::Io, d + ": not a folder");
    if (st.st_uid != ::geteuid())
      throw Error(ErrorKind::Io, d + ": owned by another user (uid " + std::to_string(st.st_uid) + ")");
  }
}

Registry::Lock::~Lock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

Registry::Lock Registry::lock() const {
  ensure();
  const std::string p = dir_ + "/.lock";
  int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw_errno("cannot open " + p);
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int e = errno;
    ::close(fd);
    throw_errno("cannot lock " + p, e);
  }
  return Lock(fd);
}

std::string Registry::record_path(int slot) const { return dir_ + "/slot" + std::to_string(slot) + ".json"; }
std::string Registry::state_path(int slot) const { return dir_ + "/slot" + std::to_string(slot) + ".state"; }
std::string Registry::log_path(int slot) const { return dir_ + "/slot" + std::to_string(slot) + ".log"; }
std::string Registry::aux_dir(int slot) const { return dir_ + "/aux/slot" + std::to_string(slot); }

std::optional<MountRecord> Registry::load(int slot) const {
  auto text = read_small_file(record_path(slot));
  if (!text) return std::nullopt;
  MountRecord r = record_from_json(*text);
  r.slot = slot;
  return r;
}

std::vector<MountRecord> Registry::load_all() const {
  std::vector<MountRecord> v;
  for (int s = 1; s <= kMaxSlots; ++s) {
    try {
      if (auto r = load(s)) v.push_back(std::move(*r));
    } catch (const Error&) {
      // A torn or foreign file: skip it (writes are atomic, so this is not ours).
    }
  }
  return v;
}

void Registry::save(const MountRecord& r) const {
  ensure();
  atomic_replace(record_path(r.slot), record_to_json(r));
}

void Registry::remove(int slot) const {
  for (const std::string& p : {record_path(slot), state_path(slot), log_path(slot)})
    if (::unlink(p.c_str()) != 0 && errno != ENOENT) throw_errno("cannot remove " + p);
}

int Registry::reserve(int wanted, MountRecord placeholder) const {
  if (wanted != 0 && (wanted < 1 || wanted > kMaxSlots))
    throw Error(ErrorKind::Usage, "slot must be between 1 and " + std::to_string(kMaxSlots));
  auto taken = [&](int s) {
    struct stat st;
    return ::stat(record_path(s).c_str(), &st) == 0;
  };
  int slot = 0;
  if (wanted) {
    if (taken(wanted)) throw Error(ErrorKind::Busy, "slot " + std::to_string(wanted) + " is in use (see warpvol list)");
    slot = wanted;
  } else {
    for (int s = 1; s <= kMaxSlots && !slot; ++s)
      if (!taken(s)) slot = s;
    if (!slot) throw Error(ErrorKind::Busy, "all " + std::to_string(kMaxSlots) + " slots are in use");
  }
  placeholder.slot = slot;
  placeholder.state = "mounting";
  save(placeholder);
  // A state file left by an earlier crash would mislead `list`.
  ::unlink(state_path(slot).c_str());
  return slot;
}

DaemonState read_daemon_state(const std::string& path) {
  try {
    if (auto t = read_small_file(path)) return state_from_json(*t);
  } catch (const Error&) {
  }
  return {};
}

void write_daemon_state(const std::string& path, const DaemonState& s) { atomic_replace(path, state_to_json(s)); }

uint64_t process_start_time(int pid) {
  if (pid <= 0) return 0;
  auto text = [&]() -> std::optional<std::string> {
    try {
      return read_small_file("/proc/" + std::to_string(pid) + "/stat");
    } catch (const Error&) {
      return std::nullopt;
    }
  }();
  if (!text) return 0;
  // Field 2 (comm) may contain spaces and parentheses: parse from the last ')'.
  size_t p = text->rfind(')');
  if (p == std::string::npos) return 0;
  std::istringstream in(text->substr(p + 1));
  std::string state;
  in >> state;  // field 3
  if (state == "Z" || state == "X") return 0;
  std::string f;
  for (int field = 4; field <= 22; ++field) {
    if (!(in >> f)) return 0;
  }
  try {
    return std::stoull(f);
  } catch (...) {
    return 0;
  }
}

bool process_alive(int pid, uint64_t start) {
  const uint64_t s = process_start_time(pid);
  if (s == 0) return false;
  return start == 0 || s == start;
}

}  // namespace warpvol::mount
