#include "cli/exit_codes.h"

#include <boost/program_options/errors.hpp>
#include <new>

namespace warpvol::cli {

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
  switch (kind) {
    case ErrorKind::Usage: return 1;
    case ErrorKind::Auth: return 2;
    case ErrorKind::Io: return 3;
    case ErrorKind::Format: return 4;
    case ErrorKind::Busy: return 5;
    case ErrorKind::Interrupted: return 6;
  }
  return 3;
}

int exit_code_for(const std::exception& e) {
  if (auto* err = dynamic_cast<const Error*>(&e)) return exit_code(err->kind());
  if (dynamic_cast<const boost::program_options::error*>(&e)) return exit_code(ErrorKind::Usage);
  return exit_code(ErrorKind::Io);
}

}  // namespace warpvol::cli
