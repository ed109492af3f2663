// The engine agent: one long-lived process of the user's that keeps an engine (the GPU engine: its driver state,
// CUDA context, device memory and page-locked buffers) alive between commands, and the wire protocol between it
// (agent_server.h) and the commands that use it (remote_engine.h).
//
// Why a separate process: every process that touches the GPU pays the driver's start and the context's creation
// before its first request and the driver's release of that state when it exits, a fixed cost per command that a
// command working through a few GiB cannot amortise (a batch of commands pays it each time). The agent pays it once.
//
// Transport: a Unix SOCK_SEQPACKET socket (one message per request, file descriptors passed with SCM_RIGHTS) in a
// directory that only the user may enter; each side checks that the other runs as the same user (SO_PEERCRED).
// A command's engine callers each send their data requests on a socket of their own (Op::Channel), so that the
// reply wakes the caller that waits for it, not a reader thread that hands it over (a second wake-up per round trip).
// Data never travels on the socket: a command's buffers are memfd-backed shared memory that the agent made and
// page-locked once (and keeps for the next command), mapped into the command; a request names a buffer, an offset
// and a run of data units, and the agent transforms them in place. Key material does travel on the socket (the 2K
// bytes that XtsEngine::prepare takes): both ends are the same user's processes, the agent keeps keys in locked
// memory, and it wipes them when the command frees them or goes away.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace warpvol::agent {

constexpr uint32_t kMagic = 0x57564147;  // "WVAG"
constexpr uint16_t kVersion = 3;  // 2: ReencryptHashed; 3: Channel
constexpr size_t kMaxKeyMaterial = 2 * 3 * 32;  // 2K bytes of a three-cipher cascade

enum class Op : uint16_t {
  Hello = 1,   // -> pid, engine name and detail, concurrency
  Key,         // chain + material -> key id
  FreeKey,     // no reply
  Buffer,      // bytes -> buffer id, size, pinned; the memfd comes with the reply
  FreeBuffer,  // no reply
  Process,     // key_a, direction, unit0, buffer, offset, nunits -> done
  Reencrypt,   // key_a -> key_b, unit0, buffer, offset, nunits -> done
  Status,      // -> text (what `gpu-agent status` prints)
  Stop,        // -> pid; the agent ends once its commands have gone
  ReencryptHashed,  // Reencrypt, and the units' XXH3-128 into hash_buffer at hash_offset -> done
  Channel,          // -> a socket of the command's own (its descriptor comes with the reply): the requests sent on
                    // it are answered on it, one at a time, with the keys and buffers of this connection
};

struct Request {
  uint32_t magic = kMagic;
  uint16_t version = kVersion;
  Op op = Op::Hello;
  uint64_t tag = 0;  // echoed by the reply
  uint32_t key_a = 0, key_b = 0;
  union {                  // (fields of different operations share the space, so that the message keeps its
    uint32_t chain = 0;    // size across versions and an agent of another version can say so: Key: ChainId
    uint32_t hash_buffer;  // ReencryptHashed: the buffer that gets the 16 bytes per unit
  };
  uint32_t direction = 0;  // Process: 0 encrypt, 1 decrypt
  uint32_t buffer = 0;
  uint32_t material_len = 0;
  uint64_t offset = 0;  // into the buffer
  uint64_t unit0 = 0;
  uint64_t nunits = 0;
  union {
    uint64_t bytes = 0;    // Buffer
    uint64_t hash_offset;  // ReencryptHashed: where the hashes start in hash_buffer
  };
  uint8_t material[kMaxKeyMaterial] = {};
};

static_assert(sizeof(Request) == 264, "a request keeps its size across protocol versions (the unions above)");

struct Reply {
  uint32_t magic = kMagic;
  Op op = Op::Hello;
  uint16_t status = 0;  // 0 = ok, else 1 + ErrorKind; `text` says what failed
  uint64_t tag = 0;
  uint32_t id = 0;      // key or buffer id
  uint32_t pinned = 0;  // Buffer: page-locked in the agent
  union {
    uint64_t size = 0;   // Buffer: bytes
    uint64_t agent_ns;   // Process, Reencrypt*: nanoseconds from the request's arrival to this reply (--verbose)
  };
  uint32_t concurrency = 1;
  int32_t pid = 0;
  char engine[16] = {};
  char text[448] = {};
};

void set_text(char* dst, size_t cap, const std::string& s);  // truncated, NUL-terminated

// Where the agent listens: $WARPVOL_GPU_AGENT_SOCKET, else $XDG_RUNTIME_DIR/warpvol/gpu-agent.sock, else
// /tmp/warpvol-<uid>/gpu-agent.sock.
std::string socket_path();
// WARPVOL_GPU_AGENT=off (or 0, no): commands never use an agent.
bool agent_disabled_by_env();

// Creates the socket's directory (mode 0700) or checks an existing one: owned by this user and closed to others;
// throws Error(Usage) otherwise.
void prepare_socket_dir(const std::string& path);
// Binds and listens (a stale socket file of an agent that is gone is replaced; a live agent: Error(Busy)).
int listen_socket(const std::string& path);
// Connects and checks that the peer runs as this user: the socket's fd, or -1 with why_not set.
int connect_socket(const std::string& path, std::string& why_not);
// The connected peer runs as this user.
bool peer_is_same_user(int fd);

// One message each way; fd = a descriptor to pass (send) or the one received (recv: -1 when none). send: false when
// the peer is gone. recv: false at the end of the stream or on an error; a message of the wrong size is an error.
bool send_message(int sock, const void* msg, size_t size, int fd = -1);
bool recv_message(int sock, void* msg, size_t size, int* fd = nullptr);

}  // namespace warpvol::agent
