#include "tests/support/create_support.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <csignal>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/engine/cpu_engine.h"
#include "core/util/error.h"
#include "core/volume/volume.h"
#include "tests/support/forwarding_file.h"
#include "tests/support/test_support.h"

namespace wvtest {

using namespace warpvol;

namespace {
RunResult run_impl(const std::vector<std::string>& args, const std::string& input, int sig,
                   const std::string& wait_for, int timeout_ms);
}

RunResult run_warpvol(const std::vector<std::string>& args, const std::string& input) {
  return run_impl(args, input, 0, "", 0);
}

RunResult run_warpvol_signal(const std::vector<std::string>& args, const std::string& input, int sig,
                             const std::string& wait_for_in_err, int timeout_ms) {
  return run_impl(args, input, sig, wait_for_in_err, timeout_ms);
}

namespace {
RunResult run_impl(const std::vector<std::string>& args, const std::string& input, int sig,
                   const std::string& wait_for, int timeout_ms) {
  TempDir io;
  const std::string in_path = io.file("in"), out_path = io.file("out"), err_path = io.file("err");
  { std::ofstream(in_path, std::ios::binary) << input; }
  // Created before the fork: the wait loop below reads err_path while the child may not have opened it yet.
  { std::ofstream(out_path, std::ios::binary); }
  { std::ofstream(err_path, std::ios::binary); }
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int in = ::open(in_path.c_str(), O_RDONLY), out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600),
        err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> argv;
    std::string bin = WARPVOL_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  if (sig) {
    for (int waited = 0;; waited += 10) {
      if (::waitpid(pid, &status, WNOHANG) == pid) break;
      if (waited >= timeout_ms || (!wait_for.empty() && read_text(err_path).find(wait_for) != std::string::npos)) {
        ::kill(pid, sig);
        ::waitpid(pid, &status, 0);
        break;
      }
      ::usleep(10000);
    }
  } else {
    ::waitpid(pid, &status, 0);
  }
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  return r;
}
}  // namespace

Credentials creds(const std::string& password, int pim, std::vector<std::string> keyfiles) {
  Credentials c;
  c.password = LockedBytes(reinterpret_cast<const uint8_t*>(password.data()), password.size());
  c.pim = pim;
  c.keyfiles = std::move(keyfiles);
  return c;
}

OpenOptions open_opts(const std::string& password, int pim, std::vector<std::string> keyfiles) {
  OpenOptions o;
  o.credentials = creds(password, pim, std::move(keyfiles));
  return o;
}

CreateOptions normal_options(const std::string& path, uint64_t size, const std::string& password, ChainId chain,
                             PrfId prf, bool quick) {
  CreateOptions o;
  o.path = path;
  o.size = size;
  o.chain = chain;
  o.prf = prf;
  o.pim = 1;
  o.credentials = creds(password, 1);
  o.quick = quick;
  o.engine = std::make_shared<CpuEngine>(0);
  o.fill.chunk_bytes = 64 * 1024;  // several chunks even for small test volumes
  o.fill.writers = 2;              // concurrent workers, also on small test machines
  return o;
}

void create_outer_and_hidden(const std::string& path, ChainId outer_chain, PrfId outer_prf, ChainId hidden_chain,
                             PrfId hidden_prf) {
  create_volume(normal_options(path, 1 << 20, "outer-pw", outer_chain, outer_prf, true));
  CreateOptions ho = normal_options(path, 262144, "hidden-pw", hidden_chain, hidden_prf, true);
  ho.type = CreateType::Hidden;
  create_volume(ho);
}

OpenedHeader open_volume(const std::string& path, const OpenOptions& opt) {
  auto f = open_file(path, OpenMode::ReadOnly);
  return open_header(*f, opt);
}

std::vector<uint8_t> read_data(const std::string& path, const OpenOptions& opt) {
  auto v = Volume::open(path, opt, std::make_shared<CpuEngine>(0), false);
  std::vector<uint8_t> out(size_t(v->size()));
  v->read(0, out.data(), out.size());
  return out;
}

bool opens(const std::string& path, const OpenOptions& opt) {
  try {
    open_volume(path, opt);
    return true;
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Auth) return false;
    throw;
  }
}

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::directory_iterator(dir)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

unsigned file_mode(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw std::runtime_error("stat " + path);
  return unsigned(st.st_mode & 07777);
}

uint64_t file_size(const std::string& path) { return std::filesystem::file_size(path); }

std::vector<uint8_t> file_bytes(const std::string& path) { return read_binary(path); }

void write_bytes(const std::string& path, const std::vector<uint8_t>& data) {
  std::ofstream o(path, std::ios::binary | std::ios::trunc);
  o.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  if (!o) throw std::runtime_error("cannot write " + path);
}

void overwrite(const std::string& path, uint64_t offset, const std::vector<uint8_t>& data) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(std::streamoff(offset));
  f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  if (!f) throw std::runtime_error("cannot overwrite " + path);
}

std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = uint8_t(x);
  }
  return v;
}

namespace {
class Counting final : public ForwardingFile {
 public:
  Counting(std::unique_ptr<BlockFile> in, uint64_t* n) : ForwardingFile(std::move(in)), n_(n) {}
  void write_at(uint64_t o, const uint8_t* b, size_t l) override {
    std::atomic_ref<uint64_t>(*n_)++;
    inner().write_at(o, b, l);
  }
  void sync() override {
    std::atomic_ref<uint64_t>(*n_)++;
    inner().sync();
  }

 private:
  uint64_t* n_;
};
}  // namespace

std::unique_ptr<BlockFile> counting_file(std::unique_ptr<BlockFile> f, uint64_t* counter) {
  return std::make_unique<Counting>(std::move(f), counter);
}

}  // namespace wvtest
