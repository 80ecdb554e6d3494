// A control connection's PoolRequests and PoolReplies over real TCP connections: round trips on one
// connection, orderly ends, and a peer's malformed, oversized, truncated or unexpected frames
// answered with a Status.
#include <catch2/catch.hpp>

#include <sys/uio.h>

#include <cstring>
#include <future>
#include <string>
#include <vector>

#include "common/wire/control.h"
#include "tests/transports/connected_pair.h"
#include "transports/control_channel.h"

using namespace rgpu;
using namespace rgpu::transport;
using Catch::Contains;

namespace {

std::vector<uint8_t> frame_bytes(const wire::FrameHeader& h, std::span<const uint8_t> payload) {
  std::vector<uint8_t> bytes(sizeof h + payload.size());
  std::memcpy(bytes.data(), &h, sizeof h);
  if (!payload.empty()) std::memcpy(bytes.data() + sizeof h, payload.data(), payload.size());
  return bytes;
}

wire::FrameHeader control_frame(wire::fb::ControlType type, uint32_t payload_len) {
  return wire::control_header(type, payload_len);
}

Status send_raw(Connection& connection, std::span<const uint8_t> bytes) {
  iovec v{const_cast<uint8_t*>(bytes.data()), bytes.size()};
  return connection.send_bytes({&v, 1});
}

// Writes raw bytes to a server-side connection's peer and lets recv_pool_request read them.
Status server_reads(std::span<const uint8_t> bytes, bool close_after = true) {
  auto listener = transport::listen("127.0.0.1:0");
  REQUIRE(listener.is_ok());
  auto server_side = std::async(std::launch::async, [&]() -> Status {
    RGPU_ASSIGN_OR_RETURN(auto connection, listener.value()->accept());
    return recv_pool_request(*connection).status();
  });
  test::RawSocket raw(listener.value()->address());
  raw.write_all(bytes);
  if (close_after) raw.close_write();
  Status s = server_side.get();
  return s;
}

}  // namespace

TEST_CASE("control channel: requests and replies round-trip, several on one connection") {
  auto pair = test::connect_pair("127.0.0.1:0");
  auto server_side = std::async(std::launch::async, [&]() -> Status {
    for (int i = 0;; ++i) {
      auto request = recv_pool_request(*pair.server);
      if (!request.is_ok()) return request.status();
      std::string text = request->verb + (request->json ? " json" : " text") + " #" + std::to_string(i);
      for (const std::string& a : request->args) text += " [" + a + "]";
      RGPU_TRY(send_pool_reply(*pair.server, PoolReplyMsg{request->verb != "bad", text}));
    }
  });
  auto r1 = pool_call(*pair.client, PoolRequestMsg{"set", {"alice", "memory=4096", "when_free=1"}, false});
  REQUIRE(r1.is_ok());
  CHECK(r1->ok);
  CHECK(r1->text == "set text #0 [alice] [memory=4096] [when_free=1]");
  auto r2 = pool_call(*pair.client, PoolRequestMsg{"pool", {}, true});
  REQUIRE(r2.is_ok());
  CHECK(r2->text == "pool json #1");
  auto r3 = pool_call(*pair.client, PoolRequestMsg{"bad", {""}, false});
  REQUIRE(r3.is_ok());
  CHECK_FALSE(r3->ok);
  CHECK(r3->text == "bad text #2 []");
  REQUIRE(end_control(*pair.client).is_ok());
  Status end = server_side.get();
  CHECK(end.code() == Code::kClosed);
  CHECK_THAT(end.message(), Contains("goodbye"));
}

TEST_CASE("control channel: a client that closes between requests ends the server's loop with kClosed") {
  auto pair = test::connect_pair("127.0.0.1:0");
  auto server_side = std::async(std::launch::async, [&] { return recv_pool_request(*pair.server).status(); });
  pair.client.reset();
  CHECK(server_side.get().code() == Code::kClosed);
}

