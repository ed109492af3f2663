// VeraCrypt's command-line spellings, accepted where they do not clash with warpvol's own: the command given as an
// option (`--create VOLUME`, `-d`, `--list`, ...), comma-separated keyfile lists (`--keyfiles=a,b`,
// `--new-keyfiles`, `--protection-keyfiles`), `--volume-type`, `--protect-hidden=yes|no`, `--protection-pim`,
// `--mount-options ro|readonly|headerbak|system`, `--stdin`, `--text`. They are rewritten into warpvol's options
// before parsing; an option VeraCrypt has and warpvol spells differently gets a hint naming warpvol's spelling.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace warpvol::cli {

// args: the program's arguments without argv[0]. Usage error for a VeraCrypt value warpvol has no equivalent for.
std::vector<std::string> translate_veracrypt_arguments(const std::vector<std::string>& args);

// For an option the parser did not know ("--protection-password"): warpvol's spelling, or nullopt.
std::optional<std::string> warpvol_spelling_hint(const std::string& option);

}  // namespace warpvol::cli
