// The transport probe (see transport_probe.h).
#include "server/daemon/transport_probe.h"

#include <sys/uio.h>

#include <algorithm>
#include <vector>

#include "common/wire/codec.h"
#include "common/wire/transport_probe.h"

namespace rgpu::server {

Status serve_transport_probe(transport::Connection& conn) {
  // Bulk is drained into, or sourced from, memory as large as the frame (as a copy's bytes come
  // from and go to memory), not a small buffer that stays in the CPU's cache: the probe measures
  // moving bytes between the memories of the two ends.
  std::vector<uint8_t> buffer;
  std::vector<uint8_t> payload;
  for (;;) {
    wire::FrameHeader h;
    Status st = conn.recv_header(h);
    if (!st.is_ok()) return st.code() == Code::kClosed ? Status::ok() : st;
    if (h.kind != static_cast<uint16_t>(wire::FrameKind::kCall))
      return RGPU_ERROR(kProtocol, "the transport probe takes call frames only");
    payload.resize(h.payload_len);
    RGPU_TRY(conn.recv_exact(payload.data(), payload.size()));
    if (buffer.size() < h.bulk_len) buffer.assign(h.bulk_len, 1);  // touched: no page faults while timed
    RGPU_TRY(conn.recv_exact(buffer.data(), h.bulk_len));
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
        if (buffer.size() < n) buffer.assign(n, 1);
        iovec source{buffer.data(), static_cast<size_t>(n)};
        RGPU_TRY(reply({}, {&source, 1}, n));
        break;
      }
      default:
        return RGPU_ERROR(kProtocol, "unknown transport probe request " + std::to_string(h.method));
    }
  }
}

}  // namespace rgpu::server
