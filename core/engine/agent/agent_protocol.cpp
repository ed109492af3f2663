#include "core/engine/agent/agent_protocol.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/util/error.h"

namespace warpvol::agent {

void set_text(char* dst, size_t cap, const std::string& s) {
  const size_t n = std::min(cap - 1, s.size());
  std::memcpy(dst, s.data(), n);
  dst[n] = '\0';
}

std::string socket_path() {
  if (const char* p = std::getenv("WARPVOL_GPU_AGENT_SOCKET"); p && *p) return p;
  if (const char* r = std::getenv("XDG_RUNTIME_DIR"); r && *r) return std::string(r) + "/warpvol/gpu-agent.sock";
  return "/tmp/warpvol-" + std::to_string(::getuid()) + "/gpu-agent.sock";
}

bool agent_disabled_by_env() {
  const char* v = std::getenv("WARPVOL_GPU_AGENT");
  if (!v) return false;
  const std::string s(v);
  return s == "off" || s == "0" || s == "no";
}

void prepare_socket_dir(const std::string& path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) return;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error(ErrorKind::Io, "cannot create " + dir.string() + ": " + std::strerror(errno));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error(ErrorKind::Usage, dir.string() + " is not a directory");
  // Another user's directory (or one open to others) could hold a socket that is not ours: keys must not go there.
  if (st.st_uid != ::getuid() || (st.st_mode & 077) != 0)
    throw Error(ErrorKind::Usage, dir.string() + " must belong to you and be closed to others (mode 0700)");
}

namespace {

bool fill_address(const std::string& path, sockaddr_un& a) {
  std::memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) return false;
  std::memcpy(a.sun_path, path.data(), path.size());
  return true;
}

}  // namespace

bool peer_is_same_user(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
  return cred.uid == ::getuid();
}

int connect_socket(const std::string& path, std::string& why_not) {
  sockaddr_un a;
  if (!fill_address(path, a)) {
    why_not = "socket path too long: " + path;
    return -1;
  }
  const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    why_not = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    why_not = "no GPU agent at " + path + " (" + std::strerror(errno) + ")";
    ::close(fd);
    return -1;
  }
  if (!peer_is_same_user(fd)) {
    why_not = "the process at " + path + " runs as another user";
    ::close(fd);
    return -1;
  }
  return fd;
}

int listen_socket(const std::string& path) {
  prepare_socket_dir(path);
  sockaddr_un a;
  if (!fill_address(path, a)) throw Error(ErrorKind::Usage, "socket path too long: " + path);
  std::string why;
  if (const int probe = connect_socket(path, why); probe >= 0) {
    ::close(probe);
    throw Error(ErrorKind::Busy, "a GPU agent already listens at " + path + " (warpvol gpu-agent status)");
  }
  ::unlink(path.c_str());  // a stale socket of an agent that did not end cleanly
  const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error(ErrorKind::Io, std::string("socket: ") + std::strerror(errno));
  const mode_t old = ::umask(077);
  const int b = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  const int saved = errno;
  ::umask(old);
  if (b != 0 || ::listen(fd, 64) != 0) {
    ::close(fd);
    throw Error(ErrorKind::Io, "cannot listen at " + path + ": " + std::strerror(b != 0 ? saved : errno));
  }
  return fd;
}

bool send_message(int sock, const void* msg, size_t size, int fd) {
  iovec iov{const_cast<void*>(msg), size};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  if (fd >= 0) {
    std::memset(control, 0, sizeof control);
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  for (;;) {
    const ssize_t n = ::sendmsg(sock, &m, MSG_NOSIGNAL);
    if (n == ssize_t(size)) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

bool recv_message(int sock, void* msg, size_t size, int* fd) {
  if (fd) *fd = -1;
  iovec iov{msg, size};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  ssize_t n;
  do n = ::recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int got;
      std::memcpy(&got, CMSG_DATA(c), sizeof got);
      if (fd && *fd < 0)
        *fd = got;
      else
        ::close(got);
    }
  }
  if (n != ssize_t(size) || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
    if (fd && *fd >= 0) ::close(*fd), *fd = -1;
    return false;
  }
  return true;
}

}  // namespace warpvol::agent
