// Round trip through generated code: fake client stubs encode, the generated dispatcher decodes,
// translates handles and calls the fake backend, and the stubs decode the reply.
#include <catch2/catch.hpp>

#include <cstring>

#include "codegen/support/gen_marshal.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudart/cudart_remote.h"
#include "tests/codegen/fake/fake_backend.h"
#include "tests/codegen/loopback.h"

// Exported by the nodecl stubs; no header declares it.
extern "C" fakeError_t fakeGLInterop();

using rgpu::test::fake;
using rgpu::test::loopback;
namespace gen = rgpu::gen::cudart;

namespace {

struct Fixture {
  Fixture() {
    rgpu::test::reset_loopback();
    rgpu::gen::cudart::load_api(loopback().api, &rgpu::test::resolve_fake, nullptr);
    fake() = {};
  }
};

std::vector<uint8_t> bytes_of(std::initializer_list<uint64_t> words) {
  std::vector<uint8_t> b;
  for (uint64_t w : words) {
    auto p = reinterpret_cast<const uint8_t*>(&w);
    b.insert(b.end(), p, p + 8);
  }
  return b;
}

}  // namespace

TEST_CASE_METHOD(Fixture, "load_api fills known names and leaves unknown ones null") {
  CHECK(loopback().api.fakeGetCount != nullptr);
  CHECK(loopback().api.fakeStreamSync_ptsz == nullptr);
}

TEST_CASE_METHOD(Fixture, "a sync call returns its out value and passes through finish") {
  fake().count = 7;
  int n = -1;
  CHECK(fakeGetCount(&n) == fakeSuccess);
  CHECK(n == 7);
  CHECK(loopback().last_well_formed);
  CHECK(fakeGetCount(nullptr) == fakeSuccess);  // a null out pointer travels as absent
}

TEST_CASE_METHOD(Fixture, "scalars, enums, bools and POD structs arrive intact") {
  CHECK(fakeSetValues(-5, fakeKindB, true, fakeDims{1, 2, 3}) == fakeSuccess);
  CHECK(fake().value == -5);
  CHECK(fake().kind == fakeKindB);
  CHECK(fake().flag);
  CHECK(fake().dims.z == 3);
  fakePitched p{reinterpret_cast<void*>(0xdead0000), 512};
  CHECK(fakeMemset2D(p, 3) == fakeSuccess);
  CHECK(fake().pitched.ptr == p.ptr);
  CHECK(fake().pitched.pitch == 512);
}

TEST_CASE_METHOD(Fixture, "handles: created by id, translated, unbound when destroyed") {
  fakeStream_t s = nullptr;
  REQUIRE(fakeStreamCreate(&s) == fakeSuccess);
  REQUIRE(s != nullptr);
  CHECK(loopback().last_async_status == fakeSuccess);
  CHECK(loopback().handles.size() == 1);

  void* dev = reinterpret_cast<void*>(0x7000'0000'1000);
  CHECK(fakeFill(dev, 1, 64, s) == fakeSuccess);
  CHECK(fake().fill_ptr == dev);
  CHECK(fake().fill_n == 64);
  CHECK(fake().fill_stream == reinterpret_cast<fakeStream_t>(0x5000));  // the real one, not the id

  CHECK(fakeFill(dev, 1, 64, nullptr) == fakeSuccess);  // the null stream passes through
  CHECK(fake().fill_stream == nullptr);

  CHECK(fakeStreamDestroy(s) == fakeSuccess);
  CHECK(fake().destroyed == reinterpret_cast<fakeStream_t>(0x5000));
  CHECK(loopback().handles.size() == 0);

  int calls = fake().calls;
  CHECK(fakeFill(dev, 1, 64, s) == fakeSuccess);  // async: the error surfaces on the server side
  CHECK(loopback().last_async_status == fakeErrorInvalidHandle);
  CHECK(fake().calls == calls);  // the real function was not called
}

TEST_CASE_METHOD(Fixture, "a sync call with an unknown handle fails without calling") {
  CHECK(fakeStreamSync(reinterpret_cast<fakeStream_t>(0x999)) == fakeErrorInvalidHandle);
  CHECK(fake().last_finished == fakeErrorInvalidHandle);
  CHECK(fake().synced == nullptr);
}