TEST_CASE("control channel: a malformed PoolRequest is kProtocol, not a crash") {
  std::vector<uint8_t> junk(64, 0xA5);
  Status s = server_reads(frame_bytes(control_frame(wire::fb::ControlType::PoolRequest, 64), junk));
  CHECK(s.code() == Code::kProtocol);
  CHECK_THAT(s.message(), Contains("malformed control message PoolRequest"));
}

TEST_CASE("control channel: an oversized PoolRequest is refused before anything is allocated") {
  Status s = server_reads(frame_bytes(control_frame(wire::fb::ControlType::PoolRequest, kMaxPoolRequest + 1), {}),
                          /*close_after=*/false);
  CHECK(s.code() == Code::kProtocol);
  CHECK_THAT(s.message(), Contains("exceeds the limit of 65536"));
}

TEST_CASE("control channel: a truncated PoolRequest is kProtocol, not an orderly close") {
  flatbuffers::FlatBufferBuilder b;
  b.Finish(wire::fb::CreatePoolRequestDirect(b, "pool", nullptr, false));
  std::vector<uint8_t> payload(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  auto bytes = frame_bytes(control_frame(wire::fb::ControlType::PoolRequest, static_cast<uint32_t>(payload.size())),
                           payload);
  bytes.resize(bytes.size() - 3);
  Status s = server_reads(bytes);
  CHECK(s.code() == Code::kProtocol);
  CHECK_THAT(s.message(), Contains("PoolRequest truncated"));
}

TEST_CASE("control channel: frames other than a PoolRequest are refused with what they were") {
  std::vector<uint8_t> eight(8, 0);
  Status hello = server_reads(frame_bytes(control_frame(wire::fb::ControlType::Hello, 8), eight));
  CHECK(hello.code() == Code::kProtocol);
  CHECK_THAT(hello.message(), Contains("expected control message PoolRequest, got Hello"));

  Status call = server_reads(frame_bytes(wire::make_header(wire::FrameKind::kCall, 5, 0, 8, 0), eight));
  CHECK(call.code() == Code::kProtocol);

  Status bulk = server_reads(
      frame_bytes(wire::make_header(wire::FrameKind::kControl,
                                    static_cast<uint32_t>(wire::fb::ControlType::PoolRequest), 0, 8, 1 << 20),
                  eight),
      /*close_after=*/false);
  CHECK(bulk.code() == Code::kProtocol);
  CHECK_THAT(bulk.message(), Contains("bulk"));

  Status goodbye_with_payload = server_reads(frame_bytes(control_frame(wire::fb::ControlType::Goodbye, 8), eight));
  CHECK(goodbye_with_payload.code() == Code::kProtocol);

  const std::string http = "GET / HTTP/1.1\r\nHost: gpu-17\r\n\r\n";
  Status junk = server_reads({reinterpret_cast<const uint8_t*>(http.data()), http.size()});
  CHECK(junk.code() == Code::kProtocol);
  CHECK_THAT(junk.message(), Contains("bad frame magic"));
}

TEST_CASE("control channel: a request over the limit is not sent") {
  auto pair = test::connect_pair("127.0.0.1:0");
  PoolRequestMsg big{"set", {std::string(kMaxPoolRequest, 'x')}, false};
  auto r = pool_call(*pair.client, big);
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK_THAT(r.status().message(), Contains("exceeds the limit"));
  CHECK_FALSE(pair.server->input_pending());
}

TEST_CASE("control channel: a reply text too long is cut, saying so, within the limit") {
  auto pair = test::connect_pair("127.0.0.1:0");
  auto server_side = std::async(std::launch::async, [&]() -> Status {
    RGPU_TRY(recv_pool_request(*pair.server).status());
    return send_pool_reply(*pair.server, PoolReplyMsg{true, std::string(kMaxPoolReply + 100, 'y')});
  });
  auto r = pool_call(*pair.client, PoolRequestMsg{"pool", {}, false});
  REQUIRE(server_side.get().is_ok());
  REQUIRE(r.is_ok());
  CHECK(r->ok);
  CHECK(r->text.size() < kMaxPoolReply);
  CHECK(r->text.size() > kMaxPoolReply - 4096);
  CHECK_THAT(r->text, Contains("the reply was cut"));
}

TEST_CASE("control channel: the server's Error ends the call with its reason") {
  auto pair = test::connect_pair("127.0.0.1:0");
  auto server_side = std::async(std::launch::async, [&]() -> Status {
    RGPU_TRY(recv_pool_request(*pair.server).status());
    return send_control_error(*pair.server, "this rgpud has no pool");
  });
  auto r = pool_call(*pair.client, PoolRequestMsg{"pool", {}, false});
  REQUIRE(server_side.get().is_ok());
  CHECK(r.status().code() == Code::kUnavailable);
  CHECK_THAT(r.status().message(), Contains("ended the control connection: this rgpud has no pool"));
}

TEST_CASE("control channel: a server that closes without a reply is kClosed") {
  auto pair = test::connect_pair("127.0.0.1:0");
  auto server_side = std::async(std::launch::async, [&]() -> Status {
    RGPU_TRY(recv_pool_request(*pair.server).status());
    pair.server.reset();
    return Status::ok();
  });
  auto r = pool_call(*pair.client, PoolRequestMsg{"pool", {}, false});
  REQUIRE(server_side.get().is_ok());
  CHECK(r.status().code() == Code::kClosed);
}

TEST_CASE("control channel: a malformed, oversized or unexpected reply is kProtocol") {
  auto reply_with = [](std::vector<uint8_t> bytes) {
    auto pair = test::connect_pair("127.0.0.1:0");
    auto server_side = std::async(std::launch::async, [&]() -> Status {
      RGPU_TRY(recv_pool_request(*pair.server).status());
      return send_raw(*pair.server, bytes);
    });
    auto r = pool_call(*pair.client, PoolRequestMsg{"ls", {}, false});
    REQUIRE(server_side.get().is_ok());
    return r.status();
  };
  std::vector<uint8_t> junk(64, 0x5A);
  Status malformed = reply_with(frame_bytes(control_frame(wire::fb::ControlType::PoolReply, 64), junk));
  CHECK(malformed.code() == Code::kProtocol);
  CHECK_THAT(malformed.message(), Contains("malformed control message PoolReply"));

  Status oversized = reply_with(frame_bytes(control_frame(wire::fb::ControlType::PoolReply, kMaxPoolReply + 1), {}));
  CHECK(oversized.code() == Code::kProtocol);
  CHECK_THAT(oversized.message(), Contains("exceeds the limit of 4194304"));

  std::vector<uint8_t> eight(8, 0);
  Status welcome = reply_with(frame_bytes(control_frame(wire::fb::ControlType::Welcome, 8), eight));
  CHECK(welcome.code() == Code::kProtocol);
  CHECK_THAT(welcome.message(), Contains("expected control message PoolReply, got Welcome"));
}

TEST_CASE("control channel: the new control messages verify through the common dispatcher") {
  flatbuffers::FlatBufferBuilder b;
  b.Finish(wire::fb::CreatePoolReplyDirect(b, true, "gpu0 free"));
  std::vector<uint8_t> payload(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  CHECK(wire::verify_control_message(static_cast<uint32_t>(wire::fb::ControlType::PoolReply), payload).is_ok());
  CHECK(wire::control_type_name(static_cast<uint32_t>(wire::fb::ControlType::PoolRequest)) == "PoolRequest");
  std::vector<uint8_t> junk(40, 0xFF);
  CHECK(wire::verify_control_message(static_cast<uint32_t>(wire::fb::ControlType::PoolRequest), junk).code() ==
        Code::kProtocol);
}
