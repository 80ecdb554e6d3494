// A control connection's messages after the handshake (Role::kControl, `rgpu pool` / `rgpu ls`):
//   client PoolRequest{verb, args, json} -> server PoolReply{ok, text}
// as many times as the client likes on the same connection (`--watch`), until the client ends it
// with Goodbye or closes it. The server may end it instead with an Error{reason}. Every frame is
// validated and its size bounded before anything is allocated for it; a peer's bad input is a
// Status, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "transports/transport.h"

namespace rgpu::transport {

struct PoolRequestMsg {
  std::string verb;               // "pool", "ls", "set", "help"
  std::vector<std::string> args;  // positional first, then key=value
  bool json = false;              // answer in JSON rather than text
};

struct PoolReplyMsg {
  bool ok = false;
  std::string text;  // the answer, or the error saying what to do
};

// A request's payload is at most this; a reply's too (a longer reply text is cut, saying so).
inline constexpr uint32_t kMaxPoolRequest = 64u << 10;
inline constexpr uint32_t kMaxPoolReply = 4u << 20;

// Client: sends the request and waits for its reply. A request over kMaxPoolRequest is
// kInvalidArgument (nothing is sent). The server ending the connection with Error is kUnavailable
// carrying its reason; the connection closing is kClosed; anything else is kProtocol.
Result<PoolReplyMsg> pool_call(Connection& connection, const PoolRequestMsg& request);

// Client: ends the control connection in order (a Goodbye); best effort.
Status end_control(Connection& connection);

// Server: the next request. kClosed when the client closed orderly (Goodbye, or end of stream
// between frames); kProtocol for anything malformed, oversized, truncated or unexpected.
Result<PoolRequestMsg> recv_pool_request(Connection& connection);

// Server: answers the request just read. A text that would make the reply exceed kMaxPoolReply
// is cut, with a line saying so.
Status send_pool_reply(Connection& connection, const PoolReplyMsg& reply);

// Server: tells the client why the control connection ends (e.g. after a malformed request).
Status send_control_error(Connection& connection, std::string_view reason);

}  // namespace rgpu::transport
