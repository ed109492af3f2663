#include "cli/credentials.h"

#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>

#include "core/crypto/chain.h"
#include "core/kdf/prf.h"
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

std::string prf_names() {
  std::string s;
  for (const auto& p : all_prfs()) s += (s.empty() ? "" : ", ") + std::string(p.cli_name);
  return s;
}

}  // namespace

void add_credential_options(po::options_description& desc) {
  desc.add_options()
      ("password-stdin", "read the password from stdin (one line, trailing newline removed)")
      ("password-fd", po::value<int>()->value_name("N"), "read the password from file descriptor N (one line)")
      ("password", po::value<std::string>()->value_name("PW"),
       "the password itself -- UNSAFE: visible in ps and shell history; prefer --password-stdin")
      ("keyfile,k", po::value<std::vector<std::string>>()->composing()->value_name("PATH"),
       "keyfile, or a folder whose files are keyfiles (repeatable; order does not matter)")
      ("pim", po::value<int>()->value_name("N"), "Personal Iterations Multiplier (0 or absent = default)")
      ("non-interactive", "never prompt; a missing password is a usage error")
      ("hash", po::value<std::string>()->value_name("PRF"),
       ("try only this PRF: " + prf_names()).c_str())
      ("encryption", po::value<std::string>()->value_name("CHAIN"),
       "try only this encryption chain (e.g. aes, serpent-twofish-aes)")
      ("truecrypt", "open as a TrueCrypt volume only (password at most 64 bytes, no PIM)")
      ("veracrypt", "open as a VeraCrypt volume only")
      ("hidden", "open the hidden volume (header slot at 64 KiB)")
      ("backup-header", "use the embedded backup headers at the end of the volume")
      ("system", "system-encryption (pre-boot) header at sector 62, boot iteration counts")
      ("partition", po::value<int>()->value_name("N"),
       "with --system on a drive image: open partition N (MBR or GPT numbering, as Linux's sdaN; default: the "
       "partition holding the first encrypted byte, as VeraCrypt)");
}

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

