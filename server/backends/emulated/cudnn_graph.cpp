// The emulated cuDNN backend (graph) API: descriptors keep the attributes set on them and give
// them back once finalized, as cuDNN does. Heuristics offer one engine config (engine 0) for any
// operation graph, an execution plan needs no workspace, and executing one records its work in
// the handle's stream (not computed). The variant pack's pointers are not checked: a by-value
// tensor's points at a host value (the session's copy), and nothing here reads them.
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "common/wire/cudnn_args.h"
#include "server/backends/emulated/cudnn.h"
#include "server/backends/emulated/cudnn_objects.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

struct Attribute {
  cudnnBackendAttributeType_t type;
  int64_t count;
  std::vector<uint8_t> bytes;
};

struct BackendDescriptor {
  cudnnBackendDescriptorType_t type;
  bool finalized = false;
  std::map<cudnnBackendAttributeName_t, Attribute> attributes;
};

// Live descriptors: a pointer not in the set is never dereferenced.
struct Registry {
  std::mutex mu;
  std::set<BackendDescriptor*> live;
};

Registry& registry() {
  static Registry r;
  return r;
}

BackendDescriptor* find(cudnnBackendDescriptor_t d) {
  auto* p = static_cast<BackendDescriptor*>(d);
  return registry().live.count(p) ? p : nullptr;
}

