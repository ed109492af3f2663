// The ONE table mapping error categories to warpvol's exit codes. Every exit status of the program comes from
// here (app.cpp), and README.md documents the same table.
#pragma once
#include <exception>
#include <string_view>
#include <vector>

#include "core/util/error.h"

namespace warpvol::cli {

constexpr int kExitOk = 0;

struct ExitCodeInfo {
  int code;
  std::string_view name;     // "usage", "auth", ...
  std::string_view meaning;  // one line for --help and README
};

// 0 ok, 1 usage, 2 wrong password/PIM/keyfile or not a volume, 3 I/O, 4 damaged/unsupported format,
// 5 busy/exists, 6 interrupted.
const std::vector<ExitCodeInfo>& exit_code_table();

int exit_code(ErrorKind kind);
// For an exception escaping a command: Error -> its kind; program_options errors -> usage; std::bad_alloc and any
// other exception -> the I/O/system code (3).
int exit_code_for(const std::exception& e);

}  // namespace warpvol::cli
