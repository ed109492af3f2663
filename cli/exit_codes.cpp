#include "cli/exit_codes.h"

#include <boost/program_options/errors.hpp>
#include <cstdlib>
#include <new>

namespace warpvol::cli {

// One row per line, `{code, "name", "meaning"},`: doc.exit_codes (docs/tests/test_exit_codes.py) reads these rows
// and checks README.md, `warpvol --help` and the man page against them.
const std::vector<ExitCodeInfo>& exit_code_table() {
  static const std::vector<ExitCodeInfo> table = {
      {0, "ok", "success"},
      {1, "usage", "bad command line: unknown option, missing argument, bad value, password too long"},
      {2, "auth", "wrong password, PIM or keyfile, or not a TrueCrypt/VeraCrypt volume"},
      {3, "io", "I/O error: a file cannot be opened, read or written (also other system errors)"},
      {4, "format", "damaged or unsupported format (e.g. newer header version); a failed self-test"},
      {5, "busy", "busy or exists: the output file already exists, the device is in use"},
      {6, "interrupted", "interrupted by a signal (SIGINT/SIGTERM); partial output is removed"},
  };
  return table;
}

int exit_code(ErrorKind kind) {
  // A row for every kind, by its name (error_kind_name); tests/cli/test_exit_codes.cpp checks that each has one.
  const std::string_view name = error_kind_name(kind);
  for (const auto& row : exit_code_table())
    if (row.name == name) return row.code;
  return EXIT_FAILURE;  // a kind without a row: a failure all the same
}

int exit_code_for(const std::exception& e) {
  if (auto* err = dynamic_cast<const Error*>(&e)) return exit_code(err->kind());
  if (dynamic_cast<const boost::program_options::error*>(&e)) return exit_code(ErrorKind::Usage);
  return exit_code(ErrorKind::Io);
}

}  // namespace warpvol::cli
