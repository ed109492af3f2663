// Secret-bearing options in the process's own argv: /proc/PID/cmdline shows argv to every local user for as long
// as the process runs, so every option whose value is a password is overwritten as soon as main() starts. (It was
// readable until then, which is why those options are documented as unsafe.)
#pragma once

namespace warpvol::cli {

// The long options whose value is a secret, without the leading "--".
const char* const* secret_option_names();  // nullptr-terminated

// Zeroes the value of every secret option in argv, in both spellings `--opt VALUE` and `--opt=VALUE`. Stops at
// "--" (what follows is positional). Abbreviations need no care: each secret option shares its prefix with
// `--opt-stdin`/`--opt-fd`, so an abbreviated one is ambiguous and refused by the parser.
void wipe_secret_options(int argc, char** argv);

}  // namespace warpvol::cli
