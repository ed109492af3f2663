#include "core/engine/agent/remote_engine.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "core/crypto/unit_xxh3.h"
#include "core/engine/agent/agent_protocol.h"
#include "core/util/error.h"
#include "core/util/secure.h"

namespace warpvol::agent {

// Staging buffers for memory that is not the agent's (a piece of a request at a time).
constexpr size_t kStagingBytes = size_t(16) << 20;

class Link {
 public:
  struct Received {
    Reply r;
    int fd = -1;
  };

  explicit Link(int fd) : fd_(fd) { reader_ = std::thread([this] { read_replies(); }); }
  ~Link() {
    for (int c : channels_) ::close(c);  // no request is under way: the engine and its keys and buffers are gone
    ::shutdown(fd_, SHUT_RDWR);
    reader_.join();
    ::close(fd_);
    for (auto& s : staging_) ::munmap(s.p, s.size);  // given back with the connection
  }

  // Sends q and waits for its reply; throws Error with the agent's message on a failed request, Error(Io) when
  // the agent is gone. No reply is awaited for Free* requests. A data request goes on a channel of its caller's
  // (Op::Channel), whose reply wakes the caller itself; the others, and data requests beyond the channels the agent
  // gives, through the connection and its reply reader.
  Received call(Request& q) {
    const bool data = q.op == Op::Process || q.op == Op::Reencrypt || q.op == Op::ReencryptHashed;
    if (const int c = data ? take_channel() : -1; c >= 0) {
      Received got;
      if (!send_message(c, &q, sizeof q) || !recv_message(c, &got.r, sizeof got.r, &got.fd) ||
          got.r.magic != kMagic) {
        ::close(c);  // not given back: the agent is gone, or the channel is out of step
        std::lock_guard<std::mutex> lk(mu_);
        channels_.erase(std::find(channels_.begin(), channels_.end(), c));
        throw Error(ErrorKind::Io, gone_.empty() ? lost("its channel closed") : gone_);
      }
      put_channel(c);
      return checked(got, q);
    }
    std::future<Received> f;
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (!gone_.empty()) throw Error(ErrorKind::Io, gone_);
      q.tag = next_tag_++;
      f = pending_[q.tag].get_future();
    }
    if (!send(q)) {
      std::lock_guard<std::mutex> lk(mu_);
      pending_.erase(q.tag);
      throw Error(ErrorKind::Io, gone_.empty() ? lost("the connection broke") : gone_);
    }
    return checked(f.get(), q);  // the reader sets an exception when the agent goes away
  }
  void notify(Request& q) {  // no reply
    send(q);
  }

  // The channels this command holds.
  size_t channels() {
    std::lock_guard<std::mutex> lk(mu_);
    return channels_.size();
  }

  Received checked(Received got, const Request& q) {
    if (got.r.status != 0) {
      if (got.fd >= 0) ::close(got.fd);
      const int k = got.r.status - 1;
      const ErrorKind kind = k >= 0 && k < int(std::size(kAllErrorKinds)) ? kAllErrorKinds[k] : ErrorKind::Io;
      std::string text(got.r.text, strnlen(got.r.text, sizeof got.r.text));
      if (text.empty())
        text = "the GPU agent could not run a request (operation " + std::to_string(int(q.op)) + ", status " +
               std::to_string(got.r.status) + ")";
      throw Error(kind, text);
    }
    return got;
  }

  void add_mapping(uint8_t* p, size_t size, uint32_t id) {
    std::lock_guard<std::mutex> lk(mu_);
    mappings_[p] = {id, size};
  }
  void remove_mapping(uint8_t* p) {
    std::lock_guard<std::mutex> lk(mu_);
    mappings_.erase(p);
  }
  // The agent buffer holding [p, p + n), with p's offset in it.
  bool find_mapping(const uint8_t* p, size_t n, uint32_t& id, uint64_t& offset) {
    if (!p) return false;
    std::lock_guard<std::mutex> lk(mu_);
    auto it = mappings_.upper_bound(const_cast<uint8_t*>(p));
    if (it == mappings_.begin()) return false;
    --it;
    const size_t off = size_t(p - it->first);
    if (off >= it->second.size || n > it->second.size - off) return false;
    id = it->second.id;
    offset = off;
    return true;
  }

