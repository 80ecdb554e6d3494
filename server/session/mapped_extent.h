// The answer of a call that mapped memory another session holds into this one (an IPC handle
// opened, a pointer imported from a shared pool): the address and the extent the backend finds
// there, which the client's memory map needs and the handle does not carry (1 byte where the
// backend cannot tell). Such memory is the exporter's: nothing is admitted against this session's
// slice, and the allocation bookkeeping does not count it.
#pragma once

#include <cstdint>

#include "common/wire/codec.h"
#include "server/session/call_context.h"
#include "server/session/session.h"

namespace rgpu::server {

inline void put_mapped_extent(CallContext& ctx, const void* p, wire::Encoder& out) {
  uint64_t base = 0, size = 0;
  const auto address = reinterpret_cast<uintptr_t>(p);
  if (ctx.session.backend().allocation_range(address, &base, &size) != 0 || base != address) size = 1;
  out.put<uint64_t>(address);
  out.put<uint64_t>(size);
}

}  // namespace rgpu::server
