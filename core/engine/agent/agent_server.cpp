#include "core/engine/agent/agent_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <map>

#include "core/crypto/unit_xxh3.h"
#include "core/engine/agent/agent_protocol.h"
#include "core/util/error.h"
#include "core/util/secure.h"

namespace warpvol::agent {

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

constexpr size_t kBufferAlign = size_t(2) << 20;

Reply reply_to(const Request& q) {
  Reply r;
  r.op = q.op;
  r.tag = q.tag;
  return r;
}

void set_error(Reply& r, ErrorKind kind, const std::string& what) {
  r.status = uint16_t(1 + int(kind));
  set_text(r.text, sizeof r.text, what.empty() ? "agent: the engine failed without saying why" : "agent: " + what);
}

}  // namespace

// Shared buffers: memfd memory (a command maps it through the descriptor), page-locked by the engine once, kept
// between commands up to keep_bytes: making and locking a buffer costs far more than a command's use of it.
struct Server::Pool {
  struct Buf {
    int fd = -1;
    uint8_t* p = nullptr;
    size_t size = 0;
    bool pinned = false;
  };
  XtsEngine& engine;
  size_t keep;
  std::mutex mu;
  std::multimap<size_t, Buf> free;
  size_t kept = 0;

  Pool(XtsEngine& e, size_t k) : engine(e), keep(k) {}
  ~Pool() {
    for (auto& [n, b] : free) destroy(b);
  }
  size_t kept_bytes() {
    std::lock_guard<std::mutex> lk(mu);
    return kept;
  }
  Buf take(size_t bytes) {
    const size_t n = std::max<size_t>(1, (bytes + kBufferAlign - 1) / kBufferAlign) * kBufferAlign;
    {
      std::lock_guard<std::mutex> lk(mu);
      auto it = free.lower_bound(n);
      if (it != free.end() && it->first <= n + n / 4) {
        Buf b = it->second;
        kept -= b.size;
        free.erase(it);
        return b;
      }
    }
    return make(n);
  }
  Buf make(size_t n) {
    Buf b;
    b.fd = ::memfd_create("warpvol-agent", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (b.fd < 0) throw Error(ErrorKind::Io, std::string("memfd_create: ") + std::strerror(errno));
    // Sealed at its size: a command cannot shrink the memory under the engine (a fault in the agent) or grow it.
    if (::ftruncate(b.fd, off_t(n)) != 0 ||
        ::fcntl(b.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
      const int e = errno;
      ::close(b.fd);
      throw Error(ErrorKind::Io, std::string("shared buffer: ") + std::strerror(e));
    }
    void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, b.fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(b.fd);
      throw Error(ErrorKind::Io, "cannot map " + std::to_string(n) + " bytes of shared memory: " + std::strerror(e));
    }
    b.p = static_cast<uint8_t*>(p);
    b.size = n;
    b.pinned = engine.pin_host(b.p, n);
    return b;
  }
  void put(Buf b) {
    {
      std::lock_guard<std::mutex> lk(mu);
      if (kept + b.size <= keep) {
        kept += b.size;
        free.emplace(b.size, b);
        return;
      }
    }
    destroy(b);
  }
  void destroy(Buf& b) {
    if (b.pinned) engine.unpin_host(b.p);
    ::munmap(b.p, b.size);
    ::close(b.fd);
  }
};

// One command: its keys and buffers, and the threads that run its requests (a command sends several at once).
struct Server::Connection {
  Server& server;
  int fd;
  std::mutex send_mu;
  std::mutex mu;
  std::condition_variable cv;
  std::map<uint32_t, std::shared_ptr<const EngineKey>> keys;
  struct Held {
    Pool::Buf buf;
    int in_use = 0;  // requests running on it
  };
  std::map<uint32_t, Held> bufs;
  uint32_t next_id = 1;
  std::vector<std::thread> readers;  // threads reading requests besides serve()'s own
  unsigned waiting = 0;              // readers waiting on the socket
  std::vector<int> channels;         // the command's sockets of its own (Op::Channel), each read by one thread
  std::vector<std::thread> channel_readers;
  int in_flight = 0;
  bool closing = false;

  Connection(Server& s, int f) : server(s), fd(f) {}

  // On the connection's socket, which several threads answer on; a channel's only thread answers there alone.
  void send(int sock, const Reply& r, int pass_fd = -1) {
    if (sock != fd) {
      send_message(sock, &r, sizeof r, pass_fd);
      return;
    }
    std::lock_guard<std::mutex> lk(send_mu);
    send_message(fd, &r, sizeof r, pass_fd);
  }

