// reencrypt's --credentials-file: one JSON object per line, per container (cli/cmd_reencrypt.cpp documents the
// keys and reads the file, mode 0600 required).
#pragma once
#include <cstddef>
#include <string>

namespace warpvol::cli {

// Parses the text of a credentials file exactly as `reencrypt --credentials-file` does (every check; password
// files named in it are read) and returns the number of entries; Error(Usage) on the first bad line, naming
// `name` and the line. The parser without the file's permission checks, for tests and
// tests/fuzz/fuzz_credentials_file.cpp.
size_t parse_credentials_text(const std::string& text, const std::string& name);

}  // namespace warpvol::cli
