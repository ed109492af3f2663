// warpvol reencrypt VOLUME... [credentials] [--new-encryption CHAIN] [--new-hash PRF] [--new-pim N]
//   [--new-password-stdin | --new-password-fd N] [--new-keyfile K]... [--no-keyfiles] [--jobs N]
//   [--engine auto|cpu|gpu] [--resume | --resume-only] [--credentials-file FILE] [--progress-json]
//   [--resilience checksum|journal] [--hotzone-size N] [--journal-dir DIR] [--skip-bad] [--dry-run]
//   [--no-hidden-volume | --hidden-password-stdin|-fd N --hidden-keyfile K --hidden-pim N]
//
// Fresh master keys (always) and optionally a new chain/PRF/PIM/password/keyfiles for each container, data
// re-encrypted in place, crash-safe and resumable (core/reencrypt/reencrypt.h has the protocol). A TrueCrypt volume
// with the V1 layout (before 5.0: LRW/CBC; 5.x: XTS) is migrated in place into a VeraCrypt volume instead, its data
// moved to VeraCrypt's layout (core/reencrypt/migrate.h); the options and the resume work the same. Running the
// same command again continues an interrupted job; --resume-only refuses to start a new one. SIGINT/SIGTERM stop
// at the next safe point (exit code 6). --dry-run runs only the pre-flight (each container "ready" or "failed",
// nothing written), so that a fleet scheduler can check every container before any is touched.
//
// Passwords: the current one from the credential options (--password-stdin ...), the new one from --new-password*
// (default: keep the current password), the hidden volume's from --hidden-password*. When several come from stdin
// they are read in that order, one line each. --credentials-file gives them per container instead (one JSON
// object per line, mode 0600 required):
//   {"volume": "a.hc", "password": "..." | "password_file": "...", "keyfiles": [...], "pim": N,
//    "new_password": "..." | "new_password_file": "...", "new_keyfiles": [...], "new_pim": N, "no_keyfiles": bool,
//    "hidden_password": "..." | "hidden_password_file": "...", "hidden_keyfiles": [...], "hidden_pim": N,
//    "no_hidden_volume": bool}
// Progress: a bar per container plus a total on a terminal; with --progress-json one JSON object per line on
// stderr, cryptsetup-style (numbers as strings): {"device","phase","device_bytes","device_size","speed","eta_ms",
// "time_ms"}, the batch total with "device": "total". Summary on stdout at the end (JSON with --json).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>

#include "cli/command.h"
#include "cli/credentials.h"
#include "cli/credentials_file.h"
#include "cli/exit_codes.h"
#include "cli/new_credentials.h"
#include "cli/password_policy.h"
#include "cli/progress.h"
#include "core/engine/engine_factory.h"
#include "core/format/open.h"
#include "core/reencrypt/batch.h"
#include "core/util/error.h"

namespace warpvol::cli {
namespace {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------------------------
// Progress for a batch: one line per container and a total line (TTY), or JSON lines.
class BatchProgress {
 public:
  BatchProgress(ProgressMode mode, std::ostream& err) : mode_(mode), err_(err) {}

  void start(const std::vector<reenc::ItemResult>& items, const std::vector<const reenc::Job*>& jobs) {
    std::lock_guard<std::mutex> lk(mu_);
    t0_ = Clock::now();
    for (size_t i = 0; i < items.size(); ++i) {
      if (!jobs[i]) continue;
      Row r;
      r.name = items[i].path;
      r.total = jobs[i]->total_bytes();
      r.done = r.base = jobs[i]->done_bytes();
      r.phase = jobs[i]->resuming() ? "resume" : "queued";
      index_[r.name] = rows_.size();
      rows_.push_back(r);
    }
    draw(true);
  }

  void update(const ProgressUpdate& u) {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = index_.find(u.item);
    if (it == index_.end()) return;
    Row& r = rows_[it->second];
    const bool phase_change = r.phase != u.phase;
    if (!r.started) {
      r.started = true;
      r.t0 = Clock::now();
      r.base = u.bytes_done;
    }
    r.done = u.bytes_done;
    r.total = u.bytes_total;
    r.phase = u.phase;
    r.finished = u.finished;
    const auto now = Clock::now();
    if (mode_ == ProgressMode::Json) {
      if (phase_change || u.finished || now - r.last >= std::chrono::milliseconds(500)) {
        r.last = now;
        json_line(r);
      }
      if (now - last_total_ >= std::chrono::seconds(1) || u.finished) {
        last_total_ = now;
        json_total();
      } else {
        total_stale_ = true;
      }
      return;
    }
    if (mode_ == ProgressMode::Tty && (phase_change || u.finished || now - last_draw_ >= std::chrono::milliseconds(200)))
      draw(false);
  }