  struct Staging {
    uint8_t* p = nullptr;
    size_t size = 0;
    uint32_t id = 0;
  };
  Staging take_staging(const std::function<Staging()>& make) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (!free_staging_.empty()) {
        Staging s = free_staging_.back();
        free_staging_.pop_back();
        return s;
      }
    }
    Staging s = make();
    std::lock_guard<std::mutex> lk(mu_);
    staging_.push_back(s);
    return s;
  }
  void put_staging(const Staging& s) {
    std::lock_guard<std::mutex> lk(mu_);
    free_staging_.push_back(s);
  }

  // Set by connect() from the Hello reply after the reply reader started, and read by that reader when the
  // connection closes (lost()): atomic, so that the pair needs no order through the threads that used the engine in
  // between (ThreadSanitizer could not see one through std::future's wait and reported a data race).
  std::atomic<int> pid{0};
  unsigned concurrency = 1;
  std::string engine, detail;
  // Requests on the agent's buffers so far, their round trips and the agent's part of them (nanoseconds).
  std::atomic<uint64_t> data_requests{0}, round_trip_ns{0}, agent_ns{0};

 private:
  bool send(const Request& q) {
    std::lock_guard<std::mutex> lk(send_mu_);
    return send_message(fd_, &q, sizeof q);
  }
  // A free channel, a new one while the command holds fewer than kMaxChannels, else -1 (the connection).
  static constexpr size_t kMaxChannels = 32;
  int take_channel() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (!free_channels_.empty()) {
        const int c = free_channels_.back();
        free_channels_.pop_back();
        return c;
      }
      if (channels_.size() + opening_ >= kMaxChannels || no_channels_) return -1;
      ++opening_;
    }
    Request q;
    q.op = Op::Channel;
    int c = -1;
    try {
      c = call(q).fd;
    } catch (const Error&) {  // (the agent gave none: the connection carries the data requests too)
    }
    std::lock_guard<std::mutex> lk(mu_);
    --opening_;
    if (c < 0) no_channels_ = true;
    else channels_.push_back(c);
    return c;
  }
  void put_channel(int c) {
    std::lock_guard<std::mutex> lk(mu_);
    free_channels_.push_back(c);
  }
  std::string lost(const std::string& why) const {
    return "the GPU agent (pid " + std::to_string(pid.load()) + ") went away during the job (" + why +
           "); nothing after the last commit point was written: run the command again (re-encryption: --resume)";
  }
  void read_replies() {
    for (;;) {
      Received got;
      if (!recv_message(fd_, &got.r, sizeof got.r, &got.fd) || got.r.magic != kMagic) break;
      std::promise<Received> p;
      {
        std::lock_guard<std::mutex> lk(mu_);
        auto it = pending_.find(got.r.tag);
        if (it == pending_.end()) {
          if (got.fd >= 0) ::close(got.fd);
          continue;
        }
        p = std::move(it->second);
        pending_.erase(it);
      }
      p.set_value(got);
    }
    std::map<uint64_t, std::promise<Received>> orphans;
    {
      std::lock_guard<std::mutex> lk(mu_);
      gone_ = lost("its connection closed");
      orphans.swap(pending_);
    }
    for (auto& [tag, p] : orphans) p.set_exception(std::make_exception_ptr(Error(ErrorKind::Io, gone_)));
  }

  int fd_;
  std::thread reader_;
  std::mutex send_mu_;
  std::mutex mu_;
  std::map<uint64_t, std::promise<Received>> pending_;
  uint64_t next_tag_ = 1;
  std::string gone_;  // set once the agent went away
  std::vector<int> channels_, free_channels_;  // every channel, and those no caller holds
  size_t opening_ = 0;                          // channels asked for, not yet here
  bool no_channels_ = false;                    // the agent gave none
  struct Mapping {
    uint32_t id;
    size_t size;
  };
  std::map<uint8_t*, Mapping> mappings_;
  std::vector<Staging> staging_, free_staging_;
};

namespace {

class RemoteKey final : public EngineKey {
 public:
  RemoteKey(ChainId c, uint32_t id, std::shared_ptr<Link> link) : chain_(c), id_(id), link_(std::move(link)) {}
  ~RemoteKey() override {
    Request q;
    q.op = Op::FreeKey;
    q.key_a = id_;
    link_->notify(q);
  }
  ChainId chain() const override { return chain_; }
  uint32_t id() const { return id_; }
  const Link* link() const { return link_.get(); }

