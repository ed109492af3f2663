// The GPU agent (core/engine/agent/): the real `warpvol gpu-agent run` process, hosting the CPU engine
// (--host-cpu-engine) so that every machine runs these, and the GPU engine on a machine with a device ([gpu]).
// Through it: the XTS known answers (the vector files every engine runs), every chain against the CPU engine with
// concurrent callers on shared and on ordinary memory, and what the agent owes a command that dies or misbehaves.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "core/crypto/unit_xxh3.h"
#include "core/engine/agent/agent_protocol.h"
#include "core/engine/agent/remote_engine.h"
#include "core/engine/auto_engine.h"
#include "core/engine/cpu_engine.h"
#include "core/engine/engine_factory.h"
#include "core/util/error.h"
#include "tests/support/test_support.h"
#include "tests/support/xts_vectors.h"

extern char** environ;

namespace {

using namespace warpvol;

// `warpvol gpu-agent run` on a socket of its own, ended (SIGTERM, or SIGKILL by kill()) at destruction.
class AgentProcess {
 public:
  // cpu = false: the GPU engine; without a device the agent does not start and started() is false.
  explicit AgentProcess(bool cpu = true) {
    path_ = dir_.file("agent/gpu-agent.sock");
    const std::string env_socket = "WARPVOL_GPU_AGENT_SOCKET=" + path_;
    std::vector<std::string> args = {WARPVOL_BINARY, "gpu-agent", "run", "--idle-exit", "0"};
    if (cpu) args.push_back("--host-cpu-engine");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> envs;
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "WARPVOL_GPU_AGENT", 17) != 0) envs.push_back(*e);
    envs.push_back(env_socket);
    std::vector<char*> envp;
    for (auto& e : envs) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, dir_.file("agent.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(posix_spawn(&pid_, WARPVOL_BINARY, &fa, nullptr, argv.data(), envp.data()) == 0);
    posix_spawn_file_actions_destroy(&fa);
    for (int i = 0; i < 400; ++i) {  // it listens once its engine exists
      std::string why;
      const int fd = agent::connect_socket(path_, why);
      if (fd >= 0) {
        ::close(fd);
        return;
      }
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    if (cpu) FAIL("the agent did not start listening");
  }
  bool started() const { return pid_ > 0; }
  ~AgentProcess() { end(SIGTERM); }
  void end(int sig) {
    if (pid_ <= 0) return;
    ::kill(pid_, sig);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  const std::string& path() const { return path_; }
  std::unique_ptr<agent::RemoteEngine> connect() {
    std::string why;
    auto e = agent::RemoteEngine::connect(path_, why);
    INFO(why);
    REQUIRE(e);
    return e;
  }

 private:
  wvtest::TempDir dir_;
  std::string path_;
  pid_t pid_ = -1;
};

// The agent's engine as a vector provider: data copied into one of its shared buffers (`shared`), or handed over
// in the caller's own memory (staged through the agent's staging buffers).
wvtest::XtsProvider agent_provider(std::shared_ptr<XtsEngine> engine, bool shared) {
  std::vector<ChainId> every;
  for (const auto& c : all_chains()) every.push_back(c.id);
  return {shared ? "agent/shared" : "agent/staged", every,
          [engine, shared](ChainId chain, const uint8_t* km) -> wvtest::XtsProvider::Crypt {
            std::shared_ptr<const EngineKey> key = engine->prepare(chain, km);
            return [engine, key, shared](Direction d, uint64_t unit0, uint8_t* data, size_t n) {
              if (!shared) return engine->process(*key, d, unit0, data, n);
              IoBuffer b = engine->io_buffer(n * kDataUnitSize);
              std::memcpy(b.data(), data, n * kDataUnitSize);
              engine->process(*key, d, unit0, b.data(), n);
              std::memcpy(data, b.data(), n * kDataUnitSize);
            };
          }};
}

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

std::string status_text(const std::string& path) {
  agent::AgentStatus st;
  std::string why;
  REQUIRE(agent::query_status(path, st, why));
  return st.text;
}

}  // namespace

TEST_CASE("gpu agent: XTS known answers through the agent's engine, on its shared buffers and staged", "[agent][vectors]") {
  AgentProcess agent;
  std::shared_ptr<XtsEngine> e = agent.connect();
  const std::vector<wvtest::XtsProvider> providers = {agent_provider(e, true), agent_provider(e, false)};
  wvtest::check_ieee1619_vectors(providers);
  wvtest::check_cascade_crc_vectors(providers);
}

TEST_CASE("gpu agent hosting the GPU engine: XTS known answers, and every chain equals the CPU engine", "[agent][gpu]") {
  AgentProcess agent(false);
  if (!agent.started()) {
    WARN("no CUDA device (or no GPU engine in this build): the agent hosting the GPU engine is not tested");
    return;
  }
  std::shared_ptr<XtsEngine> e = agent.connect();
  CHECK(e->name() == "gpu");
  const std::vector<wvtest::XtsProvider> providers = {agent_provider(e, true), agent_provider(e, false)};
  wvtest::check_ieee1619_vectors(providers);
  wvtest::check_cascade_crc_vectors(providers);
  CpuEngine cpu(0);
  std::mt19937_64 rng(5);
  for (const auto& c : all_chains()) {
    INFO(c.name);
    const auto km = random_bytes(rng, 2 * c.key_size());
    const auto plain = random_bytes(rng, size_t(40) << 20);  // several GPU chunks
    const size_t n = plain.size() / kDataUnitSize;
    auto rk = e->prepare(c.id, km.data());
    auto ck = cpu.prepare(c.id, km.data());
    IoBuffer b = e->io_buffer(plain.size());
    CHECK(b.pinned());
    std::memcpy(b.data(), plain.data(), plain.size());
    e->process(*rk, Direction::Encrypt, 12345, b.data(), n);
    std::vector<uint8_t> want = plain;
    cpu.process(*ck, Direction::Encrypt, 12345, want.data(), n);
    CHECK(std::memcmp(b.data(), want.data(), want.size()) == 0);
  }
}

namespace {

// One caller per chain at once through `remote`, each on a shared buffer and on its own memory (staged): encrypt,
// re-encrypt to another chain, decrypt, against the CPU engine; checked per chain on the test's thread.
void check_callers_at_once(XtsEngine& remote) {
  CpuEngine cpu(1);
  std::mt19937_64 rng(77);
  const auto& chains = all_chains();
  std::vector<std::thread> callers;
  std::vector<std::string> mismatches(chains.size());
  std::vector<std::vector<uint8_t>> keys, keys2, plains;
  for (size_t i = 0; i < chains.size(); ++i) {
    keys.push_back(random_bytes(rng, 2 * chains[i].key_size()));
    keys2.push_back(random_bytes(rng, 2 * chains[(i + 3) % chains.size()].key_size()));
    plains.push_back(random_bytes(rng, (1 + i % 5) * 777 * kDataUnitSize));  // odd sizes, up to 1.9 MiB
  }
  for (size_t i = 0; i < chains.size(); ++i) {
    callers.emplace_back([&, i] {
      const ChainId c = chains[i].id, c2 = chains[(i + 3) % chains.size()].id;
      const std::vector<uint8_t>& plain = plains[i];
      const size_t n = plain.size() / kDataUnitSize;
      const uint64_t unit0 = 256 + 1000003 * i;
      auto rk = remote.prepare(c, keys[i].data());
      auto rk2 = remote.prepare(c2, keys2[i].data());
      auto ck = cpu.prepare(c, keys[i].data());
      auto ck2 = cpu.prepare(c2, keys2[i].data());
      std::vector<uint8_t> want = plain;
      cpu.process(*ck, Direction::Encrypt, unit0, want.data(), n);
      // Shared buffer (no copy between the processes) and the caller's memory (staged): both must match.
      IoBuffer b = remote.io_buffer(plain.size());
      std::memcpy(b.data(), plain.data(), plain.size());
      remote.process(*rk, Direction::Encrypt, unit0, b.data(), n);
      std::vector<uint8_t> staged = plain;
      remote.process(*rk, Direction::Encrypt, unit0, staged.data(), n);
      if (std::memcmp(b.data(), want.data(), want.size()) != 0) mismatches[i] += " encrypt(shared)";
      if (staged != want) mismatches[i] += " encrypt(staged)";
      std::vector<uint8_t> want2 = want;
      cpu.reencrypt(*ck, *ck2, unit0, want2.data(), n);
      remote.reencrypt(*rk, *rk2, unit0, b.data(), n);
      if (std::memcmp(b.data(), want2.data(), want2.size()) != 0) mismatches[i] += " reencrypt";
      remote.process(*rk2, Direction::Decrypt, unit0, b.data(), n);
      if (std::memcmp(b.data(), plain.data(), plain.size()) != 0) mismatches[i] += " decrypt";
    });
  }
  for (auto& t : callers) t.join();
  for (size_t i = 0; i < chains.size(); ++i) {
    INFO(chains[i].name);
    CHECK(mismatches[i].empty());
  }
}

}  // namespace

TEST_CASE("gpu agent: every chain, both directions and re-encryption equal the CPU engine, callers at once", "[agent]") {
  AgentProcess agent;
  check_callers_at_once(*agent.connect());
}

// The same on the agent that hosts the GPU engine, and on one whose 7th kernel launch fails: the GPU engine then
// fails over to the CPU mid-way through the callers' requests, and every result must still be right.
TEST_CASE("gpu agent hosting the GPU engine: callers at once equal the CPU engine, also after a failed launch",
          "[agent][gpu]") {
  for (const char* fail_at : {static_cast<const char*>(nullptr), "7"}) {
    INFO("WARPVOL_GPU_FAIL_LAUNCH=" << (fail_at ? fail_at : "(unset)"));
    wvtest::ScopedEnv inject("WARPVOL_GPU_FAIL_LAUNCH", fail_at);
    AgentProcess agent(false);
    if (!agent.started()) {
      WARN("no CUDA device (or no GPU engine in this build): the agent hosting the GPU engine is not tested");
      return;
    }
    check_callers_at_once(*agent.connect());
    const std::string status = status_text(agent.path());
    INFO(status);
    CHECK((status.find("failed over to the CPU") != std::string::npos) == (fail_at != nullptr));
  }
}

// Re-encryption's checksum entries computed by the agent's engine (reencrypt_hashed): data and hashes in the
// agent's shared buffers (the job's case), hashes in the caller's memory, both there (staged, over several pieces
// of the staging buffer), against the CPU engine's data and XXH3-128. On the CPU engine's agent (every machine) and
// on the GPU engine's where there is a device.
TEST_CASE("gpu agent: re-encryption with unit hashes equals the CPU engine's data and XXH3-128 entries", "[agent]") {
  for (bool cpu_agent : {true, false}) {
    AgentProcess agent(cpu_agent);
    if (!agent.started()) {
      WARN("no CUDA device (or no GPU engine in this build): the GPU agent's unit hashes are not tested");
      continue;
    }
    std::shared_ptr<XtsEngine> remote = agent.connect();
    CpuEngine cpu(0);
    std::mt19937_64 rng(31);
    const ChainId from = ChainId::Serpent, to = ChainId::AesTwofishSerpent;
    const auto ka = random_bytes(rng, 2 * chain_info(from).key_size());
    const auto kb = random_bytes(rng, 2 * chain_info(to).key_size());
    auto ra = remote->prepare(from, ka.data()), rb = remote->prepare(to, kb.data());
    auto ca = cpu.prepare(from, ka.data()), cb = cpu.prepare(to, kb.data());
    const size_t n = (size_t(20) << 20) / kDataUnitSize + 3;  // more than one 16 MiB staging piece
    const auto plain = random_bytes(rng, n * kDataUnitSize);
    std::vector<uint8_t> want = plain, want_hashes(n * kUnitXxh3Bytes);
    cpu.reencrypt(*ca, *cb, 4242, want.data(), n);
    xxh3_128_units(want.data(), n, want_hashes.data());
    for (int where = 0; where < 3; ++where) {  // both shared; data shared, hashes private; both private
      INFO((cpu_agent ? "CPU" : "GPU") << " engine's agent, case " << where);
      IoBuffer b = remote->io_buffer(where < 2 ? plain.size() : kDataUnitSize);
      IoBuffer h = remote->io_buffer(n * kUnitXxh3Bytes);
      std::vector<uint8_t> data = plain, private_hashes(n * kUnitXxh3Bytes);
      uint8_t* d = where < 2 ? b.data() : data.data();
      uint8_t* hs = where == 0 ? h.data() : private_hashes.data();
      std::memcpy(d, plain.data(), plain.size());
      remote->reencrypt_hashed(*ra, *rb, 4242, d, n, hs);
      CHECK(std::memcmp(d, want.data(), want.size()) == 0);
      CHECK(std::memcmp(hs, want_hashes.data(), want_hashes.size()) == 0);
    }
  }
}

namespace {

// The figures of the engine's request_stats() (--verbose's "GPU agent: ..." part).
struct RequestStats {
  unsigned requests = 0, sockets = 0;
  double round_trip_ms = 0, in_agent_ms = 0;
};
RequestStats request_stats_of(const XtsEngine& e) {
  const std::string s = e.request_stats();
  INFO(s);
  RequestStats st;
  REQUIRE(std::sscanf(s.c_str(), "GPU agent: %u requests on its buffers, round trip %lf ms each, %lf ms of it in the "
                      "agent, over %u sockets", &st.requests, &st.round_trip_ms, &st.in_agent_ms, &st.sockets) == 4);
  return st;
}

// One request on the agent's wire protocol, written by hand, and its reply (with a passed descriptor in got_fd).
agent::Reply raw_call(int sock, agent::Request q, int* got_fd = nullptr) {
  REQUIRE(agent::send_message(sock, &q, sizeof q));
  agent::Reply r;
  REQUIRE(agent::recv_message(sock, &r, sizeof r, got_fd));
  return r;
}

}  // namespace

TEST_CASE("gpu agent: --verbose's request figures count the requests on its buffers, the agent's part within the "
          "round trip", "[agent]") {
  AgentProcess agent;
  auto e = agent.connect();
  CHECK(e->request_stats().empty());  // nothing to say before a request
  std::vector<uint8_t> km(2 * chain_info(ChainId::Aes).key_size(), 7);
  auto key = e->prepare(ChainId::Aes, km.data());
  IoBuffer b = e->io_buffer(size_t(1) << 20);
  std::vector<uint8_t> own(size_t(64) << 10);
  for (int i = 0; i < 3; ++i) e->process(*key, Direction::Encrypt, 0, b.data(), 2048);
  e->process(*key, Direction::Encrypt, 0, own.data(), own.size() / kDataUnitSize);  // staged: not counted
  const RequestStats st = request_stats_of(*e);
  CHECK(st.requests == 3);
  CHECK(st.in_agent_ms > 0);
  CHECK(st.in_agent_ms <= st.round_trip_ms);
  CHECK(st.sockets == 1);  // one caller at a time: each request on the same socket of its own
}

TEST_CASE("gpu agent: callers at once each get a socket of their own, kept for their next requests", "[agent]") {
  AgentProcess agent;
  auto e = agent.connect();
  std::vector<uint8_t> km(2 * chain_info(ChainId::Serpent).key_size(), 9);
  auto key = e->prepare(ChainId::Serpent, km.data());
  CpuEngine cpu(1);
  auto ck = cpu.prepare(ChainId::Serpent, km.data());
  const unsigned callers = 4;
  const size_t n = 512;  // 256 KiB a request
  std::vector<IoBuffer> bufs;
  for (unsigned i = 0; i < callers; ++i) bufs.push_back(e->io_buffer(n * kDataUnitSize));
  std::atomic<unsigned> wrong{0};
  // Each caller waits at a barrier before each request, so that the four are at the agent together at least once.
  for (int round = 0; round < 20; ++round) {
    std::vector<std::thread> t;
    std::atomic<unsigned> ready{0};
    for (unsigned i = 0; i < callers; ++i)
      t.emplace_back([&, i] {
        uint8_t* p = bufs[i].data();
        for (size_t k = 0; k < n * kDataUnitSize; ++k) p[k] = uint8_t(k * 7 + i + round);
        std::vector<uint8_t> want(p, p + n * kDataUnitSize);
        cpu.process(*ck, Direction::Encrypt, 100 * i, want.data(), n);
        ++ready;
        while (ready < callers) std::this_thread::yield();
        e->process(*key, Direction::Encrypt, 100 * i, p, n);
        if (std::memcmp(p, want.data(), want.size()) != 0) ++wrong;
      });
    for (auto& x : t) x.join();
  }
  CHECK(wrong == 0);
  const RequestStats st = request_stats_of(*e);
  CHECK(st.requests == 20 * callers);
  CHECK(st.sockets >= 2);        // (it can fail: requests that never overlapped would share one socket)
  CHECK(st.sockets <= callers);  // a socket is kept and reused, never more than the callers at once
}

TEST_CASE("gpu agent: a command that dies holding a buffer gets it wiped before the next command reuses it", "[agent]") {
  AgentProcess agent;
  const size_t n = size_t(4) << 20;
  const pid_t child = fork();
  if (child == 0) {  // a command killed mid-job: its buffer full of plaintext, never freed
    std::string why;
    auto e = agent::RemoteEngine::connect(agent.path(), why);
    if (!e) _exit(2);
    IoBuffer b = e->io_buffer(n);
    std::memset(b.data(), 0xA5, b.size());
    ::kill(::getpid(), SIGKILL);
  }
  REQUIRE(child > 0);
  int st = 0;
  waitpid(child, &st, 0);
  REQUIRE(WIFSIGNALED(st));
  // The agent notices the connection's end, wipes what it held and keeps it for the next command.
  std::string text;
  for (int i = 0; i < 200 && (text = status_text(agent.path())).find("kept: 4 MiB") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  INFO(text);
  REQUIRE(text.find("kept: 4 MiB") != std::string::npos);
  auto e = agent.connect();
  IoBuffer b = e->io_buffer(n);
  CHECK(status_text(agent.path()).find("kept: 0 MiB") != std::string::npos);  // the same buffer, reused
  REQUIRE(b.size() >= n);
  size_t nonzero = 0;
  for (size_t i = 0; i < b.size(); ++i) nonzero += b.data()[i] != 0;
  CHECK(nonzero == 0);
}

TEST_CASE("gpu agent: when the agent goes away, the requests fail with an I/O error and never hang", "[agent]") {
  AgentProcess agent;
  auto e = agent.connect();
  std::mt19937_64 rng(3);
  const auto km = random_bytes(rng, 64);
  auto key = e->prepare(ChainId::Aes, km.data());
  IoBuffer b = e->io_buffer(1 << 20);
  e->process(*key, Direction::Encrypt, 0, b.data(), 2048);
  agent.end(SIGKILL);
  try {
    e->process(*key, Direction::Encrypt, 0, b.data(), 2048);
    FAIL("a request succeeded after the agent was killed");
  } catch (const Error& err) {
    CHECK(err.kind() == ErrorKind::Io);
    CHECK(std::string(err.what()).find("went away") != std::string::npos);
  }
  std::vector<uint8_t> plain(4096);
  CHECK_THROWS_AS(e->process(*key, Direction::Encrypt, 0, plain.data(), 8), Error);
}

TEST_CASE("gpu agent: callers waiting on their own sockets when the agent is killed all get an I/O error", "[agent]") {
  // Four callers send requests back to back, each on its socket of its own; SIGKILL ends the agent under them.
  // Every caller must leave with Error(Io) (none hangs on its socket), and no request fails otherwise before.
  AgentProcess agent;
  auto e = agent.connect();
  std::vector<uint8_t> km(2 * chain_info(ChainId::AesTwofishSerpent).key_size(), 5);
  auto key = e->prepare(ChainId::AesTwofishSerpent, km.data());
  const unsigned callers = 4;
  std::vector<IoBuffer> bufs;
  for (unsigned i = 0; i < callers; ++i) bufs.push_back(e->io_buffer(size_t(1) << 20));
  std::atomic<unsigned> io_errors{0}, other_errors{0}, done_before{0};
  std::vector<std::thread> t;
  for (unsigned i = 0; i < callers; ++i)
    t.emplace_back([&, i] {
      try {
        for (;;) {
          e->process(*key, Direction::Encrypt, 0, bufs[i].data(), 2048);
          ++done_before;
        }
      } catch (const Error& err) {
        if (err.kind() == ErrorKind::Io) ++io_errors;
        else ++other_errors;
      }
    });
  while (done_before < 4 * callers) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  agent.end(SIGKILL);
  for (auto& x : t) x.join();  // a caller stuck on its socket hangs the test here (ctest's timeout)
  CHECK(io_errors == callers);
  CHECK(other_errors == 0);
}

TEST_CASE("gpu agent: requests outside their buffer, unknown ids and another protocol version are refused", "[agent]") {
  AgentProcess agent;
  std::string why;
  const int fd = agent::connect_socket(agent.path(), why);
  REQUIRE(fd >= 0);
  auto call = [&](agent::Request q, int* got_fd = nullptr) { return raw_call(fd, q, got_fd); };
  agent::Request q;
  q.op = agent::Op::Key;
  q.chain = uint32_t(ChainId::Serpent);
  q.material_len = 64;
  const agent::Reply key = call(q);
  REQUIRE(key.status == 0);
  q = {};
  q.op = agent::Op::Key;
  q.chain = uint32_t(ChainId::Serpent);
  q.material_len = 96;  // not 2K for Serpent
  CHECK(call(q).status == 1 + int(ErrorKind::Usage));
  q = {};
  q.op = agent::Op::Buffer;
  q.bytes = 1 << 20;
  int bfd = -1;
  const agent::Reply buf = call(q, &bfd);
  REQUIRE(buf.status == 0);
  CHECK(bfd >= 0);
  ::close(bfd);
  q = {};
  q.op = agent::Op::Process;
  q.key_a = key.id;
  q.buffer = buf.id;
  q.offset = buf.size - kDataUnitSize;
  q.nunits = 2;  // one unit past the end
  CHECK(call(q).status == 1 + int(ErrorKind::Usage));
  q.nunits = 1;
  CHECK(call(q).status == 0);
  q.key_a = 999;
  CHECK(call(q).status == 1 + int(ErrorKind::Usage));
  q.key_a = key.id;
  q.buffer = 999;
  CHECK(call(q).status == 1 + int(ErrorKind::Usage));
  // Re-encryption with unit hashes: the hashes' 16 bytes per unit must lie inside their buffer too.
  q = {};
  q.op = agent::Op::ReencryptHashed;
  q.key_a = q.key_b = key.id;
  q.buffer = q.hash_buffer = buf.id;
  q.nunits = 4;
  q.hash_offset = buf.size - 4 * 16 + 1;  // one byte past the end
  CHECK(call(q).status == 1 + int(ErrorKind::Usage));
  q.hash_offset = buf.size - 4 * 16;
  CHECK(call(q).status == 0);
  q.hash_buffer = 999;
  CHECK(call(q).status == 1 + int(ErrorKind::Usage));
  q = {};
  q.version = agent::kVersion + 1;
  const agent::Reply other = call(q);  // answered, with what to do (a request keeps its size across versions)
  CHECK(other.status == 1 + int(ErrorKind::Usage));
  CHECK(std::string(other.text).find("protocol version mismatch") != std::string::npos);
  CHECK(other.pid > 0);
  ::close(fd);
}

TEST_CASE("gpu agent: a command's own socket answers its requests there, with the connection's keys and buffers, and "
          "ends with the connection", "[agent]") {
  AgentProcess agent;
  std::string why;
  const int fd = agent::connect_socket(agent.path(), why);
  REQUIRE(fd >= 0);
  agent::Request q;
  q.op = agent::Op::Key;
  q.chain = uint32_t(ChainId::Aes);
  q.material_len = 64;
  const agent::Reply key = raw_call(fd, q);
  REQUIRE(key.status == 0);
  q = {};
  q.op = agent::Op::Buffer;
  q.bytes = 1 << 20;
  int bfd = -1;
  const agent::Reply buf = raw_call(fd, q, &bfd);
  REQUIRE(buf.status == 0);
  ::close(bfd);
  q = {};
  q.op = agent::Op::Channel;
  int ch = -1;
  REQUIRE(raw_call(fd, q, &ch).status == 0);
  REQUIRE(ch >= 0);
  q = {};
  q.op = agent::Op::Process;
  q.key_a = key.id;  // made on the connection
  q.buffer = buf.id;
  q.nunits = 16;
  q.tag = 41;
  const agent::Reply ok = raw_call(ch, q);
  CHECK(ok.status == 0);
  CHECK(ok.tag == 41);
  q.nunits = buf.size / kDataUnitSize + 1;  // past the buffer's end: refused, on the channel
  CHECK(raw_call(ch, q).status == 1 + int(ErrorKind::Usage));
  pollfd p{fd, POLLIN, 0};
  CHECK(::poll(&p, 1, 50) == 0);  // nothing came on the connection
  ::close(fd);                     // the command goes: the agent ends its channel too
  pollfd c{ch, POLLIN, 0};
  REQUIRE(::poll(&c, 1, 10000) == 1);  // (within 10 s, not never)
  agent::Reply r;
  CHECK_FALSE(agent::recv_message(ch, &r, sizeof r));
  ::close(ch);
}

TEST_CASE("gpu agent: one agent per socket, and only in a folder closed to other users", "[agent]") {
  AgentProcess agent;
  CHECK_THROWS_AS(agent::listen_socket(agent.path()), Error);  // Busy: it answers there
  wvtest::TempDir d;
  std::filesystem::create_directory(d.path() / "open");
  std::filesystem::permissions(d.path() / "open", std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                                      std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                                      std::filesystem::perms::others_exec);
  try {
    agent::prepare_socket_dir(d.file("open/gpu-agent.sock"));
    FAIL("a folder open to others was accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
  }
}

TEST_CASE("gpu agent: auto sends AES, which the crossover keeps on the CPU, to the agent too, and gets the CPU "
          "engine's result",
          "[agent][auto]") {
  AgentProcess agent;
  wvtest::TempDir cache;  // no calibration: the built-in crossover
  wvtest::ScopedEnv xdg("XDG_CACHE_HOME", cache.path().c_str());
  wvtest::ScopedEnv socket("WARPVOL_GPU_AGENT_SOCKET", agent.path().c_str());
  EngineOptions opt;
  opt.choice = EngineChoice::Auto;
  opt.chains = {ChainId::Aes};
  REQUIRE(gpu_never_used(opt.chains));  // the built-in crossover keeps AES on the CPU
  {  // The agent switched off: the CPU engine alone, as without an agent.
    wvtest::ScopedEnv off("WARPVOL_GPU_AGENT", "off");
    CHECK(make_engine(opt)->name() == "cpu");
  }
  wvtest::ScopedEnv on("WARPVOL_GPU_AGENT", nullptr);
  std::vector<std::string> lines;
  opt.verbose = [&](const std::string& l) { lines.push_back(l); };
  std::shared_ptr<XtsEngine> e = make_engine(opt);
  REQUIRE(e->name() == "auto");
  auto* a = dynamic_cast<AutoEngine*>(e.get());
  REQUIRE(a);
  REQUIRE(!lines.empty());
  CHECK(lines.front().find("the GPU agent serves the job") != std::string::npos);
  std::mt19937_64 rng(18);
  const std::vector<uint8_t> km = random_bytes(rng, 64);
  auto key = e->prepare(ChainId::Aes, km.data());
  CpuEngine cpu(1);
  auto cpu_key = cpu.prepare(ChainId::Aes, km.data());
  const size_t n = (size_t(4) << 20) / kDataUnitSize;
  IoBuffer b = e->io_buffer_for(n * kDataUnitSize, *key);
  for (int i = 0; i < 6; ++i) {  // unmeasured engines tie, and a tie goes to the GPU
    std::vector<uint8_t> plain = random_bytes(rng, n * kDataUnitSize), want = plain;
    std::memcpy(b.data(), plain.data(), plain.size());
    e->process(*key, Direction::Encrypt, 1000 * i, b.data(), n);
    cpu.process(*cpu_key, Direction::Encrypt, 1000 * i, want.data(), n);
    REQUIRE(std::memcmp(b.data(), want.data(), want.size()) == 0);
  }
  const uint64_t to_gpu = a->gpu_bytes();
  CHECK(to_gpu > 0);
  // A mount's largest request (1 MiB) stays on the CPU, as without an agent.
  std::vector<uint8_t> small = random_bytes(rng, size_t(1) << 20), want = small;
  e->process(*key, Direction::Encrypt, 7, small.data(), small.size() / kDataUnitSize);
  cpu.process(*cpu_key, Direction::Encrypt, 7, want.data(), want.size() / kDataUnitSize);
  CHECK(small == want);
  CHECK(a->gpu_bytes() == to_gpu);
  b = IoBuffer();
  key.reset();
  e.reset();
}
