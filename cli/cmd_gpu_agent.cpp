// warpvol gpu-agent start|run|stop|status: a process of the user's that keeps the GPU engine started between
// commands (core/engine/agent/agent_protocol.h says why and how). While it runs, `--engine gpu` and `--engine
// auto` of every command use it (WARPVOL_GPU_AGENT=off: they do not); it ends after --idle-exit seconds without a
// command, on `stop`, or after a GPU error (the next command then starts its own engine).
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "core/engine/agent/agent_protocol.h"
#include "core/engine/agent/agent_server.h"
#include "core/engine/agent/remote_engine.h"
#include "core/engine/cpu_engine.h"
#include "core/job/stream.h"
#include "core/mount/runtime.h"
#include "core/reencrypt/reencrypt.h"
#include "core/util/error.h"
#include "core/util/secure.h"

#ifdef WARPVOL_HAVE_GPU
#include "gpu/gpu_engine.h"
#endif

namespace warpvol::cli {
namespace {

std::string stamp() {
  char b[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", std::localtime(&t));
  return b;
}

// The engine the agent hosts: the GPU engine; the CPU engine only when a test asks (--host-cpu-engine), so that
// machines without a GPU test the agent's protocol end to end.
std::shared_ptr<XtsEngine> hosted_engine(bool cpu, std::function<bool()>& failed) {
  if (cpu) return std::make_shared<CpuEngine>();
  std::string why;
  std::shared_ptr<XtsEngine> e = make_local_gpu_engine(why);
  if (!e) throw Error(ErrorKind::Usage, "gpu-agent: no GPU engine here: " + why);
#ifdef WARPVOL_HAVE_GPU
  failed = [raw = e.get()] { return gpu::engine_status(*raw).failed; };
#endif
  return e;
}

// Serves until the agent ends; SIGINT/SIGTERM/SIGHUP stop it (after the commands connected have finished).
std::string serve(agent::Server& server) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  std::thread watcher([&server, set] {
    int sig = 0;
    sigwait(&set, &sig);
    if (sig != 0) server.stop();
  });
  const std::string why = server.run();
  pthread_kill(watcher.native_handle(), SIGTERM);  // wakes the watcher if no signal came
  watcher.join();
  return why;
}

class GpuAgentCommand final : public Command {
 public:
  std::string name() const override { return "gpu-agent"; }
  std::string summary() const override {
    return "Keep the GPU engine started between commands (start | run | stop | status)";
  }
  std::string usage() const override { return "gpu-agent (start | run | stop | status) [--idle-exit SECONDS]"; }
  std::string example() const override { return "warpvol gpu-agent start --idle-exit 1800"; }
  bool has_json() const override { return true; }
  bool prestarts_engine() const override { return false; }
  void add_options(po::options_description& visible, po::options_description& hidden) const override {
    visible.add_options()("idle-exit", po::value<double>()->value_name("SECONDS")->default_value(600),
                          "end after this long without a command (0: never); while it runs it holds 768 MiB of "
                          "page-locked buffers for the commands (up to 2 GiB after large jobs)");
    hidden.add_options()("action", po::value<std::string>(), "start | run | stop | status")(
        "host-cpu-engine", "testing: host the CPU engine (machines without a GPU test the agent's protocol)");
  }
  void add_positionals(po::positional_options_description& pos) const override { pos.add("action", 1); }

  int execute(Context& ctx, const po::variables_map& vm) const override {
    if (!vm.count("action")) throw Error(ErrorKind::Usage, "name an action: start, run, stop or status");
    const std::string action = vm["action"].as<std::string>();
    const std::string path = agent::socket_path();
    if (action == "status") return status(ctx, path);
    if (action == "stop") return stop(ctx, path);
    if (action != "start" && action != "run")
      throw Error(ErrorKind::Usage, "unknown action '" + action + "': start, run, stop or status");
    const double idle = vm["idle-exit"].as<double>();
    if (!(idle >= 0)) throw Error(ErrorKind::Usage, "--idle-exit must be 0 or more seconds");
    agent::AgentStatus st;
    std::string why;
    if (agent::query_status(path, st, why))
      throw Error(ErrorKind::Busy, "a GPU agent already runs (pid " + std::to_string(st.pid) + ", " + path + ")");
    const bool cpu = vm.count("host-cpu-engine") > 0;
    if (action == "run") return run_here(ctx, path, idle, cpu);
    return start(ctx, path, idle, cpu);
  }

 private:
  static agent::ServerOptions options(const std::string& path, double idle, bool cpu, std::function<bool()> failed,
                                      std::function<void(const std::string&)> log) {
    agent::ServerOptions o;
    o.socket_path = path;
    o.idle_exit_s = idle;
    o.engine_failed = std::move(failed);
    o.log = std::move(log);
    // What the jobs ask for by default: an export's ring of chunks, the fill's buffers of create and import (one per
    // worker) and the hot zones of a batch re-encryption (two per container, eight containers; the 4 MiB zones of
    // containers on a memory file system are the chunks' size).
    // (Not for the CPU engine of the tests: nothing to page-lock, and they count the buffers kept.)
    if (!cpu)
      o.prewarm = {{kStreamChunkMultiCaller, 32}, {kStreamChunk, 16}, {size_t(reenc::kDefaultHotzone), 16}};
    return o;
  }

