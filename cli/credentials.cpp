#include "cli/credentials.h"

#include <unistd.h>

#include <ostream>

#include "cli/password_input.h"
#include "core/crypto/chain.h"
#include "core/format/system_layout.h"
#include "core/kdf/prf.h"
#include "core/util/error.h"

namespace warpvol::cli {
namespace {

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
       "partition holding the first encrypted byte, as VeraCrypt)")
      ("partition-offset", po::value<std::string>()->value_name("BYTES|Ns"),
       "with --system and --header-file: the file is an image of ONE partition, which started at this offset in "
       "the drive (bytes, or N sectors of 512 with 's', e.g. 2048s); data units count from there")
      ("header-file", po::value<std::string>()->value_name("PATH"),
       "with --system: read the system header from PATH instead of the volume's sector 62: the drive's first 63 "
       "sectors (or the whole drive's image), a 512-byte copy of sector 62 (the EFI rescue disk's "
       "EFI/VeraCrypt/svh_bak) or a VeraCrypt rescue disk ISO");
}

namespace {

// --partition-offset: bytes (with parse_size's K/M/G/T), or sectors of 512 bytes with an 's' suffix as fdisk and
// parted print partition starts.
uint64_t parse_partition_offset(const std::string& v) {
  uint64_t off = 0;
  if (!v.empty() && (v.back() == 's' || v.back() == 'S')) {
    const std::string n = v.substr(0, v.size() - 1);
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos)
      throw Error(ErrorKind::Usage, "--partition-offset '" + v + "': give bytes or a sector count like 2048s");
    if (n.size() > 19 || std::stoull(n) > UINT64_MAX / kDataUnitSize)
      throw Error(ErrorKind::Usage, "--partition-offset '" + v + "': too large");
    off = std::stoull(n) * kDataUnitSize;
  } else {
    try {
      off = parse_size(v);
    } catch (const Error& e) {
      throw Error(ErrorKind::Usage, "--partition-offset: " + std::string(e.what()) + "; or sectors, like 2048s");
    }
  }
  if (off % kDataUnitSize)
    throw Error(ErrorKind::Usage, "--partition-offset " + v + " is not a multiple of 512 bytes: give the partition's "
                                  "start in bytes, or in sectors with an 's' (" + v + "s)");
  return off;
}

}  // namespace

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
  if (vm.count("partition-offset")) {
    if (!opt.system)
      throw Error(ErrorKind::Usage, "--partition-offset goes with --system (an image of one system-encrypted partition)");
    if (vm.count("partition"))
      throw Error(ErrorKind::Usage, "--partition and --partition-offset exclude each other (a partition of a drive "
                                    "image, or an image of one partition)");
    if (!vm.count("header-file"))
      throw Error(ErrorKind::Usage, "--partition-offset needs --header-file: an image of one partition lacks the "
                                    "drive's sector 62, where the system header lies");
    opt.system_partition_offset = parse_partition_offset(vm["partition-offset"].as<std::string>());
  }
  if (vm.count("header-file")) {
    if (!opt.system) throw Error(ErrorKind::Usage, "--header-file goes with --system (the system header's copy)");
    opt.system_header_file = vm["header-file"].as<std::string>();
    if (opt.system_header_file.empty()) throw Error(ErrorKind::Usage, "--header-file: empty path");
    // Read now: a missing or wrong file must not cost a password prompt.
    system_header_source(opt.system_header_file);
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
  if (auto pw = password_from_options(vm, "", max_len, ctx, "password")) {
    opt.credentials.password = std::move(*pw);
  } else if (vm.count("non-interactive")) {
    if (!have_keyfiles)
      throw Error(ErrorKind::Usage,
                  "no password given and --non-interactive forbids prompting "
                  "(use --password-stdin, --password-fd N or --keyfile)");
    // Keyfiles alone: empty password, as VeraCrypt does with --non-interactive.
  } else if (::isatty(STDIN_FILENO)) {
    opt.credentials.password = prompt_password(ctx, "Enter password for " + volume, max_len);
  } else {
    if (!have_keyfiles)
      throw Error(ErrorKind::Usage,
                  "no password given and stdin is not a terminal "
                  "(use --password-stdin, --password-fd N or --keyfile)");
  }
  if (opt.credentials.password.empty() && !have_keyfiles)
    throw Error(ErrorKind::Usage, "empty password: give a password or a keyfile");

  opt.notice = [&ctx](const std::string& msg) { ctx.message(msg); };
  opt.verbose = [&ctx](const std::string& msg) { ctx.verbose_line(msg); };
  ctx.verbose_line("opening " + volume + (opt.prf ? " (hash " + std::string(prf_info(*opt.prf).cli_name) + ")" : "") +
                   (opt.chain ? " (encryption " + std::string(chain_info(*opt.chain).cli_name) + ")"
                    : opt.legacy_ea ? " (encryption " + std::string(legacy_ea_info(*opt.legacy_ea).cli_name) + ")"
                                    : "") +
                   (have_keyfiles ? " with " + std::to_string(opt.credentials.keyfiles.size()) + " keyfile(s)" : ""));
  return opt;
}

}  // namespace warpvol::cli