  void finish() {
    std::lock_guard<std::mutex> lk(mu_);
    // The final total, unless the last update already printed it (once, not twice).
    if (mode_ == ProgressMode::Json && !rows_.empty() && (total_stale_ || !total_printed_)) json_total();
    if (mode_ == ProgressMode::Tty && drawn_) draw(false);
  }

 private:
  struct Row {
    std::string name, phase;
    uint64_t total = 0, done = 0, base = 0;
    bool started = false, finished = false;
    Clock::time_point t0, last;
  };

  static double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  }
  double speed(const Row& r, Clock::time_point now) const {
    const double s = r.started ? seconds(r.t0, now) : 0;
    return s > 0.05 ? double(r.done - r.base) / s : 0;
  }

  void json_line(const Row& r) {
    const auto now = Clock::now();
    const double sp = speed(r, now);
    const uint64_t eta = sp > 0 && r.total > r.done ? uint64_t(double(r.total - r.done) / sp * 1000) : 0;
    nlohmann::json j = {{"device", r.name},
                        {"phase", r.phase},
                        {"device_bytes", std::to_string(r.done)},
                        {"device_size", std::to_string(r.total)},
                        {"speed", std::to_string(uint64_t(sp))},
                        {"eta_ms", std::to_string(eta)},
                        {"time_ms", std::to_string(uint64_t(r.started ? seconds(r.t0, now) * 1000 : 0))}};
    if (r.finished) j["finished"] = true;
    err_ << j.dump() << std::endl;
  }

  void totals(uint64_t& done, uint64_t& total, uint64_t& fresh) const {
    done = total = fresh = 0;
    for (const Row& r : rows_) {
      done += r.done;
      total += r.total;
      fresh += r.done - r.base;
    }
  }

  void json_total() {
    total_stale_ = false;
    total_printed_ = true;
    uint64_t done, total, fresh;
    totals(done, total, fresh);
    // Several containers finish (and finish() ends the batch) after the last byte: the final total once.
    if (done == total && final_total_printed_) return;
    final_total_printed_ = done == total;
    const double el = seconds(t0_, Clock::now());
    const double sp = el > 0.05 ? double(fresh) / el : 0;
    const uint64_t eta = sp > 0 && total > done ? uint64_t(double(total - done) / sp * 1000) : 0;
    err_ << nlohmann::json{{"device", "total"},
                           {"phase", "batch"},
                           {"device_bytes", std::to_string(done)},
                           {"device_size", std::to_string(total)},
                           {"speed", std::to_string(uint64_t(sp))},
                           {"eta_ms", std::to_string(eta)},
                           {"time_ms", std::to_string(uint64_t(el * 1000))}}
                .dump()
         << std::endl;
  }

  std::string line(const std::string& name, const std::string& phase, uint64_t done, uint64_t total, double sp,
                   bool finished) const {
    const double pct = total ? 100.0 * double(done) / double(total) : 100.0;
    const int width = 20;
    int filled = int(pct / 100.0 * width + 0.5);
    filled = std::min(filled, width);
    const double eta = sp > 0 && total > done ? double(total - done) / sp : -1;
    std::string shown = name.size() > 28 ? "..." + name.substr(name.size() - 25) : name;
    char buf[320];
    std::snprintf(buf, sizeof buf, "%-28s %-9s %10s / %-10s %5.1f%% [%s%s] %10s/s %s %s", shown.c_str(), phase.c_str(),
                  format_bytes(done).c_str(), format_bytes(total).c_str(), pct, std::string(size_t(filled), '#').c_str(),
                  std::string(size_t(width - filled), '.').c_str(), format_bytes(uint64_t(sp)).c_str(),
                  finished ? "" : "ETA", finished ? "" : format_duration(eta).c_str());
    return buf;
  }

