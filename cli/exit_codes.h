// The ONE table mapping error categories to warpvol's exit codes: the numbers live in exit_codes.cpp and nowhere
// else. Every exit status of the program comes from here (app.cpp); README.md, `warpvol --help` and the man page
// show the same table (doc.exit_codes checks them against it).
#pragma once
#include <exception>
#include <string_view>
#include <vector>

#include "core/util/error.h"

namespace warpvol::cli {

constexpr int kExitOk = 0;

struct ExitCodeInfo {
  int code;
  std::string_view name;     // "ok", or the name of the ErrorKind that exits with it (error_kind_name)
  std::string_view meaning;  // one line for --help and the man page
};

// Success first, then one row per ErrorKind.
const std::vector<ExitCodeInfo>& exit_code_table();

// The code of the row named error_kind_name(kind).
int exit_code(ErrorKind kind);
// For an exception escaping a command: Error -> its kind; program_options errors -> usage; std::bad_alloc and any
// other exception -> the I/O/system code (3).
int exit_code_for(const std::exception& e);

}  // namespace warpvol::cli
