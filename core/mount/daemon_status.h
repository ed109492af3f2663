// The one line warpvol-mountd writes back on its status pipe, and how `warpvol mount` reads it:
//   "ready\t<engine>\n"            the FUSE mount exists
//   "error\t<kind>\t<message>\n"   it failed; the kind by name (error_kind_name), so that the category crosses the
//                                  process boundary as a word and the exit-code numbers stay in the CLI's table
#pragma once
#include <optional>
#include <string>

#include "core/util/error.h"

namespace warpvol::mount {

std::string ready_status_line(const std::string& engine);
std::string error_status_line(ErrorKind kind, const std::string& message);

// The engine of a "ready\t..." line; nullopt for any other line.
std::optional<std::string> engine_from_ready_line(const std::string& line);

// The Error an "error\t..." line reports; nullopt for any other line. A line without a kind, or with a name that
// error_kind_from_name does not know, is an I/O error carrying the rest of the line.
std::optional<Error> error_from_status_line(const std::string& line);

}  // namespace warpvol::mount
