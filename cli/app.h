// The warpvol program: global options, dispatch to a Command, error reporting and the exit code.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/command.h"

namespace warpvol::cli {

// The options every command has (--help, --verbose; --engine and --json where the command takes them).
void add_common_options(const Command& cmd, po::options_description& desc);

// args excludes the program name. Errors: one line "warpvol: <message>" on err; with --json also
// {"error": ..., "code": N} on out. Returns the exit code (exit_codes.h).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// main(): installs signal handlers, runs, wipes every secret option from argv (argv_scrub.h).
int run_main(int argc, char** argv);

void print_general_help(std::ostream& os);

}  // namespace warpvol::cli
