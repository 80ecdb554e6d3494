// The handler of cudnnQueryRuntimeError (client/cudnn/runtime_errors.cpp): handle and mode in,
// the runtime status out as an i32; the reserved tag is null.
#include "gen/cudnn/cudnn_api.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "server/session/cudnn_args.h"

namespace rgpu::server::handlers {
using namespace cudnn::arg;

bool cudnnQueryRuntimeError(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  cudnn::Args a(ctx, in);
  auto [handle, mode] = cudnn::decode<Handle, Enum<CUDNN_ERRQUERY_BLOCKING>>(a);
  cudnnStatus_t runtime = CUDNN_STATUS_SUCCESS;
  if (!a.call(status, ctx.cudnn.cudnnQueryRuntimeError, "cudnnQueryRuntimeError", handle, &runtime, mode,
              static_cast<cudnnRuntimeTag_t*>(nullptr)))
    return false;
  if (status == CUDNN_STATUS_SUCCESS) out.put<int32_t>(runtime);
  return true;
}

}  // namespace rgpu::server::handlers
