// warpvol change VOLUME [credentials] [--new-password-stdin | --new-password-fd N | --new-password PW]
//   [--new-pim N] [--new-keyfile K]... [--no-keyfiles] [--new-hash PRF]
// Re-encrypts the header (normal or hidden, whichever the current credentials open) under new credentials with
// fresh salts; master keys and data stay. Embedded backup written and fsync()ed before the primary
// (core/create/change.h). When both passwords come from stdin, the first line is the current password and the
// second the new one. Without --new-keyfile/--no-keyfiles the current keyfiles are kept; without --new-pim the
// current PIM; without --new-hash the current PRF. When only keyfiles, PIM or PRF change, the password is kept (as
// in VeraCrypt) unless a new one is given or --prompt-new-password asks for one.
#include <algorithm>
#include <ostream>

#include "cli/command.h"
#include "cli/credentials.h"
#include "cli/new_credentials.h"
#include "cli/password_strength.h"
#include "cli/password_policy.h"
#include "core/create/change.h"
#include "core/util/error.h"

namespace warpvol::cli {
namespace {

std::string password_change_text(const Credentials& before, const Credentials& after, bool kept) {
  if (kept) return "unchanged";
  const bool same = before.password.size() == after.password.size() &&
                    std::equal(before.password.data(), before.password.data() + before.password.size(),
                               after.password.data());
  if (after.password.empty()) return before.password.empty() ? "none (keyfiles only), unchanged" : "REMOVED (keyfiles only)";
  return same ? "the same password again (new salt)" : "changed";
}

std::string keyfiles_change_text(const std::vector<std::string>& before, const std::vector<std::string>& after) {
  auto n = [](size_t k) { return k == 0 ? std::string("none") : std::to_string(k) + (k == 1 ? " keyfile" : " keyfiles"); };
  if (before == after) return "unchanged (" + n(after.size()) + ")";
  return n(before.size()) + " -> " + n(after.size());
}

std::string pim_change_text(int before, int after) {
  auto t = [](int p) { return p <= 0 ? std::string("default") : std::to_string(p); };
  if (std::max(before, 0) == std::max(after, 0)) return "unchanged (" + t(after) + ")";
  return t(before) + " -> " + t(after);
}

class ChangeCommand final : public VolumeCommand<ChangeOptions> {
 public:
  std::string name() const override { return "change"; }
  std::string summary() const override {
    return "Change a volume's password, PIM, keyfiles or header PRF (header re-encrypted, data untouched)";
  }
  std::string usage() const override {
    return "change VOLUME [credentials] [--new-password-stdin | --new-password-fd N] [--new-pim N] "
           "[--new-keyfile K]... [--no-keyfiles] [--new-hash PRF]";
  }
  std::string example() const override {
    return "printf '%s\\n%s\\n' \"$OLD\" \"$NEW\" | warpvol change secret.hc --password-stdin --new-password-stdin";
  }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    add_password_source_options(visible, "new-", "the new", true);
    visible.add_options()
        ("no-keyfiles", "the new credentials use no keyfiles (default: keep the current keyfiles)")
        ("prompt-new-password", "ask for a new password on the terminal also when only keyfiles, PIM or PRF change "
                                "(without it the current password is kept then)")
        ("new-hash", po::value<std::string>()->value_name("PRF"),
         "PRF of the new header key: sha512, sha256, blake2s, whirlpool, streebog, argon2 (default: keep)");
    hidden.add_options()("volume", po::value<std::string>(), "volume");
  }
  void add_positionals(po::positional_options_description& pos) const override { pos.add("volume", 1); }

  ChangeOptions parse_request(Context&, const po::variables_map& vm, const std::string&) const override {
    ChangeOptions o;
    if (vm.count("new-hash")) {
      const std::string h = vm["new-hash"].as<std::string>();
      auto prf = parse_prf(h);
      if (!prf || *prf == PrfId::Sha1)
        throw Error(ErrorKind::Usage, "unknown or unsupported --new-hash '" + h + "'");
      o.new_prf = *prf;
    }
    if (vm.count("no-keyfiles") && vm.count("new-keyfile"))
      throw Error(ErrorKind::Usage, "--no-keyfiles and --new-keyfile exclude each other");
    if (vm.count("new-pim")) {
      const int pim = vm["new-pim"].as<int>();
      if (pim < 0 || pim > kMaxPim)
        throw Error(ErrorKind::Usage, "--new-pim must be between 0 and " + std::to_string(kMaxPim));
    }
    return o;
  }

