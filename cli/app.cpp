#include "cli/app.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <iostream>
#include <sstream>
#include <typeinfo>

#include "cli/argv_scrub.h"
#include "cli/command.h"
#include "cli/credentials.h"
#include "cli/exit_codes.h"
#include "cli/signals.h"
#include "cli/veracrypt_options.h"
#include "core/util/error.h"
#include "core/util/secure.h"

#ifndef WARPVOL_VERSION
#define WARPVOL_VERSION "unknown"
#endif

namespace warpvol::cli {
namespace {

constexpr unsigned kLineLength = 100;

void print_command_help(const Command& cmd, std::ostream& os) {
  po::options_description common("General options", kLineLength), own("Options", kLineLength), hidden("h"),
      creds("Credentials and narrowing", kLineLength);
  add_common_options(cmd, common);
  cmd.add_options(own, hidden);
  os << "Usage: warpvol " << cmd.usage() << "\n\n" << cmd.summary() << "\n\n";
  if (!own.options().empty()) os << own << "\n";
  if (cmd.opens_volume()) {
    add_credential_options(creds);
    os << creds << "\n";
  }
  os << common << "\nExample:\n  " << cmd.example() << "\n";
}

bool args_have(const std::vector<std::string>& args, const std::string& opt) {
  for (const auto& a : args) {
    if (a == "--") break;
    if (a == opt || a.rfind(opt + "=", 0) == 0) return true;
  }
  return false;
}

}  // namespace

void add_common_options(const Command& cmd, po::options_description& desc) {
  desc.add_options()("help,h", "show this help")("verbose,v", "explain what is being done (engine choice, search)");
  if (cmd.uses_engine())
    desc.add_options()("engine", po::value<std::string>()->value_name("cpu|gpu|auto")->default_value("auto"),
                       "engine for the data path: cpu, gpu, or auto (GPU for large requests when present)");
  if (cmd.has_json()) desc.add_options()("json", "machine-readable JSON on stdout (errors too)");
}

void print_general_help(std::ostream& os) {
  os << "warpvol " WARPVOL_VERSION " - TrueCrypt/VeraCrypt-compatible volume tool\n\n"
     << "Usage: warpvol [--verbose] COMMAND [ARGS] [OPTIONS]\n\nCommands:\n";
  for (const auto& c : commands()) {
    std::string n = c->name();
    os << "  " << n << std::string(n.size() < 12 ? 12 - n.size() : 1, ' ') << c->summary() << "\n";
  }
  os << "\nRun 'warpvol COMMAND --help' (or 'warpvol help COMMAND') for a command's options.\n"
     << "Passwords are read from the terminal with echo off, or with --password-stdin / --password-fd N.\n"
     << "\nExit codes:\n";
  for (const auto& e : exit_code_table()) os << "  " << e.code << "  " << e.meaning << "\n";
  os << "\nEnvironment:\n  WARPVOL_CPU_PATH=portable|aesni|avx2|avx512  use at most this CPU instruction-set path\n";
}

int run(const std::vector<std::string>& given_args, std::ostream& out, std::ostream& err) {
  Context ctx(out, err);
  ctx.cancel.requested = [] { return interrupt_requested(); };
  ctx.json = args_have(given_args, "--json");
  try {
    std::vector<std::string> args = translate_veracrypt_arguments(given_args);
    // The copy may hold a --password value: wiped like run_main's own copy.
    struct Wipe {
      std::vector<std::string>& v;
      ~Wipe() {
        for (auto& a : v) std::fill(a.begin(), a.end(), '\0');
      }
    } wipe{args};
    // Global options before the command name.
    size_t i = 0;
    std::vector<std::string> pre;
    while (i < args.size() && args[i].size() > 1 && args[i][0] == '-') {
      const std::string& a = args[i];
      if (a == "--help" || a == "-h") {
        print_general_help(out);
        return kExitOk;
      }
      if (a == "--version" || a == "-V") {
        out << "warpvol " WARPVOL_VERSION "\n";
        return kExitOk;
      }
      pre.push_back(a);
      if (a == "--engine" && i + 1 < args.size()) pre.push_back(args[++i]);
      ++i;
    }
    if (i == args.size()) throw Error(ErrorKind::Usage, "no command given (see 'warpvol --help')");
    const std::string name = args[i];
    if (name == "help") {
      if (i + 1 < args.size()) {
        const Command* c = find_command(args[i + 1]);
        if (!c) throw Error(ErrorKind::Usage, "unknown command '" + args[i + 1] + "' (see 'warpvol --help')");
        print_command_help(*c, out);
      } else {
        print_general_help(out);
      }
      return kExitOk;
    }
    const Command* cmd = find_command(name);
    if (!cmd) throw Error(ErrorKind::Usage, "unknown command '" + name + "' (see 'warpvol --help')");

    std::vector<std::string> rest = pre;
    rest.insert(rest.end(), args.begin() + long(i) + 1, args.end());

    po::options_description all("all");
    po::options_description common("General options"), own("Options"), hidden("Hidden"), creds("Credentials");
    po::positional_options_description pos;
    add_common_options(*cmd, common);
    cmd->add_options(own, hidden);
    cmd->add_positionals(pos);
    all.add(common).add(own).add(hidden);
    if (cmd->opens_volume()) {
      add_credential_options(creds);
      all.add(creds);
    }
    po::variables_map vm;
    po::store(po::command_line_parser(rest).options(all).positional(pos).run(), vm);
    if (vm.count("help")) {
      print_command_help(*cmd, out);
      return kExitOk;
    }
    po::notify(vm);
    ctx.verbose = vm.count("verbose") > 0;
    ctx.json = cmd->has_json() && vm.count("json") > 0;
    struct LockNotice {  // a failed mlock() is said once, under --verbose
      explicit LockNotice(const Context& c) {
        if (c.verbose) set_memory_lock_failure_notice([&c](const std::string& m) { c.message(m); });
      }
      ~LockNotice() { set_memory_lock_failure_notice({}); }
    } lock_notice(ctx);
    if (cmd->prestarts_engine()) prestart_gpu_engine(engine_choice_from(vm), named_chains(vm));
    const int rc = cmd->execute(ctx, vm);
    if (verbose_times()) ctx.verbose_line("the command returned (its engine, files and buffers released)");
    return rc;
  } catch (const std::exception& e) {
    const int code = exit_code_for(e);
    std::string msg = e.what();
    if (auto* u = dynamic_cast<const po::unknown_option*>(&e))
      if (auto hint = warpvol_spelling_hint(u->get_option_name())) msg += "; warpvol's spelling: " + *hint;
    if (msg.empty()) msg = std::string("unknown error (") + typeid(e).name() + ")";
    out.flush();
    err << "warpvol: " << msg << std::endl;
    if (ctx.json) out << nlohmann::ordered_json{{"error", msg}, {"code", code}}.dump() << std::endl;
    return code;
  }
}

int run_main(int argc, char** argv) {
  make_process_undumpable();
  install_signal_handlers();
  std::vector<std::string> args(argv + 1, argv + argc);
  wipe_secret_options(argc, argv);
  int code = run(args, std::cout, std::cerr);
  for (auto& a : args) std::fill(a.begin(), a.end(), '\0');
  std::cout.flush();
  if (!std::cout) {
    // stdout could not be written (closed pipe, full disk): that is an I/O error unless we already failed.
    if (code == kExitOk) {
      std::cerr << "warpvol: cannot write to standard output" << std::endl;
      code = exit_code(ErrorKind::Io);
    }
  }
  return code;
}

}  // namespace warpvol::cli
