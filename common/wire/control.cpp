// Control message helpers: frame headers, type checks and verification of peer FlatBuffers.
#include "common/wire/control.h"

namespace rgpu::wire {

std::string control_type_name(uint32_t method) {
  const char* name = fb::EnumNameControlType(static_cast<fb::ControlType>(method));
  if (*name) return name;
  return "unknown control message " + std::to_string(method);
}

FrameHeader control_header(fb::ControlType type, size_t payload_len) {
  return make_header(FrameKind::kControl, static_cast<uint32_t>(type), 0, static_cast<uint32_t>(payload_len), 0);
}

Status expect_control(const FrameHeader& header, fb::ControlType want) {
  if (header.kind != static_cast<uint16_t>(FrameKind::kControl))
    return RGPU_ERROR(kProtocol, "expected control message " + control_type_name(static_cast<uint32_t>(want)) +
                                     ", got a frame of kind " + std::to_string(header.kind));
  if (header.method != static_cast<uint32_t>(want))
    return RGPU_ERROR(kProtocol, "expected control message " + control_type_name(static_cast<uint32_t>(want)) +
                                     ", got " + control_type_name(header.method));
  if (header.bulk_len != 0)
    return RGPU_ERROR(kProtocol, "control message " + control_type_name(header.method) + " carries " +
                                     std::to_string(header.bulk_len) + " bytes of bulk data; control messages have none");
  return Status::ok();
}

Status verify_control_bytes(std::span<const uint8_t> payload, fb::ControlType type,
                            bool (*verify)(flatbuffers::Verifier&)) {
  const std::string name = control_type_name(static_cast<uint32_t>(type));
  if (reinterpret_cast<uintptr_t>(payload.data()) % alignof(uint64_t) != 0)
    return RGPU_ERROR(kInternal, "control message " + name + " payload is not 8-byte aligned");
  if (payload.size() > kMaxPayload)
    return RGPU_ERROR(kProtocol, "control message " + name + " of " + std::to_string(payload.size()) +
                                     " bytes exceeds the limit of " + std::to_string(kMaxPayload));
  flatbuffers::Verifier verifier(payload.data(), payload.size());
  if (!verify(verifier))
    return RGPU_ERROR(kProtocol, "malformed control message " + name + " (" + std::to_string(payload.size()) +
                                     " bytes failed FlatBuffers verification)");
  return Status::ok();
}

Status verify_control_message(uint32_t method, std::span<const uint8_t> payload) {
  switch (static_cast<fb::ControlType>(method)) {
    case fb::ControlType::Hello: return verify_control<fb::Hello>(payload).status();
    case fb::ControlType::Challenge: return verify_control<fb::Challenge>(payload).status();
    case fb::ControlType::Proof: return verify_control<fb::Proof>(payload).status();
    case fb::ControlType::Welcome: return verify_control<fb::Welcome>(payload).status();
    case fb::ControlType::Refused: return verify_control<fb::Refused>(payload).status();
    case fb::ControlType::Error: return verify_control<fb::Error>(payload).status();
    case fb::ControlType::ModuleLoad: return verify_control<fb::ModuleLoad>(payload).status();
    case fb::ControlType::ModuleLoaded: return verify_control<fb::ModuleLoaded>(payload).status();
    case fb::ControlType::PoolRequest: return verify_control<fb::PoolRequest>(payload).status();
    case fb::ControlType::PoolReply: return verify_control<fb::PoolReply>(payload).status();
    case fb::ControlType::Queued: return verify_control<fb::Queued>(payload).status();
    case fb::ControlType::Goodbye:
      if (payload.empty()) return Status::ok();
      return RGPU_ERROR(kProtocol, "Goodbye carries " + std::to_string(payload.size()) + " bytes; it has no payload");
  }
  return RGPU_ERROR(kProtocol, control_type_name(method));  // "unknown control message N"
}

void build_refused(flatbuffers::FlatBufferBuilder& builder, std::string_view reason) {
  auto r = builder.CreateString(reason.data(), reason.size());
  builder.Finish(fb::CreateRefused(builder, r));
}

void build_error(flatbuffers::FlatBufferBuilder& builder, std::string_view reason) {
  auto r = builder.CreateString(reason.data(), reason.size());
  builder.Finish(fb::CreateError(builder, r));
}

}  // namespace rgpu::wire
