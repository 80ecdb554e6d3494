// Helpers to build and verify control messages (frame kind kControl, FlatBuffers from control.fbs).
// Every control payload from a peer goes through verify_control() before any field is read: a
// truncated, oversized or malformed buffer gives a Status naming the message, never a crash.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <flatbuffers/flatbuffers.h>

#include "common/status.h"
#include "common/wire/control_generated.h"
#include "common/wire/frame.h"

namespace rgpu::wire {

// The ControlType that names each control table (the frame's `method` when it travels).
template <typename T>
struct ControlTypeOf;
#define RGPU_CONTROL_TYPE(name)                                                   \
  template <>                                                                     \
  struct ControlTypeOf<fb::name> {                                                \
    static constexpr fb::ControlType value = fb::ControlType::name;               \
  };
RGPU_CONTROL_TYPE(Hello)
RGPU_CONTROL_TYPE(Challenge)
RGPU_CONTROL_TYPE(Proof)
RGPU_CONTROL_TYPE(Welcome)
RGPU_CONTROL_TYPE(Refused)
RGPU_CONTROL_TYPE(Error)
RGPU_CONTROL_TYPE(ModuleLoad)
RGPU_CONTROL_TYPE(ModuleLoaded)
RGPU_CONTROL_TYPE(PoolRequest)
RGPU_CONTROL_TYPE(PoolReply)
RGPU_CONTROL_TYPE(Queued)
#undef RGPU_CONTROL_TYPE

// "Hello", or "unknown control message 42" for a method no ControlType names.
std::string control_type_name(uint32_t method);

// The header of a control frame that carries a finished builder's bytes (no bulk).
FrameHeader control_header(fb::ControlType type, size_t payload_len);

// The finished bytes of a builder, ready to send as a control payload.
inline std::span<const uint8_t> control_bytes(const flatbuffers::FlatBufferBuilder& builder) {
  return {builder.GetBufferPointer(), builder.GetSize()};
}

// Checks that a (validated) header is a control frame of the wanted type with no bulk data, and
// names what arrived instead.
Status expect_control(const FrameHeader& header, fb::ControlType want);

// Runs the FlatBuffers verifier over payload as message `type`; `verify` is the table's check.
// The payload must start 8-byte aligned (a std::vector's storage is), as FlatBuffers reads in place.
Status verify_control_bytes(std::span<const uint8_t> payload, fb::ControlType type,
                            bool (*verify)(flatbuffers::Verifier&));

// Verifies payload as a T and returns its root, valid while payload lives.
template <typename T>
Result<const T*> verify_control(std::span<const uint8_t> payload) {
  Status s = verify_control_bytes(payload, ControlTypeOf<T>::value,
                                  [](flatbuffers::Verifier& v) { return v.VerifyBuffer<T>(nullptr); });
  if (!s.is_ok()) return s;
  return flatbuffers::GetRoot<T>(payload.data());
}

// Verifies payload as the table that a control frame's `method` names (Goodbye: empty); an
// unknown method is kProtocol.
Status verify_control_message(uint32_t method, std::span<const uint8_t> payload);

// A FlatBuffer string as a view; an absent field reads as empty.
inline std::string_view view(const flatbuffers::String* s) {
  return s ? std::string_view(s->c_str(), s->size()) : std::string_view();
}

// Builds the messages that carry only a reason (Refused, Error) into builder.
void build_refused(flatbuffers::FlatBufferBuilder& builder, std::string_view reason);
void build_error(flatbuffers::FlatBufferBuilder& builder, std::string_view reason);

}  // namespace rgpu::wire
