#include "core/mount/daemon_status.h"

namespace warpvol::mount {

namespace {
constexpr char kReadyPrefix[] = "ready\t";
constexpr char kErrorPrefix[] = "error\t";
}  // namespace

std::string ready_status_line(const std::string& engine) { return kReadyPrefix + engine + "\n"; }

std::optional<std::string> engine_from_ready_line(const std::string& line) {
  if (line.rfind(kReadyPrefix, 0) != 0) return std::nullopt;
  const size_t begin = sizeof kReadyPrefix - 1;
  return line.substr(begin, line.find('\n') - begin);
}

std::string error_status_line(ErrorKind kind, const std::string& message) {
  return kErrorPrefix + std::string(error_kind_name(kind)) + "\t" + message + "\n";
}

std::optional<Error> error_from_status_line(const std::string& line) {
  if (line.rfind(kErrorPrefix, 0) != 0) return std::nullopt;
  std::string rest = line.substr(sizeof kErrorPrefix - 1);
  if (!rest.empty() && rest.back() == '\n') rest.pop_back();
  const size_t tab = rest.find('\t');
  if (tab == std::string::npos) return Error(ErrorKind::Io, rest);
  return Error(error_kind_from_name(rest.substr(0, tab)).value_or(ErrorKind::Io), rest.substr(tab + 1));
}

}  // namespace warpvol::mount
