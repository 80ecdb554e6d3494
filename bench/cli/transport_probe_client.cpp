// The transport probe's client (see transport_probe_client.h).
#include "bench/cli/transport_probe_client.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <thread>

#include "common/wire/codec.h"
#include "common/wire/frame.h"
#include "common/wire/transport_probe.h"
#include "codegen/support/api_hash.h"
#include "transports/handshake.h"
#include "transports/transport.h"
#include "transports/ucx/ucx_selection.h"

namespace rgpu::bench {
namespace {

using transport::Connection;
using Clock = std::chrono::steady_clock;

// Bulk moves in frames of this size, the client runtime's default copy chunk (RGPU_COPY_CHUNK_MB).
constexpr uint64_t kFrameBytes = uint64_t{64} << 20;
// A 64-byte round trip: the 32-byte frame header plus 32 bytes of payload.
constexpr size_t kPingPayload = 32;

Result<std::unique_ptr<Connection>> open(const ServerEndpoint& server, transport::Role role,
                                         transport::Welcome* welcome) {
  RGPU_ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, transport::connect(server.address));
  transport::ClientIdentity id;
  id.protocol_version = wire::kProtocolVersion;
  id.api_hash = gen::kApiHash;
  id.client_version = "0.1.0";
  id.host = "rgpu-bench";
  id.pid = static_cast<uint32_t>(getpid());
  id.role = role;
  RGPU_ASSIGN_OR_RETURN(id.transport, transport::client_session_transport(server.address));
  RGPU_TRY(transport::client_handshake(*conn, id, server.token, welcome, server.handshake_timeout));
  return transport::continue_session(std::move(conn), id.transport, /*serving=*/false);
}

// Reads the reply to call `seq`: its payload must be `payload_len` bytes (dropped), its bulk
// lands in `bulk` and must fill it exactly.
Status await_reply(Connection& conn, uint64_t seq, uint32_t payload_len, void* bulk, uint64_t bulk_len) {
  wire::FrameHeader h;
  RGPU_TRY(conn.recv_header(h));
  if (h.kind != static_cast<uint16_t>(wire::FrameKind::kReply) || h.seq != seq || h.payload_len != payload_len ||
      h.bulk_len != bulk_len)
    return RGPU_ERROR(kProtocol, "unexpected transport probe reply (kind " + std::to_string(h.kind) + ", seq " +
                                     std::to_string(h.seq) + ", " + std::to_string(h.payload_len) + "+" +
                                     std::to_string(h.bulk_len) + " bytes)");
  RGPU_TRY(conn.skip(payload_len));
  if (bulk_len) RGPU_TRY(conn.recv_exact(bulk, bulk_len));
  return Status::ok();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The median round trip of a round, the best of three rounds (as the worker's latencies are taken).
Result<double> ping_pong_us(Connection& conn, bool quick) {
  const int warmup = quick ? 50 : 200;
  const int iters = quick ? 500 : 2000;
  uint8_t payload[kPingPayload] = {};
  double best = 1e30;
  uint64_t seq = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<double> times;
    times.reserve(iters);
    for (int i = 0; i < warmup + iters; ++i, ++seq) {
      auto start = Clock::now();
      auto h = wire::make_header(wire::FrameKind::kCall, wire::kProbePing, seq, kPingPayload, 0);
      RGPU_TRY(conn.send_frame(h, payload, {}));
      RGPU_TRY(await_reply(conn, seq, kPingPayload, nullptr, 0));
      if (i >= warmup) times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    best = std::min(best, median(std::move(times)));
  }
  return best;
}

// One connection's part of a stream: `bytes` to the server (sink) or from it (source), in
// frames of at most buffer.size() bytes. All requests go out before any reply is read, so the
// connection never idles between frames.
struct Stream {
  std::unique_ptr<Connection> conn;
  std::vector<uint8_t> buffer;
  uint64_t seq = 0;

  Status run(bool sink, uint64_t bytes) {
    const uint64_t first = seq;
    for (uint64_t off = 0; off < bytes; off += buffer.size(), ++seq) {
      uint64_t n = std::min<uint64_t>(buffer.size(), bytes - off);
      if (sink) {
        iovec bulk{buffer.data(), n};
        RGPU_TRY(conn->send_frame(wire::make_header(wire::FrameKind::kCall, wire::kProbeSink, seq, 0, n), {}, {&bulk, 1}));
      } else {
        wire::Encoder e;
        e.put<uint64_t>(n);
        RGPU_TRY(conn->send_frame(wire::make_header(wire::FrameKind::kCall, wire::kProbeSource, seq, 8, 0), e.payload(), {}));
      }
    }
    for (uint64_t s = first, off = 0; s < seq; ++s, off += buffer.size()) {
      uint64_t n = std::min<uint64_t>(buffer.size(), bytes - off);
      RGPU_TRY(await_reply(*conn, s, 0, buffer.data(), sink ? 0 : n));
    }
    return Status::ok();
  }
};

// `total` bytes split over the connections, moved in parallel; the median over a few runs of the
// aggregate rate, in GB/s (1e9 bytes/s).
Result<double> stream_gbps(std::vector<Stream>& streams, bool sink, uint64_t total, int reps) {
  const uint64_t share = total / streams.size();
  std::vector<double> rates;
  for (int rep = -1; rep < reps; ++rep) {  // rep -1 warms up: TCP windows, page faults
    std::vector<Status> results(streams.size());
    auto start = Clock::now();
    std::vector<std::thread> threads;
    for (size_t i = 0; i < streams.size(); ++i)
      threads.emplace_back([&, i] { results[i] = streams[i].run(sink, share); });
    for (auto& t : threads) t.join();
    double s = std::chrono::duration<double>(Clock::now() - start).count();
    for (auto& st : results) RGPU_TRY(std::move(st));
    if (rep >= 0) rates.push_back(static_cast<double>(share * streams.size()) / s / 1e9);
  }
  return median(std::move(rates));
}

}  // namespace

Result<ServerInfo> query_server(const ServerEndpoint& server) {
  transport::Welcome welcome;
  RGPU_ASSIGN_OR_RETURN(auto conn, open(server, transport::Role::kCallPipe, &welcome));
  ServerInfo info{welcome.backend, "no device", 0};
  if (!welcome.devices.empty()) {
    info.device = welcome.devices[0].name;
    info.memory_bytes = welcome.devices[0].total_memory;
    if (welcome.devices.size() > 1) info.device += " (+ " + std::to_string(welcome.devices.size() - 1) + " more)";
  }
  return info;
}

Result<Measurements> run_transport_probe(const ServerEndpoint& server, const ProbePlan& plan) {
  Measurements out;
  transport::Welcome welcome;
  {
    RGPU_ASSIGN_OR_RETURN(auto conn, open(server, transport::Role::kTransportProbe, &welcome));
    RGPU_ASSIGN_OR_RETURN(double us, ping_pong_us(*conn, plan.quick));
    out.push_back({names::kPingPong, us, "us"});
  }
  const uint64_t total = plan.quick ? uint64_t{64} << 20 : uint64_t{256} << 20;
  const int reps = 3;
  for (int n : plan.stream_connections) {
    std::vector<Stream> streams(static_cast<size_t>(n));
    for (auto& s : streams) {
      RGPU_ASSIGN_OR_RETURN(s.conn, open(server, transport::Role::kTransportProbe, &welcome));
      s.buffer.assign(std::min<uint64_t>(kFrameBytes, total / n), 1);  // touched: no page faults in the timing
    }
    RGPU_ASSIGN_OR_RETURN(double sink, stream_gbps(streams, true, total, reps));
    out.push_back({names::sink(n), sink, "GB/s"});
    RGPU_ASSIGN_OR_RETURN(double source, stream_gbps(streams, false, total, reps));
    out.push_back({names::source(n), source, "GB/s"});
  }
  return out;
}

}  // namespace rgpu::bench
