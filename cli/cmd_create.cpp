// warpvol create VOLUME --size SIZE [--encryption CHAIN] [--hash PRF] [--pim N] [-k KEYFILE]... [--quick]
//   [--filesystem fat|exfat|ext4|ntfs|none] [--type normal|hidden] [--trust-size] [--sector-size 512|4096] [--random-source FILE]
// VeraCrypt's option names and values; defaults AES, SHA-512, default PIM. All checks (option values, size
// bounds, free space, writable folder, existing file, keyfiles) run before anything is written; the file
// appears only when complete (core/create/create.h).
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>

#include "cli/command.h"
#include "cli/credentials.h"
#include "cli/new_credentials.h"
#include "cli/password_strength.h"
#include "cli/password_policy.h"
#include "cli/progress.h"
#include "core/create/create.h"
#include "core/mount/mounter.h"
#include "core/util/error.h"
#include "core/util/random.h"

namespace warpvol::cli {

// Shared by create and import (cmd_import.cpp).
void add_new_volume_options(po::options_description& visible);
void fill_new_volume_options(const po::variables_map& vm, CreateOptions& o, const Context& ctx);
std::string describe_created(const CreateOptions& o, const CreateResult& r);
std::string created_time_line(double engine_secs, const CreateResult& r, double secs);

void add_new_volume_options(po::options_description& visible) {
  visible.add_options()
      ("encryption", po::value<std::string>()->value_name("CHAIN")->default_value("aes"),
       ("encryption algorithm: " + chain_names_list()).c_str())
      ("hash", po::value<std::string>()->value_name("PRF")->default_value("sha512"),
       "header key derivation: sha512, sha256, blake2s, whirlpool, streebog, argon2 (Argon2id opens only in "
       "VeraCrypt for Windows 1.26.27+)")
      ("sector-size", po::value<std::string>()->value_name("512|4096")->default_value("512"),
       "sector size written in the header")
      ("random-source", po::value<std::string>()->value_name("FILE"),
       "mix up to 1 MiB of FILE (SHA-512) into the random numbers (getrandom is always used)")
      ("non-interactive", "never prompt; a missing password is a usage error")
      ("force,f", "replace an existing file, or write to a block device (its content is destroyed)")
      ("progress-json", "progress as JSON lines on stderr")
      ("quiet,q", "no progress bar on a terminal")
      ("chunk-size", po::value<std::string>()->value_name("N"),
       "bytes per engine request (default 8M; multiple of 512, 64K..1G)");
  add_password_source_options(visible, "", "the new volume's", true);
}

void fill_new_volume_options(const po::variables_map& vm, CreateOptions& o, const Context& ctx) {
  const std::string enc = vm["encryption"].as<std::string>();
  auto chain = parse_chain(enc);
  if (!chain) throw Error(ErrorKind::Usage, "unknown encryption '" + enc + "' (" + chain_names_list() + ")");
  o.chain = *chain;
  const std::string hash = vm["hash"].as<std::string>();
  auto prf = parse_prf(hash);
  if (!prf || !prf_info(*prf).veracrypt || *prf == PrfId::Ripemd160)
    throw Error(ErrorKind::Usage, "unsupported hash '" + hash + "' for a new volume (sha512, sha256, blake2s, "
                                  "whirlpool, streebog, argon2)");
  o.prf = *prf;
  const std::string ss = vm["sector-size"].as<std::string>();
  if (ss == "512") o.sector_size = 512;
  else if (ss == "4096") o.sector_size = 4096;
  else throw Error(ErrorKind::Usage, "--sector-size must be 512 or 4096");
  o.force = vm.count("force") > 0;
  if (vm.count("pim")) {
    const int pim = vm["pim"].as<int>();
    if (pim < 0 || pim > kMaxPim) throw Error(ErrorKind::Usage, "--pim must be between 0 and " + std::to_string(kMaxPim));
  }
  if (vm.count("chunk-size")) {
    uint64_t c = parse_size(vm["chunk-size"].as<std::string>());
    if (c < 65536 || c % 512 || c > (uint64_t(1) << 30))
      throw Error(ErrorKind::Usage, "--chunk-size must be a multiple of 512 between 64K and 1G");
    o.fill.chunk_bytes = size_t(c);
  }
  o.fill.cancel = ctx.cancel;
}

// --verbose: where a create's or an import's time went (secs: create_volume's whole call).
std::string created_time_line(double engine_secs, const CreateResult& r, double secs) {
  char line[240];
  std::snprintf(line, sizeof line,
                "time: engine ready in %.3f s; then reserving the file %.3f s, the fill %.3f s, the rest "
                "(headers, the end of their key derivation, commit) %.3f s",
                engine_secs, r.reserve_seconds, r.fill_seconds,
                std::max(0.0, secs - r.reserve_seconds - r.fill_seconds));
  return line;
}

std::string describe_created(const CreateOptions& o, const CreateResult& r) {
  const CreatePlan& p = r.plan;
  std::string s;
  s += "Volume:         " + o.path + (o.type == CreateType::Hidden ? " (hidden volume)" : "") + "\n";
  s += "Encryption:     " + std::string(chain_info(o.chain).name) + " (XTS)\n";
  s += "KDF:            " + p.kdf.describe() + "\n";
  s += "Sector size:    " + std::to_string(o.sector_size) + "\n";
  s += "Container size: " + std::to_string(p.host_size) + " bytes (" + format_bytes(p.host_size) + ")\n";
  s += "Data area:      " + std::to_string(p.data_size) + " bytes at offset " + std::to_string(p.data_offset) + "\n";
  s += "Data content:   " + r.fill + "\n";
  return s;
}

namespace {

std::string filesystem_display_name(const std::string& fs) {
  if (fs == "fat" || fs == "vfat") return "FAT";
  if (fs == "exfat") return "exFAT";
  if (fs == "ntfs") return "NTFS";
  if (fs == "xfs") return "XFS";
  return fs;
}

class CreateCommand final : public Command {
 public:
  std::string name() const override { return "create"; }
  std::string summary() const override {
    return "Create a VeraCrypt volume (normal, or hidden inside an existing outer volume)";
  }
  std::string usage() const override {
    return "create VOLUME --size SIZE|max [--encryption CHAIN] [--hash PRF] [--pim N] [-k KEYFILE]... [--quick] "
           "[--filesystem fat|exfat|ext4|ntfs|btrfs|xfs|none] [--type normal|hidden [--outer-password-stdin | --trust-size]] "
           "[--sector-size 512|4096] [--random-source FILE] [--force]";
  }
  std::string example() const override {
    return "warpvol create secret.hc --size 1G --encryption aes-twofish --password-stdin < pw.txt";
  }
  bool uses_engine() const override { return true; }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    visible.add_options()
        ("size", po::value<std::string>()->value_name("SIZE"),
         "container size (normal: e.g. 100M, 1G, max = the folder's free space; min 299008 bytes). Hidden: the "
         "space the hidden volume takes at the end of the outer volume (min 40960)")
        ("type", po::value<std::string>()->value_name("normal|hidden")->default_value("normal"),
         "hidden: add a hidden volume to the existing outer container VOLUME (its hidden header slots are "
         "replaced; the outer volume's headers and data stay)")
        ("quick", "do not fill the data area (faster; free space is then distinguishable from data)")
        ("filesystem", po::value<std::string>()->value_name("fat|exfat|ext4|ntfs|btrfs|none")->default_value("fat"),
         "filesystem made by the system's mkfs.TYPE through the FUSE plaintext device of `warpvol mount` (needs "
         "root or FUSE access, and the mkfs tool: checked before anything is written); default FAT, as VeraCrypt "
         "on Linux; none: leave the data area unformatted")
        ("trust-size", "[--type hidden] place the hidden volume without opening the outer volume: its filesystem "
                       "is not checked, and data of the outer volume in the hidden area is destroyed");
    add_new_volume_options(visible);
    // --type hidden: the outer volume's credentials (asked for when not given), so its filesystem is checked and
    // the hidden volume is refused where it would overwrite used space. --trust-size skips that, explicitly.
    add_password_source_options(visible, "outer-", "[--type hidden] the outer volume's", true);
    hidden.add_options()("volume", po::value<std::string>(), "volume");
  }
  void add_positionals(po::positional_options_description& pos) const override { pos.add("volume", 1); }

