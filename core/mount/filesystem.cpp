#include "core/mount/filesystem.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "core/mount/runtime.h"
#include "core/io/fd_io.h"
#include "core/util/error.h"

extern char** environ;

namespace warpvol::mount {

namespace {

bool has_at(const unsigned char* d, size_t len, size_t off, const char* magic) {
  const size_t n = std::strlen(magic);
  return off + n <= len && std::memcmp(d + off, magic, n) == 0;
}

uint16_t le16(const unsigned char* p) { return uint16_t(p[0] | (p[1] << 8)); }

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string kernel_fs_type(const std::string& user_name) {
  const std::string n = lower(user_name);
  if (n == "fat" || n == "vfat" || n == "fat32" || n == "fat16" || n == "fat12" || n == "msdos") return "vfat";
  if (n == "ntfs" || n == "ntfs3") return "ntfs3";
  return n;
}

std::string probe_filesystem_bytes(const unsigned char* d, size_t len) {
  if (len >= 1024 + 58 && le16(d + 1024 + 56) == 0xEF53) return "ext4";
  if (has_at(d, len, 3, "NTFS    ")) return "ntfs";
  if (has_at(d, len, 3, "EXFAT   ")) return "exfat";
  if (has_at(d, len, 0, "XFSB")) return "xfs";
  if (has_at(d, len, 65536 + 64, "_BHRfS_M")) return "btrfs";
  if (len >= 512 && d[510] == 0x55 && d[511] == 0xAA &&
      (has_at(d, len, 54, "FAT12") || has_at(d, len, 54, "FAT16") || has_at(d, len, 54, "FAT     ") ||
       has_at(d, len, 82, "FAT32")))
    return "vfat";
  return "";
}

std::string probe_filesystem(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_errno("cannot open " + path);
  std::vector<unsigned char> buf(65536 + 4096);
  const ssize_t got = pread_full(fd, buf.data(), buf.size(), 0);
  if (got < 0) {
    const int e = errno;
    ::close(fd);
    throw_errno("cannot read " + path, e);
  }
  ::close(fd);
  return probe_filesystem_bytes(buf.data(), size_t(got));
}

bool kernel_has_filesystem(const std::string& type) {
  std::optional<std::string> t;
  try {
    t = read_small_file("/proc/filesystems");
  } catch (const Error&) {
    return true;  // cannot tell: let mount(2) decide
  }
  if (!t) return true;
  std::istringstream in(*t);
  std::string line;
  while (std::getline(in, line)) {
    std::string name = line.substr(line.find_last_of(" \t") == std::string::npos ? 0 : line.find_last_of(" \t") + 1);
    if (name == type) return true;
  }
  return false;
}

std::vector<std::string> FsHelper::argv(const std::string& device, const std::string& mount_point, bool read_only,
                                        const std::string& options) const {
  std::vector<std::string> a{program, device, mount_point};
  std::string o = options;
  if (name == "ntfs-3g" && read_only) o = o.empty() ? "ro" : "ro," + o;
  if (name == "mount.exfat-fuse" && read_only) o = o.empty() ? "ro" : "ro," + o;
  // fusefat refuses to start without "ro" or "rw+" (its write support is experimental): read-only unless the
  // user asked for rw+.
  if (name == "fusefat" && o.find("rw+") == std::string::npos) o = o.empty() ? "ro" : "ro," + o;
  if (!o.empty()) {
    a.push_back("-o");
    a.push_back(o);
  }
  return a;
}

std::optional<FsHelper> fuse_helper_for(const std::string& type) {
  std::vector<std::string> names;
  if (type == "vfat") names = {"fusefat"};
  else if (type == "ntfs3" || type == "ntfs") names = {"ntfs-3g"};
  else if (type == "exfat") names = {"mount.exfat-fuse", "exfat-fuse"};
  for (const auto& n : names) {
    std::string p = find_program(n);
    if (!p.empty()) return FsHelper{p, n};
  }
  return std::nullopt;
}

MountFlags parse_fs_options(const std::string& options, bool read_only) {
  MountFlags m;
  m.read_only = read_only;
  std::vector<std::string> rest;
  std::stringstream ss(options);
  std::string o;
  while (std::getline(ss, o, ',')) {
    if (o.empty()) continue;
    if (o == "ro") m.read_only = true;
    else if (o == "rw") m.read_only = read_only;  // --read-only wins
    else if (o == "nosuid") m.flags |= MS_NOSUID;
    else if (o == "nodev") m.flags |= MS_NODEV;
    else if (o == "noexec") m.flags |= MS_NOEXEC;
    else if (o == "noatime") m.flags |= MS_NOATIME;
    else if (o == "nodiratime") m.flags |= MS_NODIRATIME;
    else if (o == "relatime") m.flags |= MS_RELATIME;
    else if (o == "strictatime") m.flags |= MS_STRICTATIME;
    else if (o == "sync") m.flags |= MS_SYNCHRONOUS;
    else if (o == "dirsync") m.flags |= MS_DIRSYNC;
    else if (o == "lazytime") m.flags |= MS_LAZYTIME;
    else if (o == "suid" || o == "dev" || o == "exec" || o == "atime" || o == "defaults") {
    } else
      rest.push_back(o);
  }
  if (m.read_only) m.flags |= MS_RDONLY;
  for (size_t i = 0; i < rest.size(); ++i) m.data += (i ? "," : "") + rest[i];
  return m;
}

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  path += ":/usr/local/sbin:/usr/sbin:/sbin";
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    std::string p = dir + "/" + name;
    struct stat st;
    if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

int run_program(const std::vector<std::string>& argv, std::string* output) {
  if (argv.empty()) throw Error(ErrorKind::Usage, "run_program: empty command");
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) throw_errno("pipe");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(pipefd[1]);
  if (rc != 0) {
    ::close(pipefd[0]);
    throw_errno("cannot run " + argv[0], rc);
  }
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t r = read_full(pipefd[0], buf, sizeof buf);
    if (r <= 0) break;
    if (out.size() < (1u << 20)) out.append(buf, size_t(r));
    if (size_t(r) < sizeof buf) break;  // end of file
  }
  ::close(pipefd[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw_errno("waitpid " + argv[0]);
  }
  if (output) *output = std::move(out);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

MkfsTool check_mkfs_available(const std::string& fs) {
  const std::string n = lower(fs);
  MkfsTool t;
  t.fs = n;
  if (n == "fat" || n == "vfat") t = {n, "mkfs.vfat", "dosfstools"};
  else if (n == "exfat") t = {n, "mkfs.exfat", "exfatprogs"};
  else if (n == "ext2" || n == "ext3" || n == "ext4") t = {n, "mkfs." + n, "e2fsprogs"};
  else if (n == "ntfs") t = {n, "mkfs.ntfs", "ntfs-3g"};
  else if (n == "btrfs") t = {n, "mkfs.btrfs", "btrfs-progs"};
  else if (n == "xfs") t = {n, "mkfs.xfs", "xfsprogs"};
  else
    throw Error(ErrorKind::Usage, "unknown filesystem '" + fs + "' (fat, exfat, ext2, ext3, ext4, ntfs, btrfs, xfs or none)");
  const std::string path = find_program(t.program);
  if (path.empty())
    throw Error(ErrorKind::Io, t.program + " not found: creating the " + n + " filesystem needs it (Debian package " +
                                   t.package + ": apt-get install " + t.package + "); nothing was written");
  t.program = path;
  return t;
}

void run_mkfs(const MkfsTool& tool, const std::string& device, const std::string& label, std::string* output) {
  std::vector<std::string> a{tool.program};
  const std::string& fs = tool.fs;
  if (fs == "fat" || fs == "vfat") {
    if (!label.empty()) a.insert(a.end(), {"-n", label});
  } else if (fs == "exfat") {
    if (!label.empty()) a.insert(a.end(), {"-L", label});
  } else if (fs == "ext2" || fs == "ext3" || fs == "ext4") {
    // -F: the device is a regular (FUSE) file; nodiscard: discard would be refused (and must never reach the
    // container as holes).
    a.insert(a.end(), {"-F", "-q", "-E", "nodiscard"});
    if (!label.empty()) a.insert(a.end(), {"-L", label});
  } else if (fs == "ntfs") {
    a.insert(a.end(), {"-F", "-Q", "-q"});
    if (!label.empty()) a.insert(a.end(), {"-L", label});
  } else if (fs == "btrfs") {
    a.insert(a.end(), {"-f", "-q", "-K"});
    if (!label.empty()) a.insert(a.end(), {"-L", label});
  } else if (fs == "xfs") {
    a.insert(a.end(), {"-f", "-q", "-K"});
    if (!label.empty()) a.insert(a.end(), {"-L", label});
  }
  a.push_back(device);
  std::string out;
  int rc = run_program(a, &out);
  if (output) *output = out;
  if (rc != 0) {
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    std::string last = out.substr(out.find_last_of('\n') == std::string::npos ? 0 : out.find_last_of('\n') + 1);
    throw Error(ErrorKind::Io, tool.program + " failed (exit " + std::to_string(rc) + ")" +
                                   (last.empty() ? std::string() : ": " + last));
  }
}

}  // namespace warpvol::mount
