// The argument codec: round trips, and bounds-checked decoding of short or absent data.
#include <catch2/catch.hpp>

#include "common/wire/codec.h"
#include "common/wire/frame.h"

using namespace rgpu::wire;

TEST_CASE("codec round-trips scalars, bytes and absent pointers") {
  Encoder e;
  e.put<int32_t>(-7);
  e.put<uint64_t>(0x1122334455667788ull);
  e.put_string("hello");
  e.put_bytes(nullptr, 0);
  Decoder d(e.payload());
  CHECK(d.get<int32_t>() == -7);
  CHECK(d.get<uint64_t>() == 0x1122334455667788ull);
  CHECK(d.get_string() == "hello");
  bool present = true;
  CHECK(d.get_bytes(&present).empty());
  CHECK_FALSE(present);
  CHECK(d.ok());
  CHECK(d.at_end());
}

TEST_CASE("decoder fails on truncated input and yields zeros") {
  Encoder e;
  e.put<uint16_t>(5);
  Decoder d(e.payload());
  CHECK(d.get<uint64_t>() == 0);
  CHECK_FALSE(d.ok());
  CHECK(d.get<uint16_t>() == 0);  // stays failed
}

TEST_CASE("decoder rejects a byte string longer than the payload") {
  Encoder e;
  e.put<uint32_t>(1000);
  e.put<uint32_t>(1);
  Decoder d(e.payload());
  CHECK(d.get_bytes().empty());
  CHECK_FALSE(d.ok());
}

TEST_CASE("frame validation names what is wrong") {
  FrameHeader h = make_header(FrameKind::kCall, 1, 1, 16, 0);
  CHECK(validate(h).is_ok());
  h.magic = 0;
  CHECK(validate(h).message().find("magic") != std::string::npos);
  h = make_header(FrameKind::kCall, 1, 1, kMaxPayload + 1, 0);
  CHECK(validate(h).message().find("payload") != std::string::npos);
  h = make_header(FrameKind::kCall, 1, 1, 0, kMaxBulk + 1);
  CHECK(validate(h).message().find("bulk") != std::string::npos);
  h = make_header(FrameKind::kCall, 1, 1, 0, 0);
  h.kind = 99;
  CHECK(validate(h).message().find("kind") != std::string::npos);
}