TEST_CASE_METHOD(Fixture, "in arrays with a count, out arrays with a count, strings and inout") {
  int values[] = {1, 2, 3, 4};
  long long sum = 0;
  CHECK(fakeSum(values, 4, &sum) == fakeSuccess);
  CHECK(sum == 10);

  char name[16] = {};
  CHECK(fakeName(42, name, sizeof name) == fakeSuccess);
  CHECK(std::string(name) == "dev42");
  CHECK(fakeName(42, name, 2) == fakeErrorUnknown);  // the real error comes back unchanged

  int v = 0;
  CHECK(fakeLookup("four", &v) == fakeSuccess);
  CHECK(v == 4);
  CHECK(fakeLookup(nullptr, &v) == fakeErrorUnknown);  // null string arrives as null

  int x = 5;
  CHECK(fakeSwap(&x) == fakeSuccess);
  CHECK(x == -5);
}

TEST_CASE_METHOD(Fixture, "a function that returns nothing is posted, one that returns a value waits for it") {
  const int calls = fake().calls;
  fakeTouch(23);
  CHECK(fake().value == 23);
  CHECK(fake().calls == calls + 1);
  CHECK(loopback().last_async_status == fakeSuccess);
  CHECK(fakeScale(1.5, 4) == 6.0);
  CHECK(fakeScale(-2.25, 2) == -4.5);
}

TEST_CASE_METHOD(Fixture, "an impossible array count fails on the client, unsent") {
  int values[] = {1};
  long long sum = 0;
  char name[4];
  fakeStream_t streams[1] = {nullptr};
  CHECK(fakeSum(values, -1, &sum) == fakeErrorInvalidValue);
  CHECK(fakeName(1, name, -4) == fakeErrorInvalidValue);
  CHECK(fakeJoin(streams, SIZE_MAX / 2) == fakeErrorInvalidValue);
  CHECK(fake().last_finished == fakeErrorInvalidValue);
  CHECK(loopback().calls_sent == 0);
  CHECK(fakeSum(nullptr, -1, &sum) == fakeSuccess);  // a null array has no count to check
  CHECK(loopback().calls_sent == 1);
}

TEST_CASE_METHOD(Fixture, "an array of handles is translated element by element") {
  fakeStream_t a = nullptr, b = nullptr;
  REQUIRE(fakeStreamCreate(&a) == fakeSuccess);
  REQUIRE(fakeStreamCreate(&b) == fakeSuccess);
  fakeStream_t both[] = {b, a};
  CHECK(fakeJoin(both, 2) == fakeSuccess);
  REQUIRE(fake().joined.size() == 2);
  CHECK(fake().joined[0] == reinterpret_cast<fakeStream_t>(0x5001));
  CHECK(fake().joined[1] == reinterpret_cast<fakeStream_t>(0x5000));
  fakeStream_t bad[] = {a, reinterpret_cast<fakeStream_t>(0x4242)};
  CHECK(fakeJoin(bad, 2) == fakeSuccess);
  CHECK(loopback().last_async_status == fakeErrorInvalidHandle);
}

TEST_CASE_METHOD(Fixture, "blocking calls are marked, others are not") {
  CHECK(gen::is_blocking(gen::k_fakeStreamSync));
  CHECK(gen::is_blocking(gen::k_fakeStreamSync_ptsz));
  CHECK_FALSE(gen::is_blocking(gen::k_fakeGetCount));
  CHECK(gen::is_async(gen::k_fakeFill));
  CHECK_FALSE(gen::is_async(gen::k_fakeGetCount));
  CHECK(std::string(gen::call_name(gen::k_fakeSum)) == "fakeSum");
  CHECK(std::string(gen::call_name(12345)) == "(unknown call)");
}

TEST_CASE_METHOD(Fixture, "an entry point the backend lacks answers not supported") {
  fakeStream_t s = nullptr;
  REQUIRE(fakeStreamCreate(&s) == fakeSuccess);
  CHECK(fakeStreamSync_ptsz(s) == fakeErrorNotSupported);
}