 private:
  ChainId chain_;
  uint32_t id_;
  std::shared_ptr<Link> link_;
};

const RemoteKey& remote_key(const EngineKey& k, const Link* link) {
  const auto* r = dynamic_cast<const RemoteKey*>(&k);
  if (!r || r->link() != link) throw std::logic_error("a key of another engine was given to the GPU agent's engine");
  return *r;
}

// Maps an agent buffer whose descriptor came with `got`; nullptr when it cannot.
uint8_t* map_buffer(const Link::Received& got) {
  if (got.fd < 0) return nullptr;
  void* p = ::mmap(nullptr, got.r.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, got.fd, 0);
  ::close(got.fd);
  return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}

}  // namespace

std::unique_ptr<RemoteEngine> RemoteEngine::connect(const std::string& path, std::string& why_not) {
  const int fd = connect_socket(path, why_not);
  if (fd < 0) return nullptr;
  auto link = std::make_shared<Link>(fd);
  Request q;
  q.op = Op::Hello;
  try {
    Link::Received got = link->call(q);
    link->pid = got.r.pid;
    link->concurrency = std::max<uint32_t>(1, got.r.concurrency);
    link->engine = std::string(got.r.engine, strnlen(got.r.engine, sizeof got.r.engine));
    link->detail = std::string(got.r.text, strnlen(got.r.text, sizeof got.r.text));
  } catch (const std::exception& e) {
    why_not = std::string("the GPU agent at ") + path + " did not answer: " + e.what();
    return nullptr;
  }
  return std::unique_ptr<RemoteEngine>(new RemoteEngine(std::move(link)));
}

RemoteEngine::~RemoteEngine() = default;

std::string RemoteEngine::name() const { return link_->engine; }
std::string RemoteEngine::detail() const {
  return "GPU agent pid " + std::to_string(link_->pid.load()) + ": " + link_->detail;
}
unsigned RemoteEngine::concurrency() const { return link_->concurrency; }
int RemoteEngine::agent_pid() const { return link_->pid; }

std::string RemoteEngine::request_stats() const {
  const uint64_t n = link_->data_requests;
  if (n == 0) return {};
  char b[240];
  std::snprintf(b, sizeof b, "GPU agent: %llu requests on its buffers, round trip %.3f ms each, %.3f ms of it in the "
                "agent, over %zu sockets of the command's callers", static_cast<unsigned long long>(n),
                link_->round_trip_ns / 1e6 / double(n), link_->agent_ns / 1e6 / double(n), link_->channels());
  return b;
}

std::shared_ptr<const EngineKey> RemoteEngine::prepare(ChainId chain, const uint8_t* key_material) {
  const size_t n = 2 * chain_info(chain).key_size();
  if (n > kMaxKeyMaterial) throw std::logic_error("key material too long for the agent protocol");
  Request q;
  q.op = Op::Key;
  q.chain = uint32_t(chain);
  q.material_len = uint32_t(n);
  std::memcpy(q.material, key_material, n);
  struct Wipe {
    Request& q;
    ~Wipe() { secure_wipe(q.material, sizeof q.material); }
  } wipe{q};
  const Link::Received got = link_->call(q);
  return std::make_shared<RemoteKey>(chain, got.r.id, link_);
}

IoBuffer RemoteEngine::io_buffer(size_t bytes) {
  Request q;
  q.op = Op::Buffer;
  q.bytes = bytes;
  try {
    const Link::Received got = link_->call(q);
    uint8_t* p = map_buffer(got);
    if (!p) {
      Request f;
      f.op = Op::FreeBuffer;
      f.buffer = got.r.id;
      link_->notify(f);
      return IoBuffer::aligned(bytes);
    }
    link_->add_mapping(p, got.r.size, got.r.id);
    std::shared_ptr<Link> link = link_;
    const uint32_t id = got.r.id;
    return IoBuffer(
        p, got.r.size,
        [link, id](uint8_t* data, size_t size) {
          link->remove_mapping(data);
          ::munmap(data, size);
          Request f;
          f.op = Op::FreeBuffer;
          f.buffer = id;
          link->notify(f);
        },
        got.r.pinned != 0);
  } catch (const Error&) {
    // The agent could not make one (or is gone: the job's first request says so): ordinary memory, staged.
    return IoBuffer::aligned(bytes);
  }
}

void RemoteEngine::process(const EngineKey& key, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) {
  run(key, nullptr, d, unit0, data, nunits);
}

