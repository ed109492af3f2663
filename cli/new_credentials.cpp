#include "cli/new_credentials.h"

#include <unistd.h>

#include <cstring>
#include <ostream>

#include "cli/credentials.h"
#include "cli/password_input.h"
#include "core/util/error.h"

namespace warpvol::cli {

void add_password_source_options(po::options_description& desc, const std::string& p, const std::string& whose,
                                 bool with_keyfiles_pim) {
  desc.add_options()
      ((p + "password-stdin").c_str(), ("read " + whose + " password from stdin (one line)").c_str())
      ((p + "password-fd").c_str(), po::value<int>()->value_name("N"),
       ("read " + whose + " password from file descriptor N (one line)").c_str())
      ((p + "password").c_str(), po::value<std::string>()->value_name("PW"),
       (whose + " password itself -- UNSAFE: visible in ps and shell history").c_str());
  if (with_keyfiles_pim) {
    const std::string kf = p.empty() ? std::string("keyfile,k") : p + "keyfile";
    desc.add_options()
        (kf.c_str(), po::value<std::vector<std::string>>()->composing()->value_name("PATH"),
         (whose + " keyfile, or a folder of keyfiles (repeatable)").c_str())
        ((p + "pim").c_str(), po::value<int>()->value_name("N"),
         (whose + " PIM (0 or absent = default: 500000 PBKDF2 iterations)").c_str());
  }
}

LockedBytes prompt_new_password(const Context& ctx, const std::string& prompt, bool confirm, size_t max_len,
                                const std::string& p) {
  if (!::isatty(STDIN_FILENO))
    throw Error(ErrorKind::Usage, "no " + (p.empty() ? std::string() : p) + "password given and stdin is not a "
                                  "terminal (use --" + p + "password-stdin or --" + p + "password-fd N)");
  LockedBytes a = prompt_password(ctx, prompt, max_len);
  if (confirm) {
    LockedBytes b = prompt_password(ctx, prompt + " (again)", max_len);
    if (a.size() != b.size() || (a.size() && std::memcmp(a.data(), b.data(), a.size()) != 0))
      throw Error(ErrorKind::Usage, "the passwords do not match");
  }
  return a;
}

bool any_option_with_prefix(const po::variables_map& vm, const std::string& p) {
  for (const auto& kv : vm)
    if (kv.first.rfind(p, 0) == 0 && !kv.second.defaulted()) return true;
  return false;
}

Credentials credentials_from_options(const po::variables_map& vm, const std::string& p, const Context& ctx,
                                     const std::string& prompt, bool confirm, bool non_interactive) {
  Credentials c;
  const std::string kf = p + "keyfile";
  if (vm.count(kf)) c.keyfiles = vm[kf].as<std::vector<std::string>>();
  if (vm.count(p + "pim")) {
    const int pim = vm[p + "pim"].as<int>();
    if (pim < 0 || pim > kMaxPim)
      throw Error(ErrorKind::Usage, "--" + p + "pim must be between 0 and " + std::to_string(kMaxPim));
    c.pim = pim;
  }
  auto pw = password_from_options(vm, p, kMaxPasswordBytes, ctx);
  if (pw) {
    c.password = std::move(*pw);
  } else if (non_interactive || !::isatty(STDIN_FILENO)) {
    if (c.keyfiles.empty())
      throw Error(ErrorKind::Usage, "no " + (p.empty() ? std::string() : p) + "password given" +
                                        (non_interactive ? std::string(" and --non-interactive forbids prompting")
                                                         : std::string(" and stdin is not a terminal")) +
                                        " (use --" + p + "password-stdin, --" + p + "password-fd N or --" + kf + ")");
  } else {
    c.password = prompt_new_password(ctx, prompt, confirm, kMaxPasswordBytes, p);
  }
  if (c.password.empty() && c.keyfiles.empty())
    throw Error(ErrorKind::Usage, "empty " + (p.empty() ? std::string() : p) + "password: give a password or a keyfile");
  return c;
}

}  // namespace warpvol::cli