  int execute(Context& ctx, const po::variables_map& vm) const override {
    require_positionals(vm, {"volume"});
    CreateOptions o;
    o.path = vm["volume"].as<std::string>();
    // 1. Option values, before any prompt.
    const std::string fs = vm["filesystem"].as<std::string>();
    std::optional<mount::MkfsTool> mkfs;  // mount owner: the tool is checked before anything is written
    if (fs != "none") {
      try {
        mkfs = mount::check_filesystem_creation(fs);
      } catch (const Error& e) {
        if (!vm["filesystem"].defaulted()) throw;
        throw Error(e.kind(), std::string(e.what()) + " (FAT is the default filesystem: --filesystem none creates "
                                                      "the volume without one)");
      }
    }
    const std::string type = vm["type"].as<std::string>();
    if (type == "normal") o.type = CreateType::Normal;
    else if (type == "hidden") o.type = CreateType::Hidden;
    else throw Error(ErrorKind::Usage, "--type must be normal or hidden");
    fill_new_volume_options(vm, o, ctx);
    o.quick = vm.count("quick") > 0;
    struct stat target_st;
    const bool block_device = o.type == CreateType::Normal && ::stat(o.path.c_str(), &target_st) == 0 &&
                              S_ISBLK(target_st.st_mode);
    if (vm.count("size")) {
      const std::string size = vm["size"].as<std::string>();
      if (size == "max") o.size_max = true;
      else o.size = parse_size(size);
      if (o.size == 0 && !o.size_max) throw Error(ErrorKind::Usage, "--size must be greater than 0");
    } else if (!block_device) {  // a block device is used whole
      throw Error(ErrorKind::Usage, "--size is required (e.g. --size 100M, or --size max)");
    }
    if (block_device) {
      // As VeraCrypt: the header's sector size is the device's logical sector size.
      int fd = ::open(o.path.c_str(), O_RDONLY | O_CLOEXEC);
      int lss = 0;
      if (fd >= 0) {
        if (::ioctl(fd, BLKSSZGET, &lss) != 0) lss = 0;
        ::close(fd);
      }
      if (lss == 512 || lss == 4096) {
        if (vm["sector-size"].defaulted()) o.sector_size = uint32_t(lss);
        else if (o.sector_size != uint32_t(lss))
          throw Error(ErrorKind::Usage, o.path + " has " + std::to_string(lss) + "-byte sectors; --sector-size " +
                                            std::to_string(o.sector_size) + " does not match");
      }
    }
    const bool outer_given = any_option_with_prefix(vm, "outer-");
    const bool trust_size = vm.count("trust-size") > 0;
    if (outer_given && o.type != CreateType::Hidden)
      throw Error(ErrorKind::Usage, "--outer-* options are for --type hidden");
    if (trust_size && o.type != CreateType::Hidden) throw Error(ErrorKind::Usage, "--trust-size is for --type hidden");
    if (trust_size && outer_given)
      throw Error(ErrorKind::Usage, "--trust-size skips the outer volume's check: drop the --outer-* options, or it");
    if (vm.count("random-source")) {
      const size_t n = set_random_source(vm["random-source"].as<std::string>());
      ctx.verbose_line("random source: mixed " + std::to_string(n) + " bytes");
    }
    EngineOptions eo;
    eo.choice = engine_choice_from(vm);
    if (o.type != CreateType::Hidden) eo.chains = {o.chain};  // a hidden volume's outer may run another chain
    eo.verbose = [&ctx](const std::string& m) { ctx.verbose_line(m); };
    // The fill writes one file from one thread; a device takes several writers.
    eo.one_writer = is_block_device(o.path) ? OneWriterJob::None : OneWriterJob::Fill;
    const bool non_interactive = vm.count("non-interactive") > 0;
    const bool check_outer = o.type == CreateType::Hidden && !trust_size;
    if (check_outer && !outer_given && (non_interactive || !::isatty(STDIN_FILENO)))
      throw Error(ErrorKind::Usage, "--type hidden needs the outer volume's credentials, to find where its files end "
                                    "(--outer-password-stdin, --outer-password-fd N, --outer-keyfile; with both "
                                    "passwords on stdin the outer one comes first), or --trust-size to place the "
                                    "hidden volume without that check");

    // 2. Pre-flight of everything that does not need the password (file, size, space), so a typo costs nothing.
    {
      CreateOptions probe = o;  // placeholder password: the real credentials are checked before any write
      probe.credentials.password = LockedBytes(reinterpret_cast<const uint8_t*>("x"), 1);
      probe.engine = nullptr;
      probe.quick = true;
      plan_create(probe);
    }
    // 3. Credentials: outer first (it exists already), then the new volume's.
    if (check_outer) {
      OpenOptions oo;
      oo.credentials = credentials_from_options(vm, "outer-", ctx, "Enter the OUTER volume's password", false,
                                                non_interactive);
      oo.notice = [&ctx](const std::string& m) { ctx.message(m); };
      o.outer = std::move(oo);
    }
    o.credentials = credentials_from_options(
        vm, "", ctx, std::string("Enter the new ") + (o.type == CreateType::Hidden ? "hidden " : "") +
                         "volume's password",
        true, non_interactive);
    check_new_password(o.credentials.password, "the new volume's password");
    o.pim = o.credentials.pim;
    check_new_password_strength(ctx, o.credentials, !any_option_with_prefix(vm, "password"));
    const auto t_engine = std::chrono::steady_clock::now();
    o.engine = make_engine(eo);
    const double engine_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_engine).count();
    ctx.verbose_line("engine " + o.engine->name() + ": " + o.engine->detail());
    o.notice = [&ctx](const std::string& m) { ctx.message(m); };

