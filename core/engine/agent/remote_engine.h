// The engine of a running engine agent (agent_protocol.h), seen from a command: an XtsEngine whose requests run in
// the agent's engine (the GPU engine, already started), so the command pays neither the engine's start nor, at
// exit, its release. Buffers from io_buffer() are the agent's shared, page-locked memory mapped into this process:
// a request on them moves no data between the processes. Memory from elsewhere goes through shared staging buffers
// (one copy in and out), so every caller of process() works, the jobs' buffers fastest.
// If the agent goes away during a job (killed), the requests in flight and every later one throw Error(Io): the
// agent may have transformed part of a request in place, so nothing can be redone safely on this side; the job
// fails before its commit point like any interrupted one (re-encryption resumes with --resume).
#pragma once
#include <memory>
#include <string>

#include "core/engine/xts_engine.h"

namespace warpvol::agent {

class Link;  // remote_engine.cpp: the connection, shared with keys and buffers that outlive the engine

class RemoteEngine final : public XtsEngine {
 public:
  // nullptr with why_not set when no agent answers at `path` (or it speaks another protocol version).
  static std::unique_ptr<RemoteEngine> connect(const std::string& path, std::string& why_not);
  ~RemoteEngine() override;

  std::string name() const override;    // the agent's engine: "gpu"
  std::string detail() const override;  // "GPU agent pid N: <its engine's detail>"
  std::shared_ptr<const EngineKey> prepare(ChainId chain, const uint8_t* key_material) override;
  void process(const EngineKey& key, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) override;
  void reencrypt(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                 size_t nunits) override;
  // The agent's engine hashes the units where it re-encrypts them (the GPU: in device memory).
  void reencrypt_hashed(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data, size_t nunits,
                        uint8_t* hashes) override;
  IoBuffer io_buffer(size_t bytes) override;
  unsigned concurrency() const override;
  int agent_pid() const;
  // The requests on the agent's buffers so far: how many, their mean round trip and the agent's part of it, and
  // the sockets of its own (one per caller at once) they went on.
  std::string request_stats() const override;

 private:
  explicit RemoteEngine(std::shared_ptr<Link> link) : link_(std::move(link)) {}
  // hashes: ReencryptHashed's output (b set), or null.
  void run(const EngineKey& a, const EngineKey* b, Direction d, uint64_t unit0, uint8_t* data, size_t nunits,
           uint8_t* hashes = nullptr);
  std::shared_ptr<Link> link_;
};

// What the agent at `path` says of itself (`warpvol gpu-agent status`), or nullopt-like empty with why_not.
struct AgentStatus {
  int pid = 0;
  std::string engine;
  std::string text;
};
bool query_status(const std::string& path, AgentStatus& out, std::string& why_not);
// Asks the agent to end once its commands have gone; false with why_not when none answers.
bool request_stop(const std::string& path, int& pid, std::string& why_not);

}  // namespace warpvol::agent
