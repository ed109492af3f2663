// The manual pages and the shell completion, written from the same tables the program parses with (commands(),
// their options_description, the credential options, the exit-code table, the chain and PRF lists), so that what
// is installed cannot drift from what the program accepts. docs/gen_docs.cpp writes them at build time.
#pragma once
#include <iosfwd>

namespace warpvol::cli {

// warpvol(1) in man(7) format: every command with its options, the credential options, exit codes, environment.
void write_man_page(std::ostream& os);

// warpvol-gui(1) in man(7) format.
void write_gui_man_page(std::ostream& os);

// A bash completion script for warpvol: commands, each command's options, chain and PRF names, enumerated values
// (cpu|gpu|auto ...) and file names. Self-contained: it does not need the bash-completion package's helpers.
void write_bash_completion(std::ostream& os);

}  // namespace warpvol::cli
