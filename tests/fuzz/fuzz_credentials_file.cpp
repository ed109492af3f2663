// reencrypt's --credentials-file parser (cli/credentials_file.h) on the file's text. It runs in a private
// temporary folder holding the password files the seeds name ("pw.txt", "long.txt"), so relative paths in
// inputs resolve there.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/credentials_file.h"
#include "core/util/error.h"
#include "tests/fuzz/support.h"

using namespace warpvol;

namespace {
std::string g_dir;
void remove_dir() { std::filesystem::remove_all(g_dir); }
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char tmpl[] = "/tmp/warpvol-fuzz-credentials.XXXXXX";
  const char* dir = ::mkdtemp(tmpl);
  WARPVOL_FUZZ_CHECK(dir && ::chdir(dir) == 0, "cannot create the temporary folder");
  g_dir = dir;
  std::atexit(remove_dir);
  std::ofstream("pw.txt") << "password from a file\n";
  std::ofstream("long.txt") << std::string(200, 'x') << "\n";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const size_t entries = cli::parse_credentials_text(text, "fuzz-credentials");
    WARPVOL_FUZZ_CHECK(entries <= size / 12 + 1, "more entries than lines could hold");
  } catch (const Error&) {
  }
  return 0;
}
