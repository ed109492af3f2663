// Reading a password: an option's value, one line of stdin or of a descriptor, or the terminal with echo off. The
// one reader of password bytes for every command: the credentials that open a volume (credentials.h), the ones
// that set or add credentials (new_credentials.h) and the hidden volume's for mount --protect-hidden.
#pragma once
#include <optional>
#include <string>

#include "cli/command.h"
#include "core/util/secure.h"

namespace warpvol::cli {

// Reads one line from fd (the trailing '\n' is not part of it) into locked memory, at most max_len bytes: a longer
// line is a Usage error. EOF ends the line. `what` names the source in messages ("stdin", "fd 3").
LockedBytes read_password_line(int fd, size_t max_len, const std::string& what, const Context& ctx);

// "<prompt>: " on stderr, then one line from the terminal with echo off; echo and the line break come back on
// every path, an error included.
LockedBytes prompt_password(const Context& ctx, const std::string& prompt, size_t max_len);

// The password from --{p}password, --{p}password-stdin or --{p}password-fd, or nullopt when none of them was given.
// Usage errors: more than one source, a negative descriptor, a password over max_len bytes. A --{p}password value
// over the limit is named `value_name` in the message ("--{p}password" when empty).
std::optional<LockedBytes> password_from_options(const po::variables_map& vm, const std::string& p, size_t max_len,
                                                 const Context& ctx, const std::string& value_name = "");

}  // namespace warpvol::cli