  // Reads the command's requests and runs each on the thread that read it: a data request reaches the engine
  // without a hand-over to another thread, whose wake-up (tens of microseconds on a virtual machine) every request's
  // round trip paid. A reader that takes a request while no other one waits on the socket first starts another
  // (up to 64), so that the next request is read while this one runs. A SOCK_SEQPACKET socket hands each message
  // whole to one reader. A channel (sock other than the connection's) carries one request at a time: its one thread
  // reads and answers them. Returns at the socket's end, or after a request of another protocol version.
  void read_requests(int sock) {
    const bool channel = sock != fd;
    Request q;
    for (;;) {
      if (!channel) {
        std::lock_guard<std::mutex> lk(mu);
        ++waiting;
      }
      const bool got = recv_message(sock, &q, sizeof q);
      if (!channel) {
        std::lock_guard<std::mutex> lk(mu);
        --waiting;
        if (got && !closing && waiting == 0 && readers.size() < 64)
          readers.emplace_back([this] { read_requests(fd); });
      }
      if (!got) break;
      if (q.magic != kMagic || q.version != kVersion) {
        Reply r = reply_to(q);
        r.pid = int32_t(::getpid());
        set_error(r, ErrorKind::Usage,
                  "protocol version mismatch (agent pid " + std::to_string(r.pid) + " speaks version " +
                      std::to_string(kVersion) + ", the command " + std::to_string(q.version) +
                      "): end that agent and start one with this warpvol");
        send(sock, r);
        ::shutdown(fd, SHUT_RD);  // the other readers stop too
        break;
      }
      handle(q, sock);
    }
    secure_wipe(&q, sizeof q);
  }

