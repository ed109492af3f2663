// One exception type for every failure core reports, carrying the category that the CLI maps to an exit code
// (cli/exit_codes.cpp is the single table, and the only place with the numbers). Messages are one clear line, no
// trailing period.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace warpvol {

enum class ErrorKind {
  Usage,        // bad option or argument
  Auth,         // wrong password/PIM/keyfile, or not a volume
  Io,           // read/write/open failure
  Format,       // damaged or unsupported format
  Busy,         // exists, busy, in use
  Interrupted,  // stopped by a signal; resumable where that applies
};

inline constexpr ErrorKind kAllErrorKinds[] = {ErrorKind::Usage,  ErrorKind::Auth, ErrorKind::Io,
                                              ErrorKind::Format, ErrorKind::Busy, ErrorKind::Interrupted};

// A kind's name ("usage", "auth", "io", "format", "busy", "interrupted"): how a kind crosses a process boundary
// (warpvol-mountd's status line) and how the exit-code table names its rows.
std::string_view error_kind_name(ErrorKind kind);
// The kind of a name error_kind_name gives; nullopt for any other text.
std::optional<ErrorKind> error_kind_from_name(std::string_view name);

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