TEST_CASE_METHOD(Fixture, "unsupported functions report their name and return not supported") {
  CHECK(fakeSetCallback(nullptr, nullptr) == fakeErrorNotSupported);
  CHECK(fake().last_finished == fakeErrorNotSupported);
  CHECK(fakeGLInterop() == fakeErrorNotSupported);  // declared by no header: the nodecl stub
  CHECK(loopback().unsupported_reported == std::vector<std::string>{"fakeSetCallback", "fakeGLInterop"});
}

TEST_CASE_METHOD(Fixture, "hand-written client functions reach the server through remote::") {
  int major = 0;
  CHECK(fakeQueryDevice(&major) == fakeSuccess);
  CHECK(major == 9);
}

TEST_CASE_METHOD(Fixture, "remote: true gives a hand-written server handler a generated forwarder") {
  int src = 0, dst = 0;
  CHECK(gen::remote::fakeCopy(&dst, &src, sizeof src) == fakeSuccess);
  CHECK(loopback().last_well_formed);
  CHECK(gen::remote::fakeCopy(&dst, &src, 0) == fakeErrorUnknown);  // the handler's status comes back
}

TEST_CASE_METHOD(Fixture, "no session: stubs return the unavailable status") {
  loopback().connected = false;
  int n = 0;
  CHECK(fakeGetCount(&n) == fakeErrorNoDevice);
  fakeStream_t s = nullptr;
  CHECK(fakeStreamCreate(&s) == fakeErrorNoDevice);
  CHECK(s == nullptr);  // no id is handed out for a call that was not sent
}

TEST_CASE_METHOD(Fixture, "dispatch rejects malformed input before calling") {
  int32_t status = 0;
  std::vector<uint8_t> out;
  SECTION("unknown call id") {
    CHECK_FALSE(rgpu::test::dispatch_bytes(0x12345678, {}, &status, &out));
    CHECK(status == fakeErrorNotSupported);
  }
  SECTION("truncated arguments") {
    CHECK_FALSE(rgpu::test::dispatch_bytes(gen::k_fakeFill, bytes_of({0x1000}), &status, &out));
    CHECK(fake().calls == 0);
  }
  SECTION("trailing bytes") {
    auto b = bytes_of({0x1000, 0, 8, 0, 0});
    CHECK_FALSE(rgpu::test::dispatch_bytes(gen::k_fakeFill, b, &status, &out));
    CHECK(fake().calls == 0);
  }
  SECTION("an in-array shorter than its count") {
    // values: u32 length 4 (one int), then n = 2 (needs two), then the out presence byte
    std::vector<uint8_t> b = {4, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1};
    CHECK_FALSE(rgpu::test::dispatch_bytes(gen::k_fakeSum, b, &status, &out));
  }
  SECTION("an out buffer larger than the server allows") {
    std::vector<uint8_t> b = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 1};  // id, huge len, present
    b = {1, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0x7f};
    CHECK_FALSE(rgpu::test::dispatch_bytes(gen::k_fakeName, b, &status, &out));
  }
  SECTION("a presence byte other than 0 or 1") {
    std::vector<uint8_t> b = {7};
    CHECK_FALSE(rgpu::test::dispatch_bytes(gen::k_fakeGetCount, b, &status, &out));
  }
  SECTION("a new handle id that CUDA reserves") {
    CHECK_FALSE(rgpu::test::dispatch_bytes(gen::k_fakeStreamCreate, bytes_of({2}), &status, &out));
    CHECK(loopback().handles.size() == 0);
  }
  SECTION("a string with an embedded NUL") {
    std::vector<uint8_t> b = {3, 0, 0, 0, 'a', 0, 'b', 1};
    CHECK_FALSE(rgpu::test::dispatch_bytes(gen::k_fakeLookup, b, &status, &out));
  }
}

TEST_CASE_METHOD(Fixture, "a reply of the wrong size is reported as a bad reply") {
  // The hand-written fakeCopy handler answers 8 bytes; decode them as fakeGetCount's int reply.
  int32_t status = 0;
  std::vector<uint8_t> out;
  REQUIRE(rgpu::test::dispatch_bytes(gen::k_fakeCopy, bytes_of({0x10, 0x20, 5}), &status, &out));
  CHECK(out.size() == 8);
  rgpu::wire::Decoder reply(out);
  int n = 0;
  rgpu::gen::get_out_bytes(reply, &n, sizeof n);
  CHECK_FALSE(reply.ok());
}
