// The fake library's "real" functions (what the server calls through the Api table), its finish
// hook, and the hand-written functions the fake spec names.
#include "tests/codegen/fake/fake_backend.h"

#include <cstring>
#include <map>
#include <string>

#include "common/wire/codec.h"
#include "tests/codegen/fake/fake_finish.h"
#include "gen/cudart/cudart_handlers.h"
#include "gen/cudart/cudart_remote.h"

namespace rgpu::test {

FakeBackend& fake() {
  static FakeBackend f;
  return f;
}

namespace {

fakeError_t real_get_count(int* count) {
  if (count) *count = fake().count;
  return fakeSuccess;
}
fakeError_t real_set_values(int value, enum fakeKind kind, bool flag, struct fakeDims dims) {
  fake().value = value;
  fake().kind = kind;
  fake().flag = flag;
  fake().dims = dims;
  return fakeSuccess;
}
fakeError_t real_fill(void* dev, int value, size_t n, fakeStream_t stream) {
  fake().fill_ptr = dev;
  fake().value = value;
  fake().fill_n = n;
  fake().fill_stream = stream;
  ++fake().calls;
  return fakeSuccess;
}
fakeError_t real_stream_create(fakeStream_t* stream) {
  *stream = reinterpret_cast<fakeStream_t>(fake().next_stream++);
  return fakeSuccess;
}
fakeError_t real_stream_destroy(fakeStream_t stream) {
  fake().destroyed = stream;
  return fakeSuccess;
}
fakeError_t real_stream_sync(fakeStream_t stream) {
  fake().synced = stream;
  return fake().sync_result;
}
fakeError_t real_sum(const int* values, int n, long long* sum) {
  long long s = 0;
  for (int i = 0; i < n; ++i) s += values[i];
  if (sum) *sum = s;
  return fakeSuccess;
}
fakeError_t real_name(int id, char* name, int len) {
  std::string s = "dev" + std::to_string(id);
  if (len < static_cast<int>(s.size()) + 1) return fakeErrorUnknown;
  std::memcpy(name, s.c_str(), s.size() + 1);
  return fakeSuccess;
}
fakeError_t real_lookup(const char* key, int* value) {
  if (!key) return fakeErrorUnknown;
  *value = static_cast<int>(std::strlen(key));
  return fakeSuccess;
}
fakeError_t real_swap(int* value) {
  *value = -*value;
  return fakeSuccess;
}
fakeError_t real_join(const fakeStream_t* streams, size_t n) {
  fake().joined.assign(streams, streams + n);
  return fakeSuccess;
}
fakeError_t real_memset2d(struct fakePitched p, int value) {
  fake().pitched = p;
  fake().value = value;
  return fakeSuccess;
}
void real_touch(int value) {
  fake().value = value;
  ++fake().calls;
}
double real_scale(double x, int times) { return x * times; }
fakeError_t real_query_device(int* major) {
  *major = 9;
  return fakeSuccess;
}

}  // namespace

void* resolve_fake(const char* name, void*) {
  static const std::map<std::string, void*> table = {
      {"fakeGetCount", reinterpret_cast<void*>(&real_get_count)},
      {"fakeSetValues", reinterpret_cast<void*>(&real_set_values)},
      {"fakeFill", reinterpret_cast<void*>(&real_fill)},
      {"fakeStreamCreate", reinterpret_cast<void*>(&real_stream_create)},
      {"fakeStreamDestroy", reinterpret_cast<void*>(&real_stream_destroy)},
      {"fakeStreamSync", reinterpret_cast<void*>(&real_stream_sync)},
      {"fakeSum", reinterpret_cast<void*>(&real_sum)},
      {"fakeName", reinterpret_cast<void*>(&real_name)},
      {"fakeLookup", reinterpret_cast<void*>(&real_lookup)},
      {"fakeSwap", reinterpret_cast<void*>(&real_swap)},
      {"fakeJoin", reinterpret_cast<void*>(&real_join)},
      {"fakeMemset2D", reinterpret_cast<void*>(&real_memset2d)},
      {"fakeQueryDevice", reinterpret_cast<void*>(&real_query_device)},
      {"fakeTouch", reinterpret_cast<void*>(&real_touch)},
      {"fakeScale", reinterpret_cast<void*>(&real_scale)},
      // fakeStreamSync_ptsz is left out: the backend "lacks" it.
  };
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second;
}

fakeError_t fake_finish(fakeError_t status) {
  fake().last_finished = status;
  return status;
}

}  // namespace rgpu::test

// Hand-written client functions the fake spec names (their reference table must link).
extern "C" fakeError_t fakeQueryDevice(int* major) { return rgpu::gen::cudart::remote::fakeQueryDevice(major); }
extern "C" const char* fakeErrorString(fakeError_t) { return "fake error"; }
extern "C" fakeError_t fakeCopy(void*, const void*, size_t) { return fakeErrorNotSupported; }
extern "C" void __fakeRegisterBinary() {}

// The hand-written server handler of fakeCopy decodes the generated remote:: wire form (two device
// addresses and a size) and echoes the size.
namespace rgpu::server::handlers {
bool fakeCopy(CallContext&, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  in.get<uint64_t>();
  in.get<uint64_t>();
  uint64_t n = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return false;
  out.put(n);
  status = n == 0 ? fakeErrorUnknown : fakeSuccess;
  return true;
}
}  // namespace rgpu::server::handlers