// Attributes a finalize needs, per descriptor type (the ones the frontend always sets).
bool complete(const BackendDescriptor& d) {
  auto has = [&](cudnnBackendAttributeName_t name) { return d.attributes.count(name) != 0; };
  switch (d.type) {
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: return has(CUDNN_ATTR_OPERATIONGRAPH_OPS);
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: return has(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: return has(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
    default: return true;
  }
}

void set(BackendDescriptor& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t value) {
  Attribute a{type, 1, std::vector<uint8_t>(sizeof value)};
  std::memcpy(a.bytes.data(), &value, sizeof value);
  d.attributes[name] = std::move(a);
}

// Fills `out` (one of the caller's descriptors) with what reading `name` of `d` yields.
cudnnStatus_t fill(const BackendDescriptor& d, cudnnBackendAttributeName_t name, const BackendDescriptor* stored,
                   BackendDescriptor& out) {
  if (d.type == CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR && name == CUDNN_ATTR_ENGINEHEUR_RESULTS) {
    // The one engine config: engine 0 of the heuristics' operation graph.
    if (out.type != CUDNN_BACKEND_ENGINECFG_DESCRIPTOR) return CUDNN_STATUS_BAD_PARAM;
    out.attributes.clear();
    out.finalized = true;
    return CUDNN_STATUS_SUCCESS;
  }
  if (d.type == CUDNN_BACKEND_ENGINECFG_DESCRIPTOR && name == CUDNN_ATTR_ENGINECFG_ENGINE && !stored) {
    if (out.type != CUDNN_BACKEND_ENGINE_DESCRIPTOR) return CUDNN_STATUS_BAD_PARAM;
    out.attributes.clear();
    set(out, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 0);
    out.finalized = true;
    return CUDNN_STATUS_SUCCESS;
  }
  if (!stored) return CUDNN_STATUS_BAD_PARAM;
  if (out.type != stored->type) return CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE;
  out.attributes = stored->attributes;
  out.finalized = stored->finalized;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
                                           cudnnBackendDescriptor_t* descriptor) {
  if (!descriptor) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  auto* d = new BackendDescriptor{descriptorType, false, {}};
  std::lock_guard lock(registry().mu);
  registry().live.insert(d);
  *descriptor = d;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  std::lock_guard lock(registry().mu);
  BackendDescriptor* d = find(descriptor);
  if (!d) return CUDNN_STATUS_BAD_PARAM;
  registry().live.erase(d);
  delete d;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t attributeName,
                                       cudnnBackendAttributeType_t attributeType, int64_t elementCount,
                                       const void* arrayOfElements) {
  const size_t size = wire::cudnn::backend_element_size(attributeType);
  if (size == 0) return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
  if (elementCount < 0 || (elementCount && !arrayOfElements)) return CUDNN_STATUS_BAD_PARAM;
  std::lock_guard lock(registry().mu);
  BackendDescriptor* d = find(descriptor);
  if (!d || d->finalized) return CUDNN_STATUS_BAD_PARAM;
  const auto* p = static_cast<const uint8_t*>(arrayOfElements);
  d->attributes[attributeName] = Attribute{attributeType, elementCount,
                                           std::vector<uint8_t>(p, p + size * static_cast<size_t>(elementCount))};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  std::lock_guard lock(registry().mu);
  BackendDescriptor* d = find(descriptor);
  if (!d || d->finalized) return CUDNN_STATUS_BAD_PARAM;
  if (!complete(*d)) return CUDNN_STATUS_BAD_PARAM;
  if (d->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR)
    set(*d, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 0);
  d->finalized = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                       cudnnBackendAttributeName_t attributeName,
                                       cudnnBackendAttributeType_t attributeType, int64_t requestedElementCount,
                                       int64_t* elementCount, void* arrayOfElements) {
  const size_t size = wire::cudnn::backend_element_size(attributeType);
  if (size == 0) return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
  if (requestedElementCount < 0 || (!elementCount && !arrayOfElements)) return CUDNN_STATUS_BAD_PARAM;
  std::lock_guard lock(registry().mu);
  BackendDescriptor* d = find(descriptor);
  if (!d) return CUDNN_STATUS_BAD_PARAM;
  if (!d->finalized) return CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED;
  auto it = d->attributes.find(attributeName);
  const Attribute* stored = it == d->attributes.end() ? nullptr : &it->second;
  if (stored && stored->type != attributeType) return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
  if (attributeType == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
    const bool heuristics =
        d->type == CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR && attributeName == CUDNN_ATTR_ENGINEHEUR_RESULTS;
    const bool engine = d->type == CUDNN_BACKEND_ENGINECFG_DESCRIPTOR && attributeName == CUDNN_ATTR_ENGINECFG_ENGINE;
    const int64_t count = stored ? stored->count : (heuristics || engine) ? 1 : 0;
    if (!stored && count == 0) return CUDNN_STATUS_BAD_PARAM;
    if (elementCount) *elementCount = count;
    auto** out = static_cast<cudnnBackendDescriptor_t*>(arrayOfElements);
    for (int64_t i = 0; out && i < std::min(count, requestedElementCount); ++i) {
      BackendDescriptor* target = find(out[i]);
      if (!target) return CUDNN_STATUS_BAD_PARAM;
      const BackendDescriptor* source = nullptr;
      if (stored) {
        cudnnBackendDescriptor_t src;
        std::memcpy(&src, stored->bytes.data() + size * static_cast<size_t>(i), sizeof src);
        source = find(src);
        if (!source) return CUDNN_STATUS_BAD_PARAM;
      }
      cudnnStatus_t status = fill(*d, attributeName, source, *target);
      if (status != CUDNN_STATUS_SUCCESS) return status;
    }
    return CUDNN_STATUS_SUCCESS;
  }
  if (!stored) return CUDNN_STATUS_BAD_PARAM;
  if (elementCount) *elementCount = stored->count;
  const int64_t n = std::min(stored->count, requestedElementCount);
  if (arrayOfElements && n > 0) std::memcpy(arrayOfElements, stored->bytes.data(), size * static_cast<size_t>(n));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                  cudnnBackendDescriptor_t variantPack) {
  std::optional<cudaStream_t> stream = cudnn_stream(handle);
  if (!stream) return CUDNN_STATUS_BAD_PARAM;
  {
    std::lock_guard lock(registry().mu);
    BackendDescriptor* plan = find(executionPlan);
    BackendDescriptor* pack = find(variantPack);
    if (!plan || !pack || plan->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR ||
        pack->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR)
      return CUDNN_STATUS_BAD_PARAM;
    if (!plan->finalized || !pack->finalized) return CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED;
  }
  return state().enqueue(*stream, cudaGraphNodeTypeKernel, [] { return cudaSuccess; }) == cudaSuccess
             ? CUDNN_STATUS_SUCCESS
             : CUDNN_STATUS_EXECUTION_FAILED;
}

}  // namespace rgpu::server::emulated