OpenOptions open_options_from(const po::variables_map& vm, const std::string& volume, const Context& ctx) {
  OpenOptions opt;
  // Narrowing and PIM first: a typo must not cost a password prompt.
  if (vm.count("hash")) {
    const std::string& h = vm["hash"].as<std::string>();
    auto prf = parse_prf(h);
    if (!prf) throw Error(ErrorKind::Usage, "unknown hash '" + h + "' (" + prf_names() + ")");
    opt.prf = *prf;
  }
  if (vm.count("encryption")) {
    const std::string& e = vm["encryption"].as<std::string>();
    // A name may mean an XTS chain, an algorithm of TrueCrypt before 5.0 (LRW/CBC), or both ("aes").
    auto chain = parse_chain(e);
    auto legacy = parse_legacy_ea(e);
    if (!chain && !legacy)
      throw Error(ErrorKind::Usage, "unknown encryption '" + e + "' (" + chain_names_list() +
                                        "; TrueCrypt before 5.0 also: blowfish, cast5, triple-des, aes-blowfish, "
                                        "aes-blowfish-serpent)");
    if (chain) opt.chain = *chain;
    if (legacy) opt.legacy_ea = *legacy;
  }
  const bool truecrypt = vm.count("truecrypt") > 0;
  if (truecrypt && vm.count("veracrypt"))
    throw Error(ErrorKind::Usage, "--truecrypt and --veracrypt exclude each other");
  if (truecrypt) opt.format = VolumeFormat::TrueCrypt;
  if (vm.count("veracrypt")) opt.format = VolumeFormat::VeraCrypt;
  if (vm.count("hidden")) opt.slot = SlotKind::Hidden;
  opt.backup_only = vm.count("backup-header") > 0;
  opt.system = vm.count("system") > 0;
  if (vm.count("partition")) {
    if (!opt.system) throw Error(ErrorKind::Usage, "--partition goes with --system (a system-encrypted drive image)");
    const int n = vm["partition"].as<int>();
    if (n < 1) throw Error(ErrorKind::Usage, "--partition must be 1 or more");
    opt.system_partition = n;
  }
  if (opt.system && vm.count("hidden"))
    throw Error(ErrorKind::Usage, "--system and --hidden exclude each other");
  if (vm.count("pim")) {
    int pim = vm["pim"].as<int>();
    if (pim < 0 || pim > kMaxPim)
      throw Error(ErrorKind::Usage, "PIM must be between 0 and " + std::to_string(kMaxPim));
    if (truecrypt && pim > 0) throw Error(ErrorKind::Usage, "TrueCrypt volumes have no PIM (drop --pim)");
    if (opt.system && pim > kMaxSystemPim)
      throw Error(ErrorKind::Usage, "with --system the PIM must be between 0 and " + std::to_string(kMaxSystemPim) +
                                        " (VeraCrypt's pre-boot limit)");
    opt.credentials.pim = pim;
  }
  if (vm.count("keyfile")) opt.credentials.keyfiles = vm["keyfile"].as<std::vector<std::string>>();
  const bool have_keyfiles = !opt.credentials.keyfiles.empty();

  const size_t max_len = truecrypt ? kMaxTrueCryptPasswordBytes : kMaxPasswordBytes;
  const int sources = int(vm.count("password")) + int(vm.count("password-stdin")) + int(vm.count("password-fd"));
  if (sources > 1)
    throw Error(ErrorKind::Usage, "give the password one way: --password, --password-stdin or --password-fd");

  if (vm.count("password")) {
    const std::string& pw = vm["password"].as<std::string>();
    if (pw.size() > max_len)
      throw Error(ErrorKind::Usage, "password is longer than " + std::to_string(max_len) + " bytes");
    opt.credentials.password = LockedBytes(reinterpret_cast<const uint8_t*>(pw.data()), pw.size());
    secure_wipe(const_cast<char*>(pw.data()), pw.size());
  } else if (vm.count("password-stdin")) {
    opt.credentials.password = read_password_line(STDIN_FILENO, max_len, "stdin", ctx);
  } else if (vm.count("password-fd")) {
    int fd = vm["password-fd"].as<int>();
    if (fd < 0) throw Error(ErrorKind::Usage, "--password-fd needs a file descriptor number >= 0");
    opt.credentials.password = read_password_line(fd, max_len, "fd " + std::to_string(fd), ctx);
  } else if (vm.count("non-interactive")) {
    if (!have_keyfiles)
      throw Error(ErrorKind::Usage,
                  "no password given and --non-interactive forbids prompting "
                  "(use --password-stdin, --password-fd N or --keyfile)");
    // Keyfiles alone: empty password, as VeraCrypt does with --non-interactive.
  } else if (::isatty(STDIN_FILENO)) {
    ctx.err << "Enter password for " << volume << ": " << std::flush;
    {
      EchoOff echo(STDIN_FILENO);
      try {
        opt.credentials.password = read_password_line(STDIN_FILENO, max_len, "the terminal", ctx);
      } catch (...) {
        ctx.err << std::endl;
        throw;
      }
    }
    ctx.err << std::endl;
  } else {
    if (!have_keyfiles)
      throw Error(ErrorKind::Usage,
                  "no password given and stdin is not a terminal "
                  "(use --password-stdin, --password-fd N or --keyfile)");
  }
  if (opt.credentials.password.empty() && !have_keyfiles)
    throw Error(ErrorKind::Usage, "empty password: give a password or a keyfile");

  opt.notice = [&ctx](const std::string& msg) { ctx.message(msg); };
  ctx.verbose_line("opening " + volume + (opt.prf ? " (hash " + std::string(prf_info(*opt.prf).cli_name) + ")" : "") +
                   (opt.chain ? " (encryption " + std::string(chain_info(*opt.chain).cli_name) + ")"
                    : opt.legacy_ea ? " (encryption " + std::string(legacy_ea_info(*opt.legacy_ea).cli_name) + ")"
                                    : "") +
                   (have_keyfiles ? " with " + std::to_string(opt.credentials.keyfiles.size()) + " keyfile(s)" : ""));
  return opt;
}

}  // namespace warpvol::cli
