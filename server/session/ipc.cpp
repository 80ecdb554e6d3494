// cudaIpcOpenMemHandle: opens another session's exported memory (each session is its own worker
// process, so the driver's handle works between them) and answers with the address and the extent
// of what it mapped (mapped_extent.h).
#include <cuda_runtime_api.h>

#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/mapped_extent.h"
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
  put_mapped_extent(ctx, p, out);
  return true;
}

}  // namespace rgpu::server::handlers