  void draw(bool first) {
    if (mode_ != ProgressMode::Tty || rows_.empty()) return;
    const auto now = Clock::now();
    last_draw_ = now;
    if (drawn_) err_ << "\x1b[" << (rows_.size() + 1) << "A";
    for (const Row& r : rows_)
      err_ << "\r\x1b[K" << line(r.name, r.phase, r.done, r.total, speed(r, now), r.finished) << "\n";
    uint64_t done, total, fresh;
    totals(done, total, fresh);
    const double el = seconds(t0_, now);
    err_ << "\r\x1b[K" << line("total", "", done, total, el > 0.05 ? double(fresh) / el : 0, done == total) << "\n"
         << std::flush;
    drawn_ = true;
    (void)first;
  }

  ProgressMode mode_;
  std::ostream& err_;
  std::mutex mu_;
  std::vector<Row> rows_;
  std::map<std::string, size_t> index_;
  Clock::time_point t0_, last_draw_, last_total_;
  bool total_stale_ = false, total_printed_ = false;  // a row changed since the last total line
  bool final_total_printed_ = false;
  bool drawn_ = false;
};

// ---------------------------------------------------------------------------------------------------------------
// Credentials.

OpenOptions narrowing_from(const po::variables_map& vm) {
  OpenOptions o;
  if (vm.count("hash")) {
    auto p = parse_prf(vm["hash"].as<std::string>());
    if (!p) throw Error(ErrorKind::Usage, "unknown hash '" + vm["hash"].as<std::string>() + "'");
    o.prf = *p;
  }
  if (vm.count("encryption")) {
    auto c = parse_chain(vm["encryption"].as<std::string>());
    if (!c) throw Error(ErrorKind::Usage, "unknown encryption '" + vm["encryption"].as<std::string>() + "'");
    o.chain = *c;
  }
  if (vm.count("truecrypt") && vm.count("veracrypt"))
    throw Error(ErrorKind::Usage, "--truecrypt and --veracrypt exclude each other");
  if (vm.count("truecrypt")) o.format = VolumeFormat::TrueCrypt;
  if (vm.count("veracrypt")) o.format = VolumeFormat::VeraCrypt;
  if (vm.count("hidden")) o.slot = SlotKind::Hidden;
  o.backup_only = vm.count("backup-header") > 0;
  if (vm.count("system")) throw Error(ErrorKind::Usage, "system-encryption volumes are not re-encrypted by warpvol");
  return o;
}

LockedBytes read_password_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, "cannot read the password file " + path);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!s.empty() && s.back() == '\n') s.pop_back();
  if (!s.empty() && s.back() == '\r') s.pop_back();
  if (s.size() > kMaxPasswordBytes) {
    secure_wipe(s.data(), s.size());
    throw Error(ErrorKind::Usage, "the password in " + path + " is longer than " + std::to_string(kMaxPasswordBytes) +
                                      " bytes");
  }
  LockedBytes out(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  secure_wipe(s.data(), s.size());
  return out;
}

struct FileEntry {
  std::string volume;
  std::optional<LockedBytes> password, new_password, hidden_password;
  std::optional<std::vector<std::string>> keyfiles, new_keyfiles, hidden_keyfiles;
  std::optional<int> pim, new_pim, hidden_pim;
  bool no_keyfiles = false, no_hidden_volume = false;
};

LockedBytes json_password(const nlohmann::json& o, const std::string& key, const std::string& where) {
  std::string s = o.at(key).get<std::string>();
  if (s.size() > kMaxPasswordBytes) {
    secure_wipe(s.data(), s.size());
    throw Error(ErrorKind::Usage, where + ": \"" + key + "\" is longer than " + std::to_string(kMaxPasswordBytes) +
                                      " bytes");
  }
  LockedBytes out(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  secure_wipe(s.data(), s.size());
  return out;
}

std::vector<FileEntry> parse_credentials(std::istream& in, const std::string& path);

std::vector<FileEntry> read_credentials_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw_errno("credentials file " + path);
  if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::Usage, "credentials file " + path + " is not a regular file");
  if (st.st_mode & 077) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
    throw Error(ErrorKind::Usage, "credentials file " + path + " is readable by others (mode " + mode +
                                      "): it holds passwords and must be mode 0600 (chmod 600 " + path + ")");
  }
  std::ifstream in(path);
  if (!in) throw Error(ErrorKind::Io, "cannot read the credentials file " + path);
  return parse_credentials(in, path);
}