void RemoteEngine::reencrypt(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                             size_t nunits) {
  run(from, &to, Direction::Encrypt, unit0, data, nunits);
}

void RemoteEngine::reencrypt_hashed(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                                    size_t nunits, uint8_t* hashes) {
  run(from, &to, Direction::Encrypt, unit0, data, nunits, hashes);
}

void RemoteEngine::run(const EngineKey& a, const EngineKey* b, Direction d, uint64_t unit0, uint8_t* data,
                       size_t nunits, uint8_t* hashes) {
  if (nunits == 0) return;
  Request q;
  q.op = hashes ? Op::ReencryptHashed : b ? Op::Reencrypt : Op::Process;
  q.key_a = remote_key(a, link_.get()).id();
  if (b) q.key_b = remote_key(*b, link_.get()).id();
  q.direction = d == Direction::Encrypt ? 0 : 1;
  const size_t hash_bytes = hashes ? kUnitXxh3Bytes : 0;  // per unit
  if (link_->find_mapping(data, nunits * kDataUnitSize, q.buffer, q.offset) &&
      (!hashes || link_->find_mapping(hashes, nunits * hash_bytes, q.hash_buffer, q.hash_offset))) {
    q.unit0 = unit0;
    q.nunits = nunits;
    const auto t0 = std::chrono::steady_clock::now();
    const Link::Received got = link_->call(q);
    link_->round_trip_ns += uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    link_->agent_ns += got.r.agent_ns;
    ++link_->data_requests;
    return;
  }
  // Not the agent's memory: through a staging buffer, a piece at a time (its units, then their hashes).
  Link::Staging s = link_->take_staging([&] {
    Request m;
    m.op = Op::Buffer;
    m.bytes = kStagingBytes;
    const Link::Received got = link_->call(m);
    uint8_t* p = map_buffer(got);
    if (!p) throw Error(ErrorKind::Io, "cannot map the GPU agent's shared memory");
    return Link::Staging{p, size_t(got.r.size), got.r.id};
  });
  struct Give {
    Link& l;
    Link::Staging& s;
    size_t used = 0;  // the bytes the pieces filled: a request of a few KiB wipes those, not the whole buffer
    ~Give() {
      secure_wipe(s.p, used);
      l.put_staging(s);
    }
  } give{*link_, s};
  const size_t piece = s.size / (kDataUnitSize + hash_bytes);
  const size_t first = std::min(piece, nunits);  // the largest piece
  give.used = hashes ? piece * kDataUnitSize + first * hash_bytes : first * kDataUnitSize;
  for (size_t done = 0; done < nunits; done += piece) {
    const size_t n = std::min(piece, nunits - done);
    std::memcpy(s.p, data + done * kDataUnitSize, n * kDataUnitSize);
    q.buffer = s.id;
    q.offset = 0;
    if (hashes) {
      q.hash_buffer = s.id;
      q.hash_offset = piece * kDataUnitSize;
    }
    q.unit0 = unit0 + done;
    q.nunits = n;
    link_->call(q);
    std::memcpy(data + done * kDataUnitSize, s.p, n * kDataUnitSize);
    if (hashes) std::memcpy(hashes + done * hash_bytes, s.p + q.hash_offset, n * hash_bytes);
  }
}

namespace {

// One request on a connection of its own (status, stop): the reply, or false with why_not.
bool ask(const std::string& path, Op op, Reply& reply, std::string& why_not) {
  const int fd = connect_socket(path, why_not);
  if (fd < 0) return false;
  Link link(fd);
  Request q;
  q.op = op;
  try {
    reply = link.call(q).r;
    return true;
  } catch (const std::exception& e) {
    why_not = e.what();
    return false;
  }
}

}  // namespace

bool query_status(const std::string& path, AgentStatus& out, std::string& why_not) {
  Reply r;
  if (!ask(path, Op::Status, r, why_not)) return false;
  out.pid = r.pid;
  out.engine = std::string(r.engine, strnlen(r.engine, sizeof r.engine));
  out.text = std::string(r.text, strnlen(r.text, sizeof r.text));
  return true;
}

bool request_stop(const std::string& path, int& pid, std::string& why_not) {
  Reply r;
  if (!ask(path, Op::Stop, r, why_not)) return false;
  pid = r.pid;
  return true;
}

}  // namespace warpvol::agent
