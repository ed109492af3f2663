// Warnings about weak new credentials, shared by the commands that set them (create, import, change): VeraCrypt
// warns below 20 characters and asks before it accepts; so does warpvol when the password was typed at a terminal.
// A password from stdin, a file descriptor or the command line comes from a script: a warning only.
#pragma once
#include "cli/command.h"
#include "core/format/open.h"

namespace warpvol::cli {

constexpr size_t kRecommendedPasswordBytes = 20;

// One warning line when the password is empty (keyfiles alone) or shorter than 20 bytes. With
// confirm_on_terminal and stdin a terminal, then asks "Use it anyway? [y/N]" and throws Error(Usage) unless the
// answer is yes (nothing has been written at that point).
void check_new_password_strength(const Context& ctx, const Credentials& c, bool confirm_on_terminal);

}  // namespace warpvol::cli