    ProgressRenderer progress(choose_progress_mode(vm.count("progress-json") > 0, vm.count("quiet") > 0), ctx.err);
    o.fill.progress = [&progress](const ProgressUpdate& u) { progress.update(u); };
    o.fill.summary = [&ctx](const std::string& m) { ctx.verbose_line(m); };
    const auto t0 = std::chrono::steady_clock::now();
    const bool outer_pw_stdin = vm.count("outer-password-stdin") && vm.count("password-stdin");
    CreateResult r = [&] {
      try {
        return create_volume(o);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::Auth || !outer_pw_stdin) throw;
        throw Error(e.kind(), std::string(e.what()) + "; stdin's first line is taken as the outer volume's "
                                                      "password and its second as the new hidden volume's");
      }
    }();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ctx.verbose_line(created_time_line(engine_secs, r, secs));
    if (o.type == CreateType::Normal) {  // a hidden volume's area is not filled: no fill progress to end
      ProgressUpdate done;
      done.phase = "fill";
      done.bytes_done = done.bytes_total = r.plan.data_size;
      done.finished = true;
      progress.finish(done);
    }
    if (mkfs) {  // mount owner: mkfs on the plaintext device of a temporary --filesystem none mount
      OpenOptions fo;
      fo.credentials = o.credentials;
      fo.credentials.pim = o.pim;
      fo.prf = o.prf;
      fo.chain = o.chain;
      fo.format = VolumeFormat::VeraCrypt;
      fo.slot = o.type == CreateType::Hidden ? SlotKind::Hidden : SlotKind::Normal;
      ctx.verbose_line("formatting " + fs + " with " + mkfs->program);
      try {
        mount::format_filesystem(o.path, fo, *mkfs, eo.choice, "", [&ctx](const std::string& m) { ctx.verbose_line(m); });
      } catch (const Error& e) {
        throw Error(e.kind(), std::string(e.what()) + " (" + o.path + " was created, without a filesystem)");
      }
    }
    ctx.out << describe_created(o, r);
    ctx.out << "Filesystem:     "
            << (mkfs ? filesystem_display_name(fs) + " (made by " + std::filesystem::path(mkfs->program).filename().string() + ")"
                     : std::string("none (unformatted; mount it with --filesystem none and make one yourself)"))
            << "\n";
    if (r.fill_seconds > 0 && !o.quick) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "Fill:           %.2f s, %.1f MB/s (total %.2f s)\n", r.fill_seconds,
                    double(r.plan.data_size) / r.fill_seconds / 1e6, secs);
      ctx.out << buf;
    }
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_create_command() { return std::make_unique<CreateCommand>(); }

}  // namespace warpvol::cli
