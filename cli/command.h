// warpvol's subcommands, one class per command (after KeePassXC's cli/Command): each declares its options and
// positional arguments and runs with a Context. The registry (commands()) lists them in help order; app.cpp
// parses the command line, dispatches, and maps errors to exit codes through exit_codes.h.
#pragma once
#include <boost/program_options.hpp>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/engine_factory.h"
#include "core/format/open.h"
#include "core/io/file.h"
#include "core/util/error.h"
#include "core/util/progress.h"

namespace warpvol::cli {

namespace po = boost::program_options;

// What a running command gets from the program: streams, global options, cancellation.
struct Context {
  std::ostream& out;  // data only
  std::ostream& err;  // messages, prompts, progress
  bool verbose = false;
  bool json = false;  // --json was given (errors are then also printed as JSON on stdout)
  CancelToken cancel;
  std::string program = "warpvol";

  Context(std::ostream& o, std::ostream& e) : out(o), err(e) {}
  // "warpvol: <msg>" on stderr.
  void message(const std::string& msg) const;
  // Only with --verbose; with WARPVOL_VERBOSE_TIMES=1 each line starts with the seconds since the program started
  // (where a job's wall time goes before and after its data path: measurements, docs/perf).
  void verbose_line(const std::string& msg) const;
  // Throws Error(Interrupted) when SIGINT/SIGTERM arrived.
  void check_cancel() const;
};

// WARPVOL_VERBOSE_TIMES=1 is set.
bool verbose_times();

class Command {
 public:
  virtual ~Command() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // one line for `warpvol --help`
  virtual std::string usage() const = 0;    // "info VOLUME [options]"
  virtual std::string example() const = 0;  // one example line for help
  // Command-specific options, including hidden positional slots (add_positionals names them).
  virtual void add_options(po::options_description& visible, po::options_description& hidden) const {}
  virtual void add_positionals(po::positional_options_description& pos) const {}
  // Opens a volume: the credential options (credentials.h) are added.
  virtual bool opens_volume() const { return false; }
  // Has a data path: --engine is added.
  virtual bool uses_engine() const { return false; }
  // Starts the GPU engine while the password is read and the key derived (engine_factory.h: prestart_gpu_engine).
  // Not for commands that fork a daemon afterwards.
  virtual bool prestarts_engine() const { return uses_engine(); }
  // Accepts --json.
  virtual bool has_json() const { return false; }
  virtual int execute(Context& ctx, const po::variables_map& vm) const = 0;

 protected:
  // Error(Usage) "missing VOLUME or OUT (usage: warpvol <usage>)" for positionals named "volume" and "out".
  Error missing_positionals(const std::vector<std::string>& names) const;
  // Throws missing_positionals(names) unless every one of them was given.
  void require_positionals(const po::variables_map& vm, const std::vector<std::string>& names) const;
};

// A command on one existing volume, as KeePassXC's DatabaseCommand: execute() checks that VOLUME (and the command's
// other required positionals) were given, reads the rest of the command line into a Request, opens VOLUME
// (open_volume_file: it exists, is readable and can hold a header) and runs the command with it. The order is the
// contract: a bad option value is a usage error before the file is touched, and a missing or unusable file is
// reported before any password prompt (open_options_from runs inside execute_with_volume).
template <class Request>
class VolumeCommand : public Command {
 public:
  bool opens_volume() const final { return true; }
  int execute(Context& ctx, const po::variables_map& vm) const final {
    require_positionals(vm, required_positionals());
    const std::string path = vm["volume"].template as<std::string>();
    Request request = parse_request(ctx, vm, path);
    return execute_with_volume(ctx, vm, path, open_volume_file(path), request);
  }

 protected:
  // "volume" first; e.g. {"volume", "out"} for export.
  virtual std::vector<std::string> required_positionals() const { return {"volume"}; }
  // Every check and value of the command line that needs neither the volume nor a password.
  virtual Request parse_request(Context& ctx, const po::variables_map& vm, const std::string& path) const {
    return Request{};
  }
  virtual int execute_with_volume(Context& ctx, const po::variables_map& vm, const std::string& path,
                                  std::unique_ptr<BlockFile> file, Request& request) const = 0;
};

// For a VolumeCommand whose command line holds nothing beyond the volume and its credentials.
struct NoRequest {};

const std::vector<std::unique_ptr<Command>>& commands();
const Command* find_command(const std::string& name);

// Factories (one per cmd_*.cpp); named explicitly so a static link never drops a command.
std::unique_ptr<Command> make_info_command();
std::unique_ptr<Command> make_export_command();
std::unique_ptr<Command> make_test_command();
std::unique_ptr<Command> make_benchmark_command();
std::unique_ptr<Command> make_mount_command();     // cmd_mount.cpp
std::unique_ptr<Command> make_list_command();      // cmd_list.cpp
std::unique_ptr<Command> make_dismount_command();  // cmd_dismount.cpp
std::unique_ptr<Command> make_create_command();           // cmd_create.cpp
std::unique_ptr<Command> make_import_command();           // cmd_import.cpp
std::unique_ptr<Command> make_change_command();           // cmd_change.cpp
std::unique_ptr<Command> make_backup_headers_command();   // cmd_backup_headers.cpp
std::unique_ptr<Command> make_restore_headers_command();  // cmd_restore_headers.cpp
std::unique_ptr<Command> make_convert_command();          // cmd_convert.cpp
std::unique_ptr<Command> make_keyfile_command();          // cmd_keyfile.cpp
std::unique_ptr<Command> make_reencrypt_command();        // cmd_reencrypt.cpp
std::unique_ptr<Command> make_gpu_agent_command();        // cmd_gpu_agent.cpp

// Shared option helpers.
// --engine cpu|gpu|auto (export) from vm; Usage error on a bad value.
EngineChoice engine_choice_from(const po::variables_map& vm);
// The chains the command line names (--encryption, and --new-encryption where the command has it), for the engine
// choice (EngineOptions::chains); empty when --encryption is absent or names no XTS chain (a legacy mode).
std::vector<ChainId> named_chains(const po::variables_map& vm);
// Sizes like "64M", "4KiB", "1G", "1048576" (binary multiples). Usage error when malformed.
uint64_t parse_size(const std::string& s);
std::string format_bytes(uint64_t n);  // "256 KiB", "1.5 GiB", "512 B"

}  // namespace warpvol::cli
