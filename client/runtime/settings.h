// The client's connection settings, shared by the shim and the rgpu command.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/config.h"
#include "common/status.h"

namespace rgpu::client {

extern const Tunable kServerAddress;     // RGPU_SERVER
extern const Tunable kUnixSocket;        // RGPU_UNIX_SOCKET: rgpud's Unix socket on this host
extern const Tunable kToken;             // RGPU_TOKEN
extern const Tunable kHandshakeTimeout;  // RGPU_HANDSHAKE_TIMEOUT_S
extern const Tunable kMemory;            // RGPU_MEMORY: the session's memory request
extern const Tunable kCompute;           // RGPU_COMPUTE: the session's compute request
extern const Tunable kQueueTimeout;      // RGPU_QUEUE_TIMEOUT: seconds it may wait for room

// The rgpud a client reaches: RGPU_SERVER when it is set; else rgpud's Unix socket on this host
// (RGPU_UNIX_SOCKET, default /run/rgpu/rgpud.sock) when a socket is there, so that a client on the
// GPU's host, or in a container the socket is mounted into, takes the same-host path on its own;
// else RGPU_SERVER's default, 127.0.0.1:7070.
std::string server_address();

// A memory request as people write it (common/memory_size.h: "4096", "4096M", "4G", ...), in bytes;
// `what` names where it came from ("RGPU_MEMORY", "--memory") in the error. 0 is refused: leaving
// the request out is how to ask for all the tenant allows.
Result<uint64_t> parse_memory_request(std::string_view text, std::string_view what);
// A compute share: an integer percent of one GPU, min..100 (a trailing '%' is allowed).
Result<uint32_t> parse_compute_percent(std::string_view text, std::string_view what, uint32_t min = 1);

// The session's requests from RGPU_MEMORY and RGPU_COMPUTE: 0 (all the tenant allows) when unset
// or empty; an error, naming the variable and what it may hold, when set to something else.
Result<uint64_t> memory_request();
Result<uint32_t> compute_request();
// RGPU_QUEUE_TIMEOUT in ms; -1 when unset (the tenant's queue_timeout decides).
Result<int64_t> queue_timeout_ms();

}  // namespace rgpu::client
