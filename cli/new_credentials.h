// Password sources for the commands that SET credentials or need a second set (create, import, change, hidden
// volume creation with outer credentials, backup-headers of a hidden volume). The options are prefixed:
//   --{p}password-stdin | --{p}password-fd N | --{p}password PW (unsafe) | prompt on a terminal
// with p = "" (create/import), "new-" (change), "outer-" (create --type hidden), "hidden-" (backup-headers).
// Several sources reading stdin read one line each, in the order the command documents (existing credentials
// first, new ones second).
#pragma once
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/password_input.h"
#include "core/format/open.h"
#include "core/util/secure.h"

namespace warpvol::cli {

// Adds --{p}password-stdin, --{p}password-fd, --{p}password; with `with_keyfiles_pim` also --{p}keyfile (-k when
// p is empty) and --{p}pim.
void add_password_source_options(po::options_description& desc, const std::string& p, const std::string& whose,
                                 bool with_keyfiles_pim);

// Prompts on the terminal (echo off): `prompt`, then "Repeat ..." when confirm; Usage error when they differ or
// when stdin is not a terminal (message names the options to use instead).
LockedBytes prompt_new_password(const Context& ctx, const std::string& prompt, bool confirm, size_t max_len,
                                const std::string& p);

// Full credentials from the --{p}* options: password (options, else prompt unless non_interactive/no TTY),
// keyfiles, PIM (0..2147468). `required`: Usage error when neither a password nor a keyfile results.
Credentials credentials_from_options(const po::variables_map& vm, const std::string& p, const Context& ctx,
                                     const std::string& prompt, bool confirm, bool non_interactive);

bool any_option_with_prefix(const po::variables_map& vm, const std::string& p);

}  // namespace warpvol::cli