  void run_data(const Request& q, int sock) {
    const auto arrived = std::chrono::steady_clock::now();  // read from the socket just before
    Reply r = reply_to(q);
    std::shared_ptr<const EngineKey> a, b;
    uint8_t* data = nullptr;
    uint8_t* hashes = nullptr;
    const bool hashed = q.op == Op::ReencryptHashed;
    {
      std::lock_guard<std::mutex> lk(mu);
      auto ka = keys.find(q.key_a);
      auto kb = keys.find(q.key_b);
      auto bi = bufs.find(q.buffer);
      auto hi = hashed ? bufs.find(q.hash_buffer) : bufs.end();
      const bool reenc = q.op == Op::Reencrypt || hashed;
      const uint64_t bytes = q.nunits * kDataUnitSize;
      // (nunits is bounded first, so that neither product overflows)
      auto inside = [](const Pool::Buf& buf, uint64_t offset, uint64_t n) {
        return offset <= buf.size && n <= buf.size - offset;
      };
      if (ka == keys.end() || (reenc && kb == keys.end()) || bi == bufs.end() || q.nunits == 0 ||
          q.nunits > (uint64_t(1) << 40) || !inside(bi->second.buf, q.offset, bytes) ||
          (hashed && (hi == bufs.end() || !inside(hi->second.buf, q.hash_offset, q.nunits * kUnitXxh3Bytes))) ||
          (!reenc && q.direction > 1)) {
        set_error(r, ErrorKind::Usage, "a request names an unknown key or buffer, or lies outside its buffer");
        send(sock, r);
        return;
      }
      a = ka->second;
      if (reenc) b = kb->second;
      data = bi->second.buf.p + q.offset;
      ++bi->second.in_use;
      if (hashed) {
        hashes = hi->second.buf.p + q.hash_offset;
        ++hi->second.in_use;
      }
      ++in_flight;
    }
    try {
      if (hashes)
        server.engine_->reencrypt_hashed(*a, *b, q.unit0, data, size_t(q.nunits), hashes);
      else if (b)
        server.engine_->reencrypt(*a, *b, q.unit0, data, size_t(q.nunits));
      else
        server.engine_->process(*a, q.direction == 0 ? Direction::Encrypt : Direction::Decrypt, q.unit0, data,
                                size_t(q.nunits));
    } catch (const Error& e) {
      set_error(r, e.kind(), e.what());
    } catch (const std::exception& e) {
      set_error(r, ErrorKind::Io, e.what());
    }
    r.agent_ns = uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - arrived).count());
    send(sock, r);
    std::lock_guard<std::mutex> lk(mu);
    for (uint32_t id : {q.buffer, hashes ? q.hash_buffer : 0u}) {
      auto bi = bufs.find(id);
      if (id && bi != bufs.end()) --bi->second.in_use;
    }
    --in_flight;
    cv.notify_all();
  }

  void handle(Request& q, int sock) {
    Reply r = reply_to(q);
    switch (q.op) {
      case Op::Hello: {
        r.pid = int32_t(::getpid());
        r.concurrency = server.engine_->concurrency();
        set_text(r.engine, sizeof r.engine, server.engine_->name());
        set_text(r.text, sizeof r.text, server.engine_->detail());
        send(sock, r);
        return;
      }
      case Op::Key: {
        const auto& chains = all_chains();
        auto it = std::find_if(chains.begin(), chains.end(), [&](const ChainInfo& c) { return uint32_t(c.id) == q.chain; });
        if (it == chains.end() || q.material_len != 2 * it->key_size()) {
          set_error(r, ErrorKind::Usage, "unknown chain or key length");
        } else {
          try {
            auto key = server.engine_->prepare(it->id, q.material);
            std::lock_guard<std::mutex> lk(mu);
            r.id = next_id++;
            keys[r.id] = std::move(key);
          } catch (const std::exception& e) {
            set_error(r, ErrorKind::Io, e.what());
          }
        }
        secure_wipe(q.material, sizeof q.material);
        send(sock, r);
        return;
      }
      case Op::FreeKey: {
        std::lock_guard<std::mutex> lk(mu);
        keys.erase(q.key_a);  // requests still running hold their own reference
        return;
      }
      case Op::Buffer: {
        try {
          if (q.bytes == 0 || q.bytes > (uint64_t(1) << 36)) throw Error(ErrorKind::Usage, "bad buffer size");
          Pool::Buf b = server.pool_->take(size_t(q.bytes));
          {
            std::lock_guard<std::mutex> lk(mu);
            r.id = next_id++;
            bufs[r.id] = Held{b, 0};
          }
          r.size = b.size;
          r.pinned = b.pinned;
          send(sock, r, b.fd);
        } catch (const Error& e) {
          set_error(r, e.kind(), e.what());
          send(sock, r);
        } catch (const std::exception& e) {
          set_error(r, ErrorKind::Io, e.what());
          send(sock, r);
        }
        return;
      }
      case Op::FreeBuffer: {
        std::unique_lock<std::mutex> lk(mu);
        auto it = bufs.find(q.buffer);
        if (it == bufs.end()) return;
        cv.wait(lk, [&] { return it->second.in_use == 0; });
        Pool::Buf b = it->second.buf;
        bufs.erase(it);
        lk.unlock();
        // The command wiped what it kept there before freeing it (IoBuffer's contract).
        server.pool_->put(b);
        return;
      }
      case Op::Process:
      case Op::Reencrypt:
      case Op::ReencryptHashed:
        run_data(q, sock);
        return;
      case Op::Status: {
        r.pid = int32_t(::getpid());
        set_text(r.engine, sizeof r.engine, server.engine_->name());
        set_text(r.text, sizeof r.text, server.status_text());
        send(sock, r);
        return;
      }
      case Op::Channel: {
        int sv[2];
        if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
          set_error(r, ErrorKind::Io, std::string("socketpair: ") + std::strerror(errno));
          send(sock, r);
          return;
        }
        {
          std::lock_guard<std::mutex> lk(mu);
          if (closing || channels.size() >= 64) {
            ::close(sv[0]);
            ::close(sv[1]);
            set_error(r, ErrorKind::Busy, "no more sockets for this command");
            send(sock, r);
            return;
          }
          channels.push_back(sv[0]);
          channel_readers.emplace_back([this, c = sv[0]] { read_requests(c); });
        }
        send(sock, r, sv[1]);
        ::close(sv[1]);  // the command's end, now in the command
        return;
      }
      case Op::Stop: {
        r.pid = int32_t(::getpid());
        send(sock, r);
        {
          std::lock_guard<std::mutex> lk(server.mu_);
          if (server.stop_reason_.empty()) server.stop_reason_ = "stopped on request (warpvol gpu-agent stop)";
        }
        server.stop();
        return;
      }
    }
    set_error(r, ErrorKind::Usage, "unknown request");
    send(sock, r);
  }

  // After the command went (its last request answered): everything it held is wiped and given back.
  void close_down() {
    {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return in_flight == 0; });
      closing = true;  // no reader starts another from here
    }
    ::shutdown(fd, SHUT_RD);  // readers still waiting on the socket return
    for (int c : channels) ::shutdown(c, SHUT_RD);  // (the command closed its ends, unless it still runs)
    for (auto& t : readers) t.join();
    for (auto& t : channel_readers) t.join();
    for (int c : channels) ::close(c);
    for (auto& [id, h] : bufs) {
      secure_wipe(h.buf.p, h.buf.size);  // a command that ended without freeing it (killed) did not wipe it
      server.pool_->put(h.buf);
    }
    bufs.clear();
    keys.clear();
    ::close(fd);
  }
};

