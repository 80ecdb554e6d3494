// cudnnBackendPopulateCudaGraph/UpdateCudaGraph: an execution plan and variant pack (backend
// descriptor ids) into a CUDA graph, which is the runtime shim's graph id (the same session's
// handle table maps it on the server). They wait: cudnn_frontend checks at once whether a plan
// can be put in a graph. The nodes cuDNN adds are device work only, so the client's graph
// bookkeeping (host-copy mirrors) has nothing to add.
#include <cudnn.h>

#include "client/cudnn/legacy_call.h"
#include "gen/cudnn/cudnn_ids.h"

namespace {

cudnnStatus_t graph_call(uint32_t id, cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                         cudnnBackendDescriptor_t variant_pack, cudaGraph_t graph) {
  rgpu::client::cudnn::LegacyCall call(id, rgpu::client::CallClass::kSync);
  call.handle(handle).object(plan).object(variant_pack).object(graph);
  return call.invoke();
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnBackendPopulateCudaGraph(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                            cudnnBackendDescriptor_t variantPack, cudaGraph_t graph) {
  return graph_call(rgpu::gen::cudnn::k_cudnnBackendPopulateCudaGraph, handle, executionPlan, variantPack, graph);
}

cudnnStatus_t cudnnBackendUpdateCudaGraph(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                          cudnnBackendDescriptor_t variantPack, cudaGraph_t graph) {
  return graph_call(rgpu::gen::cudnn::k_cudnnBackendUpdateCudaGraph, handle, executionPlan, variantPack, graph);
}

}  // extern "C"