  static int run_here(Context& ctx, const std::string& path, double idle, bool cpu) {
    block_stop_signals();
    make_process_undumpable();
    std::function<bool()> failed;
    auto engine = hosted_engine(cpu, failed);
    agent::Server server(engine, options(path, idle, cpu, failed, [&ctx](const std::string& l) { ctx.message(l); }));
    ctx.message("GPU agent pid " + std::to_string(::getpid()) + " listens at " + path + " (" + engine->name() +
                ": " + engine->detail() + ")");
    ctx.message("GPU agent ended: " + serve(server));
    return 0;
  }

  // Forks before anything touches the GPU (a CUDA context does not survive fork()); the child starts the engine,
  // listens and says so through a pipe, then serves in the background. The parent returns when the agent listens
  // (or says why it could not), so a command right after `start` finds it.
  static int start(Context& ctx, const std::string& path, double idle, bool cpu) {
    agent::prepare_socket_dir(path);
    const std::string log = (std::filesystem::path(path).parent_path() / "gpu-agent.log").string();
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) throw Error(ErrorKind::Io, "pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) throw Error(ErrorKind::Io, "fork failed");
    if (pid == 0) {
      ::close(p[0]);
      ::setsid();
      const int null = ::open("/dev/null", O_RDWR);
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(out >= 0 ? out : null, 2);
      std::string said;
      int rc = 0;
      try {
        block_stop_signals();
        make_process_undumpable();
        std::function<bool()> failed;
        auto engine = hosted_engine(cpu, failed);
        agent::Server server(engine, options(path, idle, cpu, failed, [](const std::string& l) {
                               std::fprintf(stderr, "%s %s\n", stamp().c_str(), l.c_str());
                             }));
        std::fprintf(stderr, "%s GPU agent pid %d listens at %s (%s: %s)\n", stamp().c_str(), int(::getpid()),
                     path.c_str(), engine->name().c_str(), engine->detail().c_str());
        said = "ok " + std::to_string(::getpid()) + " " + engine->name() + ": " + engine->detail();
        [[maybe_unused]] ssize_t w = ::write(p[1], said.data(), said.size());
        ::close(p[1]);
        std::fprintf(stderr, "%s GPU agent ended: %s\n", stamp().c_str(), serve(server).c_str());
      } catch (const std::exception& e) {
        said = std::string("error ") + e.what();
        [[maybe_unused]] ssize_t w = ::write(p[1], said.data(), said.size());
        std::fprintf(stderr, "%s GPU agent could not start: %s\n", stamp().c_str(), e.what());
        rc = 1;
      }
      std::fflush(stderr);
      ::_exit(rc);
    }
    ::close(p[1]);
    std::string said;
    char b[512];
    for (ssize_t n; (n = ::read(p[0], b, sizeof b)) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      said.append(b, size_t(n));
    }
    ::close(p[0]);
    if (said.rfind("ok ", 0) != 0)
      throw Error(ErrorKind::Usage, said.rfind("error ", 0) == 0 ? said.substr(6) : "the GPU agent did not start");
    const std::string rest = said.substr(3);
    const std::string agent_pid = rest.substr(0, rest.find(' '));
    if (ctx.json) {
      ctx.out << nlohmann::json{{"running", true}, {"pid", std::stoi(agent_pid)}, {"socket", path}, {"log", log}}.dump()
              << "\n";
    } else {
      ctx.message("GPU agent started: pid " + agent_pid + ", " + rest.substr(rest.find(' ') + 1));
      ctx.message("socket " + path + ", log " + log + "; ends after " +
                  (idle > 0 ? std::to_string(int(idle)) + " s without a command" : std::string("warpvol gpu-agent stop")));
    }
    return 0;
  }

  static int status(Context& ctx, const std::string& path) {
    agent::AgentStatus st;
    std::string why;
    const bool up = agent::query_status(path, st, why);
    if (ctx.json) {
      nlohmann::json j{{"running", up}, {"socket", path}};
      if (up) j.update({{"pid", st.pid}, {"engine", st.engine}, {"status", st.text}});
      ctx.out << j.dump() << "\n";
      return up ? 0 : exit_code(ErrorKind::Io);
    }
    if (!up) throw Error(ErrorKind::Io, "no GPU agent runs (" + why + ")");
    ctx.out << "GPU agent pid " << st.pid << " at " << path << "\n" << st.text << "\n";
    return 0;
  }

  static int stop(Context& ctx, const std::string& path) {
    int pid = 0;
    std::string why;
    if (!agent::request_stop(path, pid, why)) {
      ctx.message("no GPU agent runs (" + why + ")");
      return 0;
    }
    // Returns once it is gone: it ends when the commands still connected have finished. (Its start time guards
    // against a reused pid; a zombie left by a foreground parent counts as gone.)
    const uint64_t started = mount::process_start_time(pid);
    auto alive = [&] { return started != 0 && mount::process_alive(pid, started); };
    for (int i = 0; i < 600 && alive(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (alive())
      ctx.message("GPU agent pid " + std::to_string(pid) + " ends once its commands have finished");
    else
      ctx.message("GPU agent pid " + std::to_string(pid) + " stopped");
    return 0;
  }

  // Every thread made from here on leaves these signals to serve()'s watcher.
  static void block_stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
  }
};

}  // namespace

std::unique_ptr<Command> make_gpu_agent_command() { return std::make_unique<GpuAgentCommand>(); }

}  // namespace warpvol::cli
