#include "cli/password_input.h"

#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>

#include "core/util/error.h"

namespace warpvol::cli {
namespace {

// Echo off on a terminal for the lifetime of the object; restored on every exit path.
class EchoOff {
 public:
  explicit EchoOff(int fd) : fd_(fd) {
    if (tcgetattr(fd_, &saved_) == 0) {
      struct termios t = saved_;
      t.c_lflag &= ~tcflag_t(ECHO | ECHONL);
      t.c_lflag |= ICANON;
      active_ = tcsetattr(fd_, TCSAFLUSH, &t) == 0;
    }
  }
  ~EchoOff() {
    if (active_) tcsetattr(fd_, TCSAFLUSH, &saved_);
  }
  EchoOff(const EchoOff&) = delete;
  EchoOff& operator=(const EchoOff&) = delete;

 private:
  int fd_;
  struct termios saved_ {};
  bool active_ = false;
};

}  // namespace

LockedBytes read_password_line(int fd, size_t max_len, const std::string& what, const Context& ctx) {
  LockedBytes buf(max_len + 1);
  size_t n = 0;
  bool too_long = false;
  for (;;) {
    char c;
    ssize_t r = ::read(fd, &c, 1);
    if (r < 0) {
      if (errno == EINTR) {
        if (ctx.cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
        continue;
      }
      int e = errno;
      secure_wipe(&c, 1);
      throw Error(ErrorKind::Io, "cannot read the password from " + what + ": " + std::strerror(e));
    }
    if (r == 0 || c == '\n') break;
    if (n < buf.size()) {
      buf[n++] = uint8_t(c);
    } else {
      too_long = true;  // keep reading to the end of the line, keep nothing
    }
    secure_wipe(&c, 1);
    if (n > max_len) too_long = true;
  }
  if (too_long)
    throw Error(ErrorKind::Usage, "password from " + what + " is longer than " + std::to_string(max_len) + " bytes");
  LockedBytes out(buf.data(), n);
  return out;
}

LockedBytes prompt_password(const Context& ctx, const std::string& prompt, size_t max_len) {
  ctx.err << prompt << ": " << std::flush;
  LockedBytes pw;
  {
    EchoOff echo(STDIN_FILENO);
    try {
      pw = read_password_line(STDIN_FILENO, max_len, "the terminal", ctx);
    } catch (...) {
      ctx.err << std::endl;
      throw;
    }
  }
  ctx.err << std::endl;
  return pw;
}

std::optional<LockedBytes> password_from_options(const po::variables_map& vm, const std::string& p, size_t max_len,
                                                 const Context& ctx, const std::string& value_name) {
  const int n = int(vm.count(p + "password")) + int(vm.count(p + "password-stdin")) + int(vm.count(p + "password-fd"));
  if (n > 1)
    throw Error(ErrorKind::Usage, "give the " + p + "password one way: --" + p + "password, --" + p +
                                      "password-stdin or --" + p + "password-fd");
  if (vm.count(p + "password")) {
    const std::string& pw = vm[p + "password"].as<std::string>();
    if (pw.size() > max_len)
      throw Error(ErrorKind::Usage, (value_name.empty() ? "--" + p + "password" : value_name) + " is longer than " +
                                        std::to_string(max_len) + " bytes");
    LockedBytes out(reinterpret_cast<const uint8_t*>(pw.data()), pw.size());
    secure_wipe(const_cast<char*>(pw.data()), pw.size());
    return out;
  }
  if (vm.count(p + "password-stdin")) return read_password_line(STDIN_FILENO, max_len, "stdin", ctx);
  if (vm.count(p + "password-fd")) {
    const int fd = vm[p + "password-fd"].as<int>();
    if (fd < 0) throw Error(ErrorKind::Usage, "--" + p + "password-fd needs a file descriptor number >= 0");
    return read_password_line(fd, max_len, "fd " + std::to_string(fd), ctx);
  }
  return std::nullopt;
}

}  // namespace warpvol::cli
