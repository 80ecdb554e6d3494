// Call ids of rgpu's own protocol calls, beside the generated library call ids (FNV-1a hashes of
// function names). The server's dispatch checks these first.
#pragma once

#include <cstdint>

namespace rgpu::wire {

enum InternalCall : uint32_t {
  // in: i32 error code; out: name string, description string (the server's library's own text).
  kCallErrorText = 0x52470001,
};

}  // namespace rgpu::wire
