// Control message helpers (common/wire/control): type checks, verification and their messages.
#include <catch2/catch.hpp>

#include <vector>

#include "common/wire/control.h"

using namespace rgpu;
using namespace rgpu::wire;
using Catch::Contains;

namespace {

std::vector<uint8_t> bytes_of(const flatbuffers::FlatBufferBuilder& b) {
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

}  // namespace

TEST_CASE("control: a built message verifies and reads back") {
  flatbuffers::FlatBufferBuilder b;
  build_refused(b, "no GPU free");
  const auto payload = bytes_of(b);
  auto refused = verify_control<fb::Refused>(payload);
  REQUIRE(refused.is_ok());
  CHECK(view(refused.value()->reason()) == "no GPU free");
  CHECK(verify_control_message(static_cast<uint32_t>(fb::ControlType::Refused), payload).is_ok());
}

TEST_CASE("control: malformed and misaligned payloads are errors that name the message") {
  std::vector<uint8_t> junk(40, 0xFF);
  Status s = verify_control<fb::Hello>(junk).status();
  CHECK(s.code() == Code::kProtocol);
  CHECK_THAT(s.message(), Contains("malformed control message Hello"));
  CHECK(verify_control<fb::Hello>({}).status().code() == Code::kProtocol);

  flatbuffers::FlatBufferBuilder b;
  build_error(b, "x");
  std::vector<uint8_t> shifted(b.GetSize() + 1);
  std::copy(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize(), shifted.begin() + 1);
  Status misaligned = verify_control<fb::Error>(std::span<const uint8_t>(shifted).subspan(1)).status();
  CHECK(misaligned.code() == Code::kInternal);
  CHECK_THAT(misaligned.message(), Contains("aligned"));
}

TEST_CASE("control: expect_control names what arrived instead") {
  FrameHeader call = make_header(FrameKind::kCall, 5, 0, 0, 0);
  CHECK_THAT(expect_control(call, fb::ControlType::Hello).message(), Contains("got a frame of kind 2"));
  FrameHeader proof = control_header(fb::ControlType::Proof, 8);
  CHECK(expect_control(proof, fb::ControlType::Proof).is_ok());
  CHECK_THAT(expect_control(proof, fb::ControlType::Hello).message(),
             Contains("expected control message Hello, got Proof"));
  FrameHeader unknown = control_header(static_cast<fb::ControlType>(77), 0);
  CHECK_THAT(expect_control(unknown, fb::ControlType::Hello).message(), Contains("unknown control message 77"));
  FrameHeader with_bulk = make_header(FrameKind::kControl, 1, 0, 8, 100);
  CHECK_THAT(expect_control(with_bulk, fb::ControlType::Hello).message(), Contains("100 bytes of bulk data"));
}

TEST_CASE("control: verify_control_message dispatches on the method") {
  const uint32_t goodbye = static_cast<uint32_t>(fb::ControlType::Goodbye);
  CHECK(verify_control_message(goodbye, {}).is_ok());
  const std::vector<uint8_t> eight(8, 0);
  CHECK(verify_control_message(goodbye, eight).code() == Code::kProtocol);
  CHECK_THAT(verify_control_message(0, eight).message(), Contains("unknown control message 0"));
  CHECK_THAT(verify_control_message(1000, eight).message(), Contains("unknown control message 1000"));
}