// The lines of a credentials file (`path` names it in messages); password files named in it are read.
std::vector<FileEntry> parse_credentials(std::istream& in, const std::string& path) {
  static const std::set<std::string> known = {
      "volume", "password", "password_file", "keyfiles", "pim", "new_password", "new_password_file", "new_keyfiles",
      "new_pim", "no_keyfiles", "hidden_password", "hidden_password_file", "hidden_keyfiles", "hidden_pim",
      "no_hidden_volume"};
  std::vector<FileEntry> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string where = path + " line " + std::to_string(n);
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      secure_wipe(line.data(), line.size());
      continue;
    }
    nlohmann::json o;
    try {
      o = nlohmann::json::parse(line);
    } catch (const std::exception&) {
      secure_wipe(line.data(), line.size());
      throw Error(ErrorKind::Usage, where + ": not a JSON object");
    }
    secure_wipe(line.data(), line.size());
    try {
      if (!o.is_object()) throw Error(ErrorKind::Usage, where + ": not a JSON object");
      for (auto it = o.begin(); it != o.end(); ++it)
        if (!known.count(it.key())) throw Error(ErrorKind::Usage, where + ": unknown key \"" + it.key() + "\"");
      FileEntry e;
      if (!o.contains("volume") || !o["volume"].is_string())
        throw Error(ErrorKind::Usage, where + ": \"volume\" (a path) is required");
      e.volume = o["volume"].get<std::string>();
      auto pw = [&](const std::string& k, std::optional<LockedBytes>& dst) {
        if (o.contains(k) && o.contains(k + "_file"))
          throw Error(ErrorKind::Usage, where + ": give \"" + k + "\" or \"" + k + "_file\", not both");
        if (o.contains(k)) dst = json_password(o, k, where);
        if (o.contains(k + "_file")) dst = read_password_file(o[k + "_file"].get<std::string>());
      };
      pw("password", e.password);
      pw("new_password", e.new_password);
      pw("hidden_password", e.hidden_password);
      auto kf = [&](const std::string& k, std::optional<std::vector<std::string>>& dst) {
        if (o.contains(k)) dst = o[k].get<std::vector<std::string>>();
      };
      kf("keyfiles", e.keyfiles);
      kf("new_keyfiles", e.new_keyfiles);
      kf("hidden_keyfiles", e.hidden_keyfiles);
      auto pim = [&](const std::string& k, std::optional<int>& dst) {
        if (!o.contains(k)) return;
        // Integers only: nlohmann's get<int>() of 1e300 is an undefined float-to-int conversion.
        if (!o[k].is_number_integer()) throw Error(ErrorKind::Usage, where + ": \"" + k + "\" must be a whole number");
        if (o[k].is_number_unsigned() ? o[k].get<uint64_t>() > uint64_t(kMaxPim)
                                      : (o[k].get<int64_t>() < 0 || o[k].get<int64_t>() > kMaxPim))
          throw Error(ErrorKind::Usage, where + ": \"" + k + "\" out of range");
        dst = int(o[k].get<int64_t>());
      };
      pim("pim", e.pim);
      pim("new_pim", e.new_pim);
      pim("hidden_pim", e.hidden_pim);
      e.no_keyfiles = o.value("no_keyfiles", false);
      e.no_hidden_volume = o.value("no_hidden_volume", false);
      if (e.no_keyfiles && e.new_keyfiles) throw Error(ErrorKind::Usage, where + ": no_keyfiles with new_keyfiles");
      if (!e.password && !e.keyfiles)
        throw Error(ErrorKind::Usage, where + ": a password, password_file or keyfiles is required");
      out.push_back(std::move(e));
    } catch (const Error&) {
      throw;
    } catch (const std::exception& ex) {
      throw Error(ErrorKind::Usage, where + ": bad value (" + ex.what() + ")");
    }
    // Passwords held by the json object: wipe the strings before it goes.
    for (const char* k : {"password", "new_password", "hidden_password"})
      if (o.contains(k) && o[k].is_string()) {
        auto& s = o[k].get_ref<std::string&>();
        secure_wipe(s.data(), s.size());
      }
  }
  return out;
}

bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// ---------------------------------------------------------------------------------------------------------------

