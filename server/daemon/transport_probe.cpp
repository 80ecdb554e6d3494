// The transport probe (see transport_probe.h).
#include "server/daemon/transport_probe.h"

#include <sys/uio.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "common/wire/codec.h"
#include "common/wire/transport_probe.h"

namespace rgpu::server {

Status serve_transport_probe(transport::Connection& conn) {
  constexpr size_t kBuffer = 4u << 20;  // bulk is drained or sourced through one buffer this size
  auto buffer = std::make_unique<uint8_t[]>(kBuffer);
  std::vector<uint8_t> payload;
  std::vector<iovec> source;
  for (;;) {
    wire::FrameHeader h;
    Status st = conn.recv_header(h);
    if (!st.is_ok()) return st.code() == Code::kClosed ? Status::ok() : st;
    if (h.kind != static_cast<uint16_t>(wire::FrameKind::kCall))
      return RGPU_ERROR(kProtocol, "the transport probe takes call frames only");
    payload.resize(h.payload_len);
    RGPU_TRY(conn.recv_exact(payload.data(), payload.size()));
    for (uint64_t left = h.bulk_len; left > 0;) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(left, kBuffer));
      RGPU_TRY(conn.recv_exact(buffer.get(), n));
      left -= n;
    }
    auto reply = [&](std::span<const uint8_t> p, std::span<const iovec> bulk, uint64_t bulk_len) {
      auto out = wire::make_header(wire::FrameKind::kReply, h.method, h.seq, static_cast<uint32_t>(p.size()), bulk_len);
      return conn.send_frame(out, p, bulk);
    };
    switch (h.method) {
      case wire::kProbePing:
        RGPU_TRY(reply(payload, {}, 0));
        break;
      case wire::kProbeSink:
        RGPU_TRY(reply({}, {}, 0));
        break;
      case wire::kProbeSource: {
        wire::Decoder d(payload);
        uint64_t n = d.get<uint64_t>();
        if (!d.ok() || n > wire::kMaxBulk) return RGPU_ERROR(kProtocol, "bad transport probe source request");
        source.clear();
        for (uint64_t off = 0; off < n; off += kBuffer)
          source.push_back(iovec{buffer.get(), static_cast<size_t>(std::min<uint64_t>(kBuffer, n - off))});
        RGPU_TRY(reply({}, source, n));
        break;
      }
      default:
        return RGPU_ERROR(kProtocol, "unknown transport probe request " + std::to_string(h.method));
    }
  }
}

}  // namespace rgpu::server
