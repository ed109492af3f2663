// One exception type for every failure core reports, carrying the category that the CLI maps to an exit code
// (cli/exit_codes.cpp is the single table). Messages are one clear line, no trailing period.
#pragma once
#include <stdexcept>
#include <string>

namespace warpvol {

enum class ErrorKind {
  Usage = 1,        // bad option or argument
  Auth = 2,         // wrong password/PIM/keyfile, or not a volume
  Io = 3,           // read/write/open failure
  Format = 4,       // damaged or unsupported format
  Busy = 5,         // exists, busy, in use
  Interrupted = 6,  // stopped by a signal; resumable where that applies
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

// Throws Error(Io, "<what>: <strerror(errno)>") for the current errno.
[[noreturn]] void throw_errno(const std::string& what);
[[noreturn]] void throw_errno(const std::string& what, int err);

}  // namespace warpvol