class ReencryptCommand final : public Command {
 public:
  std::string name() const override { return "reencrypt"; }
  std::string summary() const override {
    return "Re-encrypt containers in place with new master keys (and optionally a new cipher, hash, password): "
           "crash-safe, resumable, in batches; migrates TrueCrypt volumes from before 5.0 into VeraCrypt volumes";
  }
  std::string usage() const override {
    return "reencrypt VOLUME... [credentials] [--new-encryption CHAIN] [--new-hash PRF] [--new-pim N] "
           "[--new-password-stdin | --new-password-fd N] [--new-keyfile K]... [--jobs N] [--resume | --resume-only] "
           "[--credentials-file FILE] [--progress-json]";
  }
  std::string example() const override {
    return "printf '%s\\n' \"$PW\" | warpvol reencrypt a.hc b.hc --password-stdin --new-encryption serpent "
           "--no-hidden-volume --jobs 2";
  }
  bool opens_volume() const override { return true; }
  bool uses_engine() const override { return true; }
  bool has_json() const override { return true; }

  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    visible.add_options()
        ("new-encryption", po::value<std::string>()->value_name("CHAIN"),
         "new encryption chain, e.g. aes, serpent, aes-twofish-serpent (default: keep)")
        ("new-hash", po::value<std::string>()->value_name("PRF"),
         "PRF of the new header key: sha512, sha256, blake2s, whirlpool, streebog, argon2 (default: keep)");
    add_password_source_options(visible, "new-", "the new", true);
    visible.add_options()
        ("no-keyfiles", "the new credentials use no keyfiles (default: keep the current keyfiles)")
        ("ask-new-password", "prompt for a new password on the terminal (default without --new-password*: keep)");
    add_password_source_options(visible, "hidden-", "the hidden volume's", true);
    visible.add_options()
        ("no-hidden-volume", "state that the volumes hide no hidden volume (re-encrypting a normal volume alone "
                             "would destroy one; else give the hidden volume's credentials with --hidden-*)")
        ("resume", "continue interrupted re-encryptions (also the default when a journal exists)")
        ("resume-only", "only continue interrupted re-encryptions, never start a new one")
        ("resilience", po::value<std::string>()->value_name("checksum|journal")->default_value("checksum"),
         "hot-zone protection: checksum (a hash of each new 512-byte unit; needs 512-byte-atomic writes) or journal "
         "(a copy of the old data; survives torn writes, writes the data twice)")
        ("hotzone-size", po::value<std::string>()->value_name("N"),
         "bytes per hot zone (default 32M; 4M when the container and its journal are on a memory file system, "
         "such as /dev/shm, and the GPU re-encrypts with checksum resilience)")
        ("journal-dir", po::value<std::string>()->value_name("DIR"),
         "folder of the journal files (default: each container's folder)")
        ("jobs,j", po::value<unsigned>()->value_name("N")->default_value(1), "containers re-encrypted at once")
        ("skip-bad", "when some containers fail the pre-flight checks, re-encrypt the others")
        ("dry-run", "only the pre-flight checks (credentials, journal to resume, lock, new headers); nothing is "
                    "written; each container is reported ready or failed")
        ("credentials-file", po::value<std::string>()->value_name("FILE"),
         "per-container credentials: one JSON object per line (mode 0600 required)")
        ("progress-json", "progress as JSON lines on stderr (cryptsetup-style, numbers as strings)")
        ("quiet,q", "no progress bars on a terminal");
    hidden.add_options()("volume", po::value<std::vector<std::string>>(), "volumes");
  }
  void add_positionals(po::positional_options_description& pos) const override { pos.add("volume", -1); }

  int execute(Context& ctx, const po::variables_map& vm) const override {
    // ---- options that need no password ----
    std::vector<std::string> volumes;
    if (vm.count("volume")) volumes = vm["volume"].as<std::vector<std::string>>();
    std::vector<FileEntry> entries;
    if (vm.count("credentials-file")) entries = read_credentials_file(vm["credentials-file"].as<std::string>());
    for (const FileEntry& e : entries) {
      bool listed = false;
      for (const auto& v : volumes) listed |= same_file(v, e.volume);
      if (!listed) volumes.push_back(e.volume);
    }
    if (volumes.empty()) throw missing_positionals({"volume"});
    if (vm.count("resume") && vm.count("resume-only"))
      throw Error(ErrorKind::Usage, "--resume and --resume-only exclude each other");
    reenc::NewSettings next;
    if (vm.count("new-encryption")) {
      auto c = parse_chain(vm["new-encryption"].as<std::string>());
      if (!c)
        throw Error(ErrorKind::Usage, "unknown --new-encryption '" + vm["new-encryption"].as<std::string>() + "' (" +
                                          chain_names_list() + ")");
      next.chain = *c;
    }
    if (vm.count("new-hash")) {
      auto p = parse_prf(vm["new-hash"].as<std::string>());
      if (!p || !prf_info(*p).veracrypt)
        throw Error(ErrorKind::Usage, "unknown or unsupported --new-hash '" + vm["new-hash"].as<std::string>() +
                                          "' (sha512, sha256, blake2s, whirlpool, streebog, argon2)");
      next.prf = *p;
    }
    if (vm.count("no-keyfiles") && vm.count("new-keyfile"))
      throw Error(ErrorKind::Usage, "--no-keyfiles and --new-keyfile exclude each other");
    for (const char* k : {"new-pim", "hidden-pim"})
      if (vm.count(k) && (vm[k].as<int>() < 0 || vm[k].as<int>() > kMaxPim))
        throw Error(ErrorKind::Usage, std::string("--") + k + " must be between 0 and " + std::to_string(kMaxPim));
    if (vm.count("new-pim")) next.pim = vm["new-pim"].as<int>();
    if (vm.count("new-keyfile")) next.keyfiles = vm["new-keyfile"].as<std::vector<std::string>>();
    if (vm.count("no-keyfiles")) next.keyfiles = std::vector<std::string>{};
    reenc::BatchOptions bo;
    bo.jobs = vm["jobs"].as<unsigned>();
    if (bo.jobs < 1 || bo.jobs > 64) throw Error(ErrorKind::Usage, "--jobs must be between 1 and 64");
    bo.skip_bad = vm.count("skip-bad") > 0;
    bo.dry_run = vm.count("dry-run") > 0;
    const std::string res = vm["resilience"].as<std::string>();
    if (res == "checksum") bo.job.resilience = reenc::Resilience::Checksum;
    else if (res == "journal") bo.job.resilience = reenc::Resilience::Journal;
    else throw Error(ErrorKind::Usage, "--resilience must be checksum or journal");
    if (vm.count("hotzone-size")) {
      const uint64_t h = parse_size(vm["hotzone-size"].as<std::string>());
      if (h < 65536 || h > (uint64_t(1) << 30) || h % 512)
        throw Error(ErrorKind::Usage, "--hotzone-size must be a multiple of 512 between 64K and 1G");
      bo.job.hotzone = h;
    }
    if (vm.count("journal-dir")) bo.job.journal_dir = vm["journal-dir"].as<std::string>();
    bo.job.policy = vm.count("resume-only") ? reenc::StartPolicy::ResumeOnly : reenc::StartPolicy::StartOrResume;
    const OpenOptions narrowing = narrowing_from(vm);
    const bool non_interactive = vm.count("non-interactive") > 0;
    for (const auto& v : volumes) open_volume_file(v).reset();  // each exists and can be a volume: before prompts

    // ---- passwords: current, new, hidden (in this order from stdin) ----
    auto entry_for = [&](const std::string& v) -> const FileEntry* {
      for (const FileEntry& e : entries)
        if (same_file(v, e.volume)) return &e;
      return nullptr;
    };
    bool need_cli_creds = false;
    for (const auto& v : volumes) need_cli_creds |= entry_for(v) == nullptr;
    OpenOptions cli_open = narrowing;
    if (need_cli_creds) cli_open = open_options_from(vm, volumes.size() == 1 ? volumes[0] : "the volumes", ctx);
    if (auto pw = password_from_options(vm, "new-", kMaxPasswordBytes, ctx)) {
      next.password = std::move(*pw);
    } else if (vm.count("ask-new-password")) {
      if (non_interactive) throw Error(ErrorKind::Usage, "--ask-new-password and --non-interactive exclude each other");
      next.password = prompt_new_password(ctx, "Enter the NEW password", true, kMaxPasswordBytes, "new-");
    }
    if (next.password) check_new_password(*next.password, "the new password");
    std::optional<OpenOptions> cli_hidden;
    if (any_option_with_prefix(vm, "hidden-")) {
      if (vm.count("no-hidden-volume"))
        throw Error(ErrorKind::Usage, "--no-hidden-volume and the --hidden-* credentials exclude each other");
      OpenOptions h = narrowing;
      h.slot = SlotKind::Hidden;
      h.credentials = credentials_from_options(vm, "hidden-", ctx, "Enter the hidden volume's password", false,
                                               non_interactive);
      cli_hidden = std::move(h);
    }

    std::vector<reenc::VolumeRequest> reqs;
    for (const auto& v : volumes) {
      reenc::VolumeRequest r;
      r.path = v;
      const FileEntry* e = entry_for(v);
      if (!e) {
        r.open = cli_open;
        r.open.notice = [&ctx](const std::string& m) { ctx.message(m); };
        r.hidden = cli_hidden;
        r.no_hidden_volume = vm.count("no-hidden-volume") > 0;
        r.next = next;
      } else {
        r.open = narrowing;
        if (e->password) r.open.credentials.password = *e->password;
        if (e->keyfiles) r.open.credentials.keyfiles = *e->keyfiles;
        r.open.credentials.pim = e->pim.value_or(0);
        if (r.open.credentials.password.empty() && r.open.credentials.keyfiles.empty())
          throw Error(ErrorKind::Usage, v + ": empty password and no keyfiles in the credentials file");
        r.open.notice = [&ctx](const std::string& m) { ctx.message(m); };
        r.next = next;
        if (e->new_password) {
          r.next.password = *e->new_password;
          check_new_password(*r.next.password, v + ": the new password");
        }
        if (e->new_keyfiles) r.next.keyfiles = *e->new_keyfiles;
        if (e->no_keyfiles) r.next.keyfiles = std::vector<std::string>{};
        if (e->new_pim) r.next.pim = *e->new_pim;
        if (e->hidden_password || e->hidden_keyfiles) {
          OpenOptions h = narrowing;
          h.slot = SlotKind::Hidden;
          if (e->hidden_password) h.credentials.password = *e->hidden_password;
          if (e->hidden_keyfiles) h.credentials.keyfiles = *e->hidden_keyfiles;
          h.credentials.pim = e->hidden_pim.value_or(0);
          r.hidden = std::move(h);
        } else {
          r.hidden = cli_hidden;
        }
        r.no_hidden_volume = e->no_hidden_volume || vm.count("no-hidden-volume") > 0;
      }
      if (r.hidden && r.no_hidden_volume)
        throw Error(ErrorKind::Usage, v + ": hidden-volume credentials and no_hidden_volume exclude each other");
      reqs.push_back(std::move(r));
    }

    // ---- engine, progress, run ----
    EngineOptions eo;
    eo.choice = engine_choice_from(vm);
    eo.verbose = [&ctx](const std::string& m) { ctx.verbose_line(m); };
    eo.chains = named_chains(vm);
    // One container at a time, each a file rewritten from one thread (a device takes several writers), with
    // checksum resilience: journal resilience digests every zone's old ciphertext on the cores, where the CPU
    // engine's passes compete with it and the GPU's do not (docs/perf/measurements-2026-11-29-session27.md). A
    // resumed job keeps its journal's mode, which the same command names again.
    const bool one_writer =
        bo.job.resilience == reenc::Resilience::Checksum && (bo.jobs == 1 || reqs.size() == 1) &&
        std::none_of(reqs.begin(), reqs.end(), [](const auto& r) { return is_block_device(r.path); });
    eo.one_writer = one_writer ? OneWriterJob::Reencrypt : OneWriterJob::None;
    const auto t_engine = Clock::now();
    bo.job.engine = make_engine(eo);
    const double engine_secs = std::chrono::duration<double>(Clock::now() - t_engine).count();
    ctx.verbose_line("engine " + bo.job.engine->name() + ": " + bo.job.engine->detail());
    bo.job.cancel = ctx.cancel;
    bo.job.notice = [&ctx](const std::string& m) { ctx.message(m); };
    bo.job.summary = [&ctx](const std::string& m) { ctx.verbose_line(m); };
    BatchProgress progress(choose_progress_mode(vm.count("progress-json") > 0, vm.count("quiet") > 0), ctx.err);
    bo.job.progress = [&progress](const ProgressUpdate& u) { progress.update(u); };
    Clock::time_point t_prepared{};
    size_t keys_along = 0;
    bo.on_prepared = [&](const std::vector<reenc::ItemResult>& items, const std::vector<const reenc::Job*>& jobs) {
      t_prepared = Clock::now();
      for (const reenc::Job* j : jobs) keys_along += j && j->header_keys_derived_with_open();
      for (size_t i = 0; i < items.size(); ++i)
        if (jobs[i] && jobs[i]->resuming())
          ctx.verbose_line(items[i].path + ": resuming the interrupted re-encryption (journal " +
                           jobs[i]->journal_path() + ")");
      progress.start(items, jobs);
    };
    const auto t0 = Clock::now();
    std::vector<reenc::ItemResult> results = reenc::run_batch(reqs, bo);
    progress.finish();
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    if (t_prepared != Clock::time_point{}) {
      const double pre = std::chrono::duration<double>(t_prepared - t0).count();
      char line[300];
      std::snprintf(line, sizeof line,
                    "time: engine ready in %.3f s; then the pre-flight of %zu container(s) (credentials, key "
                    "derivations, new headers; new keys derived along the open for %zu) %.3f s, the jobs %.3f s",
                    engine_secs, reqs.size(), keys_along, pre, secs - pre);
      ctx.verbose_line(line);
    }
    return summarize(ctx, results, secs, bo.dry_run);
  }

 private:
  // "r1.hc: failed: in use": the reason without the container's name when the error message starts with it.
  static void report_failure(const Context& ctx, const reenc::ItemResult& r) {
    std::string reason = r.reason;
    for (const std::string& name : {r.path, std::filesystem::absolute(r.path).string()})
      if (reason.rfind(name + ": ", 0) == 0) reason.erase(0, name.size() + 2);
    ctx.message(r.path + ": " + std::string(item_status_name(r.status)) + ": " + reason);
  }

  static int summarize(Context& ctx, const std::vector<reenc::ItemResult>& results, double secs, bool dry_run) {
    int code = 0;
    bool interrupted = false;
    size_t done = 0;
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& r : results) {
      if (r.status == reenc::ItemStatus::Ready) {
        ++done;
        if (ctx.json) {
          arr.push_back({{"volume", r.path},
                         {"status", "ready"},
                         {"description", r.description},
                         {"total_bytes", std::to_string(r.total_bytes)},
                         {"resume", r.resumed}});
        } else {
          ctx.out << r.path << ": ready" << (r.resumed ? " (an interrupted re-encryption resumes)" : "") << " -- "
                  << r.description << "\n";
        }
        continue;
      }
      if (r.status == reenc::ItemStatus::Done) {
        ++done;
      } else {
        if (r.status == reenc::ItemStatus::Interrupted) interrupted = true;
        if (!code) code = exit_code(r.kind);
      }
      const double s = r.result.seconds;
      const double speed = s > 0 ? double(r.result.bytes) / s : 0;
      if (ctx.json) {
        nlohmann::json j = {{"volume", r.path}, {"status", std::string(item_status_name(r.status))}};
        if (!r.reason.empty()) j["reason"] = r.reason;
        if (!r.description.empty()) j["description"] = r.description;
        if (r.status == reenc::ItemStatus::Done) {
          j["bytes"] = std::to_string(r.result.bytes);
          j["seconds"] = s;
          j["bytes_per_second"] = std::to_string(uint64_t(speed));
          j["resumed"] = r.resumed;
        }
        arr.push_back(j);
        if (r.status != reenc::ItemStatus::Done) report_failure(ctx, r);
        continue;
      }
      if (r.status != reenc::ItemStatus::Done) {  // once, on stderr; stdout has the results
        report_failure(ctx, r);
        continue;
      }
      char buf[96];
      std::snprintf(buf, sizeof buf, " in %.1f s, %s/s", s, format_bytes(uint64_t(speed)).c_str());
      ctx.out << r.path << ": " << item_status_name(r.status) << (r.resumed ? " (resumed)" : "") << " -- "
              << r.description << buf << "\n";
    }
    if (interrupted) code = exit_code(ErrorKind::Interrupted);
    if (ctx.json) {
      ctx.out << nlohmann::json{{"volumes", arr}, {dry_run ? "ready" : "done", done}, {"total", results.size()},
                                {"seconds", secs}, {"exit_code", code}}
                     .dump(2)
              << std::endl;
    } else if (results.size() > 1) {
      ctx.out << done << " of " << results.size() << (dry_run ? " containers ready\n" : " containers re-encrypted\n");
    }
    ctx.out.flush();
    return code;
  }
};

}  // namespace

size_t parse_credentials_text(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  return parse_credentials(in, name).size();
}

std::unique_ptr<Command> make_reencrypt_command() { return std::make_unique<ReencryptCommand>(); }

}  // namespace warpvol::cli
