#include "tests/support/cli_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace wvtest::proc {

std::string warpvol_binary() {
  if (const char* b = std::getenv("WARPVOL_BINARY")) return b;
#ifdef WARPVOL_BINARY
  return WARPVOL_BINARY;
#else
  return "warpvol";
#endif
}

bool have_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (!dir.empty() && ::access((dir + "/" + name).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

ProcResult run_process(const std::vector<std::string>& argv, const ProcOptions& opt) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC) || ::pipe2(err, O_CLOEXEC))
    throw std::runtime_error("pipe failed");
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) envs.push_back(*e);
  for (const auto& e : opt.env) envs.push_back(e);
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : envs) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    for (int fd : opt.inherit_fds) {
      int fl = ::fcntl(fd, F_GETFD);
      if (fl >= 0) ::fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
    }
    ::execve(cargv[0], cargv.data(), cenv.data());
    ::execvpe(cargv[0], cargv.data(), cenv.data());
    std::fprintf(stderr, "exec %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  // Feed stdin (small data: the pipe buffer holds it), then close unless asked to keep it open.
  size_t written = 0;
  ::signal(SIGPIPE, SIG_IGN);
  while (written < opt.stdin_data.size()) {
    ssize_t w = ::write(in[1], opt.stdin_data.data() + written, opt.stdin_data.size() - written);
    if (w <= 0) break;
    written += size_t(w);
  }
  if (!opt.stdin_open) {
    ::close(in[1]);
    in[1] = -1;
  }
  ProcResult r;
  const auto t0 = std::chrono::steady_clock::now();
  bool signalled = false;
  struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    int timeout = -1;
    if (opt.signal_after_ms && !signalled) {
      auto el = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
      timeout = el >= opt.signal_after_ms ? 0 : int(opt.signal_after_ms - el);
    }
    int n = ::poll(fds, 2, timeout);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 && opt.signal_after_ms && !signalled) {
      ::kill(pid, opt.signal);
      signalled = true;
      continue;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t k = ::read(fds[i].fd, buf, sizeof buf);
      if (k > 0) {
        (i == 0 ? r.out : r.err).append(buf, size_t(k));
      } else {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (in[1] >= 0) ::close(in[1]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

ProcResult run_warpvol(const std::vector<std::string>& args, const ProcOptions& opt) {
  std::vector<std::string> argv{warpvol_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, opt);
}

ProcResult run_warpvol(const std::vector<std::string>& args, const std::string& stdin_data) {
  ProcOptions o;
  o.stdin_data = stdin_data;
  return run_warpvol(args, o);
}

}  // namespace wvtest::proc
