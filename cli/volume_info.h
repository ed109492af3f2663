// The `info` command's text form of an opened header (the JSON form is core/format/header_json.h).
#pragma once
#include <iosfwd>
#include <string>

#include "core/format/open.h"

namespace warpvol::cli {

void print_header_text(std::ostream& os, const OpenedHeader& h, const std::string& path);

}  // namespace warpvol::cli