Server::Server(std::shared_ptr<XtsEngine> engine, ServerOptions opt)
    : engine_(std::move(engine)), opt_(std::move(opt)) {
  path_ = opt_.socket_path.empty() ? socket_path() : opt_.socket_path;
  pool_ = std::make_unique<Pool>(*engine_, opt_.keep_bytes);
  listen_fd_ = listen_socket(path_);
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(listen_fd_);
    throw Error(ErrorKind::Io, std::string("pipe: ") + std::strerror(errno));
  }
  started_ = now_s();
  if (!opt_.prewarm.empty())
    prewarm_ = std::thread([this] {
      try {
        for (const auto& [bytes, count] : opt_.prewarm)
          for (int i = 0; i < count && !stopping_; ++i) pool_->put(pool_->make(bytes));
      } catch (const std::exception& e) {  // commands make their buffers as they ask
        if (opt_.log) opt_.log(std::string("could not make the buffers ahead: ") + e.what());
      }
    });
}

Server::~Server() {
  stop();
  if (prewarm_.joinable()) prewarm_.join();
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    ::unlink(path_.c_str());
  }
  {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return connections_ == 0; });
  }
  for (int f : wake_)
    if (f >= 0) ::close(f);
}

void Server::stop() {
  stopping_ = true;
  if (wake_[1] >= 0) {
    const char c = 'x';
    [[maybe_unused]] ssize_t n = ::write(wake_[1], &c, 1);
  }
}

void Server::serve(int fd) {
  Connection c(*this, fd);
  c.read_requests(fd);
  c.close_down();
  const bool failed = opt_.engine_failed && opt_.engine_failed();
  std::lock_guard<std::mutex> lk(mu_);
  if (failed && stop_reason_.empty()) {
    stop_reason_ = "the engine failed (a GPU error): ending, so that the next command starts a fresh one";
    stop();
  }
  --connections_;
  last_activity_ = now_s();
  cv_.notify_all();
}

std::string Server::status_text() const {
  std::lock_guard<std::mutex> lk(mu_);
  char b[160];
  // Asked through a connection of its own, which is no command.
  std::snprintf(b, sizeof b, "; commands connected %d, served %llu; up %.0f s; ends after %.0f s without commands",
                std::max(0, connections_ - 1), static_cast<unsigned long long>(served_ > 0 ? served_ - 1 : 0),
                now_s() - started_, opt_.idle_exit_s);
  return engine_->name() + ": " + engine_->detail() + b + (opt_.idle_exit_s > 0 ? "" : " (never)") +
         "; page-locked buffers kept: " + std::to_string(pool_->kept_bytes() >> 20) + " MiB";
}

std::string Server::run() {
  last_activity_ = now_s();
  while (!stopping_) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    const int n = ::poll(p, 2, 500);
    if (n < 0 && errno != EINTR) break;
    if (p[1].revents) break;
    if (n > 0 && (p[0].revents & POLLIN)) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        if (!peer_is_same_user(fd)) {
          ::close(fd);
        } else {
          std::lock_guard<std::mutex> lk(mu_);
          ++connections_;
          ++served_;
          std::thread(&Server::serve, this, fd).detach();
        }
      }
    }
    std::lock_guard<std::mutex> lk(mu_);
    if (opt_.idle_exit_s > 0 && connections_ == 0 && now_s() - last_activity_ >= opt_.idle_exit_s) {
      if (stop_reason_.empty()) stop_reason_ = "no command for " + std::to_string(int(opt_.idle_exit_s)) + " s";
      break;
    }
  }
  // No new commands from here; those connected finish their jobs.
  ::close(listen_fd_);
  ::unlink(path_.c_str());
  listen_fd_ = -1;
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] { return connections_ == 0; });
  if (stop_reason_.empty()) stop_reason_ = "stopped";
  return stop_reason_;
}

}  // namespace warpvol::agent
