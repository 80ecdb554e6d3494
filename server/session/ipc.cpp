// cudaIpcOpenMemHandle: opens another session's exported memory (each session is its own worker
// process, so the driver's handle works between them) and answers with the address and the extent
// of what it mapped, which the handle does not carry and the client's memory map needs. Opening
// maps memory the exporter holds: nothing is admitted against this session's slice, and the
// allocation bookkeeping does not count it.
#include <cuda_runtime_api.h>

#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {

// In: the handle's 64 bytes, the flags. Out: the address, the extent's size.
bool cudaIpcOpenMemHandle(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto handle = in.get<cudaIpcMemHandle_t>();
  auto flags = in.get<unsigned int>();
  if (!in.ok() || !in.at_end()) return false;
  if (!ctx.cudart.cudaIpcOpenMemHandle) {
    status = cudaErrorNotSupported;
    return true;
  }
  void* p = nullptr;
  status = ctx.cudart.cudaIpcOpenMemHandle(&p, handle, flags);
  if (status != cudaSuccess) return true;
  uint64_t base = 0, size = 0;
  const auto address = reinterpret_cast<uintptr_t>(p);
  if (ctx.session.backend().allocation_range(address, &base, &size) != cudaSuccess || base != address) size = 1;
  out.put<uint64_t>(address);
  out.put<uint64_t>(size);
  return true;
}

}  // namespace rgpu::server::handlers
