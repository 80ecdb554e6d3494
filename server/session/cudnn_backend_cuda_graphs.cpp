// Handlers of cudnnBackendPopulateCudaGraph/UpdateCudaGraph (client/cudnn/backend_cuda_graphs.cpp):
// handle, execution plan and variant pack ids, and the CUDA graph's id (the runtime's handle
// table: the same session's graphs).
#include "gen/cudnn/cudnn_api.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "server/session/cudnn_args.h"

namespace rgpu::server::handlers {
using namespace cudnn::arg;

bool cudnnBackendPopulateCudaGraph(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, BackendDescriptor, BackendDescriptor, Graph>(
      ctx, in, status, ctx.cudnn.cudnnBackendPopulateCudaGraph, "cudnnBackendPopulateCudaGraph");
}

bool cudnnBackendUpdateCudaGraph(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, BackendDescriptor, BackendDescriptor, Graph>(
      ctx, in, status, ctx.cudnn.cudnnBackendUpdateCudaGraph, "cudnnBackendUpdateCudaGraph");
}

}  // namespace rgpu::server::handlers
