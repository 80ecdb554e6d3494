// A control connection's requests and replies (see control_channel.h).
#include "transports/control_channel.h"
#include "transports/peer_text.h"

#include "common/wire/control.h"

namespace rgpu::transport {

namespace fb = wire::fb;

namespace {

Status send_control(Connection& connection, fb::ControlType type, const flatbuffers::FlatBufferBuilder& builder) {
  return connection.send_frame(wire::control_header(type, builder.GetSize()), wire::control_bytes(builder), {});
}

// Reads a control frame's payload after its header, bounded by `limit`, into payload. A peer that
// closes in the middle of the frame broke the protocol: that is not an orderly close.
Status recv_payload(Connection& connection, const wire::FrameHeader& header, uint32_t limit,
                    std::vector<uint8_t>& payload) {
  const std::string name = wire::control_type_name(header.method);
  if (header.payload_len > limit)
    return RGPU_ERROR(kProtocol, "control message " + name + " of " + std::to_string(header.payload_len) +
                                     " bytes exceeds the limit of " + std::to_string(limit));
  payload.resize(header.payload_len);
  Status st = connection.recv_exact(payload.data(), payload.size());
  if (st.code() == Code::kClosed)
    return RGPU_ERROR(kProtocol, "control message " + name +
                                     " truncated: " + st.message().substr(0, st.message().find('\n')));
  return st;
}

bool is_control(const wire::FrameHeader& header, fb::ControlType type) {
  return header.kind == static_cast<uint16_t>(wire::FrameKind::kControl) &&
         header.method == static_cast<uint32_t>(type);
}

}  // namespace

Result<PoolReplyMsg> pool_call(Connection& connection, const PoolRequestMsg& request) {
  flatbuffers::FlatBufferBuilder builder(256);
  std::vector<flatbuffers::Offset<flatbuffers::String>> args;
  args.reserve(request.args.size());
  for (const std::string& a : request.args) args.push_back(builder.CreateString(a));
  builder.Finish(fb::CreatePoolRequest(builder, builder.CreateString(request.verb), builder.CreateVector(args),
                                       request.json));
  if (builder.GetSize() > kMaxPoolRequest)
    return RGPU_ERROR(kInvalidArgument, "a pool request of " + std::to_string(builder.GetSize()) +
                                            " bytes exceeds the limit of " + std::to_string(kMaxPoolRequest));
  RGPU_TRY(send_control(connection, fb::ControlType::PoolRequest, builder));

  wire::FrameHeader header;
  RGPU_TRY(connection.recv_header(header));
  std::vector<uint8_t> payload;
  if (is_control(header, fb::ControlType::Error)) {
    RGPU_TRY(wire::expect_control(header, fb::ControlType::Error));
    RGPU_TRY(recv_payload(connection, header, kMaxPoolReply, payload));
    RGPU_ASSIGN_OR_RETURN(const fb::Error* error, wire::verify_control<fb::Error>(payload));
    return RGPU_ERROR(kUnavailable, "rgpud at " + connection.peer() + " ended the control connection: " +
                                        printable(wire::view(error->reason()), 4096));
  }
  RGPU_TRY(wire::expect_control(header, fb::ControlType::PoolReply));
  RGPU_TRY(recv_payload(connection, header, kMaxPoolReply, payload));
  RGPU_ASSIGN_OR_RETURN(const fb::PoolReply* reply, wire::verify_control<fb::PoolReply>(payload));
  return PoolReplyMsg{reply->ok(), std::string(wire::view(reply->text()))};
}

Status end_control(Connection& connection) {
  return connection.send_frame(wire::control_header(fb::ControlType::Goodbye, 0), {}, {});
}

Result<PoolRequestMsg> recv_pool_request(Connection& connection) {
  wire::FrameHeader header;
  Status st = connection.recv_header(header);
  if (!st.is_ok()) return st;  // kClosed: the client closed between requests
  if (is_control(header, fb::ControlType::Goodbye)) {
    if (header.payload_len != 0 || header.bulk_len != 0)
      return RGPU_ERROR(kProtocol, "Goodbye carries " + std::to_string(header.payload_len + header.bulk_len) +
                                       " bytes; it has none");
    return RGPU_ERROR(kClosed, "the client said goodbye");
  }
  RGPU_TRY(wire::expect_control(header, fb::ControlType::PoolRequest));
  std::vector<uint8_t> payload;
  RGPU_TRY(recv_payload(connection, header, kMaxPoolRequest, payload));
  RGPU_ASSIGN_OR_RETURN(const fb::PoolRequest* request, wire::verify_control<fb::PoolRequest>(payload));
  PoolRequestMsg out;
  out.verb = wire::view(request->verb());
  out.json = request->json();
  if (request->args()) {
    out.args.reserve(request->args()->size());
    for (const flatbuffers::String* a : *request->args()) out.args.emplace_back(wire::view(a));
  }
  return out;
}

Status send_pool_reply(Connection& connection, const PoolReplyMsg& reply) {
  // Room for the table, its vtable and the string's length and terminator.
  constexpr size_t kOverhead = 256;
  constexpr std::string_view kCut = "\n... (the reply was cut: it exceeded the 4 MiB limit of a pool reply)\n";
  std::string_view text = reply.text;
  std::string cut;
  if (text.size() > kMaxPoolReply - kOverhead) {
    cut.reserve(kMaxPoolReply - kOverhead);
    cut.append(text.substr(0, kMaxPoolReply - kOverhead - kCut.size()));
    cut.append(kCut);
    text = cut;
  }
  flatbuffers::FlatBufferBuilder builder(text.size() + kOverhead);
  builder.Finish(fb::CreatePoolReply(builder, reply.ok, builder.CreateString(text.data(), text.size())));
  if (builder.GetSize() > kMaxPoolReply)  // cannot happen with kOverhead; kept as the invariant's check
    return RGPU_ERROR(kInternal, "pool reply of " + std::to_string(builder.GetSize()) + " bytes exceeds the limit");
  return send_control(connection, fb::ControlType::PoolReply, builder);
}

Status send_control_error(Connection& connection, std::string_view reason) {
  flatbuffers::FlatBufferBuilder builder(256);
  wire::build_error(builder, reason.substr(0, kMaxPoolRequest / 2));
  return send_control(connection, fb::ControlType::Error, builder);
}

}  // namespace rgpu::transport
