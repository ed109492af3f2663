// The engine agent's server (agent_protocol.h): serves one engine to the user's commands through a Unix socket.
// Each connection is one command: its keys and buffers belong to it and are wiped and released when it goes,
// whatever the way it ends (a command killed mid-job included). Requests of one connection run concurrently, so
// a command's reader threads keep the engine's pipeline as full as they would in-process. Engine-agnostic: `warpvol
// gpu-agent` hosts the GPU engine; the tests host the CPU engine.
#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/engine/xts_engine.h"

namespace warpvol::agent {

struct ServerOptions {
  std::string socket_path;  // empty: socket_path()
  // Ends after this many seconds without a connected command (0: never).
  double idle_exit_s = 600;
  // Page-locked buffers kept for the next commands once a command has freed them.
  size_t keep_bytes = size_t(2) << 30;
  // Buffers made as the agent starts (bytes, how many), on a thread of their own: making and page-locking shared
  // memory costs far more than a command's use of it, so the first command finds them ready.
  std::vector<std::pair<size_t, int>> prewarm;
  // Asked after each command: true when the engine can no longer do its work (the GPU engine after a CUDA error
  // runs everything on its CPU fallback): the agent then ends, so the next command starts a fresh engine itself.
  std::function<bool()> engine_failed;
  std::function<void(const std::string&)> log;  // one line per event worth a log
};

class Server {
 public:
  // Listens at once (throws Error: Busy when an agent already listens there).
  Server(std::shared_ptr<XtsEngine> engine, ServerOptions opt);
  ~Server();
  // Serves until stop(), a Stop request, the idle timeout or a failed engine; returns why it ended.
  std::string run();
  void stop();  // from any thread or a signal handler's watcher
  const std::string& path() const { return path_; }

 private:
  struct Pool;
  struct Connection;
  void serve(int fd);
  std::string status_text() const;

  std::shared_ptr<XtsEngine> engine_;
  ServerOptions opt_;
  std::string path_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // stop() writes here
  std::unique_ptr<Pool> pool_;
  std::atomic<bool> stopping_{false};
  std::string stop_reason_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int connections_ = 0;
  uint64_t served_ = 0;  // commands so far
  std::thread prewarm_;
  double started_ = 0;
  double last_activity_ = 0;  // a command last went (or the agent started)
};

}  // namespace warpvol::agent
