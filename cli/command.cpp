#include "cli/command.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "core/util/env.h"
#include "core/util/error.h"

namespace warpvol::cli {

namespace {
// The origin of WARPVOL_VERBOSE_TIMES's figures: this object's construction, at the program's static
// initialisation (the binary is linked statically in the builds that are measured), so before main.
const auto kProgramStart = std::chrono::steady_clock::now();
}  // namespace

bool verbose_times() {
  static const bool on = env_number("WARPVOL_VERBOSE_TIMES", 0, 1).value_or(0) == 1;
  return on;
}

void Context::message(const std::string& msg) const { err << program << ": " << msg << std::endl; }

void Context::verbose_line(const std::string& msg) const {
  if (!verbose) return;
  if (verbose_times()) {
    char t[32];
    std::snprintf(t, sizeof t, "[%.3f s] ",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - kProgramStart).count());
    err << program << ": " << t << msg << std::endl;
  } else {
    err << program << ": " << msg << std::endl;
  }
}

void Context::check_cancel() const {
  if (cancel()) throw Error(ErrorKind::Interrupted, "interrupted");
}

Error Command::missing_positionals(const std::vector<std::string>& names) const {
  std::string list;
  for (const auto& n : names) {
    std::string upper = n;
    for (auto& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
    list += (list.empty() ? "" : " or ") + upper;
  }
  return Error(ErrorKind::Usage, "missing " + list + " (usage: warpvol " + usage() + ")");
}

void Command::require_positionals(const po::variables_map& vm, const std::vector<std::string>& names) const {
  for (const auto& n : names)
    if (!vm.count(n)) throw missing_positionals(names);
}

const std::vector<std::unique_ptr<Command>>& commands() {
  static const std::vector<std::unique_ptr<Command>> list = [] {
    std::vector<std::unique_ptr<Command>> v;
    v.push_back(make_info_command());
    v.push_back(make_export_command());
    v.push_back(make_test_command());
    v.push_back(make_benchmark_command());
    v.push_back(make_mount_command());
    v.push_back(make_list_command());
    v.push_back(make_dismount_command());
    v.push_back(make_create_command());
    v.push_back(make_import_command());
    v.push_back(make_change_command());
    v.push_back(make_backup_headers_command());
    v.push_back(make_restore_headers_command());
    v.push_back(make_convert_command());
    v.push_back(make_keyfile_command());
    v.push_back(make_reencrypt_command());
    v.push_back(make_gpu_agent_command());
    return v;
  }();
  return list;
}

const Command* find_command(const std::string& name) {
  for (const auto& c : commands())
    if (c->name() == name) return c.get();
  return nullptr;
}

EngineChoice engine_choice_from(const po::variables_map& vm) {
  if (!vm.count("engine")) return EngineChoice::Auto;
  const std::string& s = vm["engine"].as<std::string>();
  auto c = parse_engine_choice(s);
  if (!c) throw Error(ErrorKind::Usage, "unknown engine '" + s + "' (cpu, gpu or auto)");
  return *c;
}

std::vector<ChainId> named_chains(const po::variables_map& vm) {
  std::vector<ChainId> chains;
  for (const char* option : {"encryption", "new-encryption"}) {
    if (!vm.count(option)) continue;
    auto c = parse_chain(vm[option].as<std::string>());
    if (!c) return {};
    chains.push_back(*c);
  }
  if (!vm.count("encryption")) return {};
  return chains;
}

uint64_t parse_size(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0) throw Error(ErrorKind::Usage, "bad size '" + s + "' (examples: 4096, 64K, 16M, 1G)");
  uint64_t v = 0;
  for (size_t k = 0; k < i; ++k) {
    if (v > (UINT64_MAX - 9) / 10) throw Error(ErrorKind::Usage, "size too large: " + s);
    v = v * 10 + uint64_t(s[k] - '0');
  }
  std::string unit;
  for (size_t k = i; k < s.size(); ++k) unit += char(std::tolower(static_cast<unsigned char>(s[k])));
  int shift = 0;
  if (unit.empty() || unit == "b") shift = 0;
  else if (unit == "k" || unit == "kib" || unit == "kb") shift = 10;
  else if (unit == "m" || unit == "mib" || unit == "mb") shift = 20;
  else if (unit == "g" || unit == "gib" || unit == "gb") shift = 30;
  else if (unit == "t" || unit == "tib" || unit == "tb") shift = 40;
  else throw Error(ErrorKind::Usage, "bad size unit in '" + s + "' (K, M, G or T, binary multiples)");
  if (shift && v > (UINT64_MAX >> shift)) throw Error(ErrorKind::Usage, "size too large: " + s);
  return v << shift;
}

std::string format_bytes(uint64_t n) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (n < 1024) return std::to_string(n) + " B";
  double v = double(n);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (std::fabs(v - std::round(v)) < 1e-9)
    std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace warpvol::cli