  int execute_with_volume(Context& ctx, const po::variables_map& vm, const std::string& path,
                          std::unique_ptr<BlockFile> file, ChangeOptions& o) const override {
    file.reset();
    const bool non_interactive = vm.count("non-interactive") > 0;
    o.open = open_options_from(vm, path, ctx);  // current password: first line of stdin
    // New credentials: password from --new-password*; kept when only keyfiles, PIM or PRF change (unless
    // --prompt-new-password); else a prompt (twice) on a terminal.
    Credentials nc;
    auto pw = password_from_options(vm, "new-", kMaxPasswordBytes, ctx);
    const bool other_changes = vm.count("new-keyfile") || vm.count("no-keyfiles") || vm.count("new-pim") ||
                               vm.count("new-hash");
    bool password_kept = false, password_typed = false;
    if (pw) {
      nc.password = std::move(*pw);
    } else if (other_changes && !vm.count("prompt-new-password")) {
      nc.password = o.open.credentials.password;
      password_kept = true;
    } else if (non_interactive) {
      throw Error(ErrorKind::Usage, "no new password given and --non-interactive forbids prompting "
                                    "(use --new-password-stdin or --new-password-fd N)");
    } else {
      nc.password = prompt_new_password(ctx, "Enter the NEW password for " + path, true, kMaxPasswordBytes, "new-");
      password_typed = true;
    }
    if (!password_kept) check_new_password(nc.password, "the new password");
    if (vm.count("new-keyfile")) nc.keyfiles = vm["new-keyfile"].as<std::vector<std::string>>();
    else if (!vm.count("no-keyfiles")) nc.keyfiles = o.open.credentials.keyfiles;
    nc.pim = vm.count("new-pim") ? vm["new-pim"].as<int>() : o.open.credentials.pim;
    if (nc.password.empty() && nc.keyfiles.empty())
      throw Error(ErrorKind::Usage, "empty new password and no keyfiles: the volume would open with nothing");
    if (!password_kept) check_new_password_strength(ctx, nc, password_typed);
    const Credentials before = o.open.credentials;
    const Credentials after = nc;
    o.new_credentials = std::move(nc);
    ChangeResult r = change_credentials(path, o);
    if (r.restored_primary) ctx.message("the primary header was damaged; it was rewritten from the backup header");
    if (r.old_header.format == VolumeFormat::VeraCrypt && !veracrypt_supports_prf(r.new_kdf.prf))
      ctx.message("warning: VeraCrypt 1.26 cannot open volumes whose header uses HMAC-" +
                  std::string(prf_info(r.new_kdf.prf).name) + " (choose another with --new-hash)");
    if (r.old_header.format == VolumeFormat::TrueCrypt)
      ctx.message("note: this is still a TrueCrypt volume, which VeraCrypt 1.26 cannot open (see `warpvol convert`)");
    ctx.out << "Changed the " << slot_kind_name(r.old_header.slot) << " volume's header of " << path << "\n"
            << "Password:       " << password_change_text(before, after, password_kept) << "\n"
            << "Keyfiles:       " << keyfiles_change_text(before.keyfiles, after.keyfiles) << "\n"
            << "PIM:            " << pim_change_text(before.pim, after.pim) << "\n"
            << "PRF:            "
            << (r.old_header.kdf.prf == r.new_kdf.prf ? "unchanged (" + std::string(prf_info(r.new_kdf.prf).name) + ")"
                                                      : std::string(prf_info(r.old_header.kdf.prf).name) + " -> " +
                                                            std::string(prf_info(r.new_kdf.prf).name))
            << "\n"
            << "KDF:            " << r.old_header.kdf.describe() << " -> " << r.new_kdf.describe() << "\n"
            << "Headers:        primary and embedded backup rewritten with fresh salts (master keys unchanged)\n";
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_change_command() { return std::make_unique<ChangeCommand>(); }

}  // namespace warpvol::cli
