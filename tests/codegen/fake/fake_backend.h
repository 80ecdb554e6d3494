// State of the fake library's backend functions, observed by the round-trip test.
#pragma once

#include <cstdint>
#include <vector>

#include "fake_runtime.h"

namespace rgpu::test {

struct FakeBackend {
  int count = 0;
  int value = 0;
  enum fakeKind kind = fakeKindA;
  bool flag = false;
  struct fakeDims dims = {0, 0, 0};
  void* fill_ptr = nullptr;
  size_t fill_n = 0;
  fakeStream_t fill_stream = nullptr;
  int calls = 0;
  uintptr_t next_stream = 0x5000;
  fakeStream_t destroyed = nullptr;
  fakeStream_t synced = nullptr;
  fakeError_t sync_result = fakeSuccess;
  std::vector<fakeStream_t> joined;
  struct fakePitched pitched = {nullptr, 0};
  fakeError_t last_finished = fakeSuccess;
};

FakeBackend& fake();

// The Api resolver: the fake backend's functions by name (nullptr for those it "lacks").
void* resolve_fake(const char* name, void* ctx);

}  // namespace rgpu::test
