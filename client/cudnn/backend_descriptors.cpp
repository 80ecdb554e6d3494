// cuDNN's backend (graph) API on the client. A cudnnBackendDescriptor_t is a client-chosen id
// (never dereferenced), so create, set, execute and destroy are sent without waiting, and an
// attribute array of descriptors or handles already holds the ids the server translates.
// Kept here per descriptor: its type (variant packs finalize without waiting: PyTorch builds,
// executes and destroys one per convolution), once finalized the answers of attribute reads (a
// finalized descriptor no longer changes), what a tensor says of itself and a variant pack's data
// pointers, which are sent at its finalize with the values of by-value tensors inline
// (by_value_tensors.h).
#include <cudnn.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "client/cudnn/by_value_tensors.h"
#include "client/cudnn/legacy_call.h"
#include "client/runtime/call.h"
#include "common/wire/cudnn_args.h"
#include "gen/cudnn/cudnn_ids.h"

using rgpu::client::CallClass;
using rgpu::client::cudnn::LegacyCall;
using rgpu::client::cudnn::TensorFacts;
using rgpu::wire::cudnn::backend_element_size;
using rgpu::wire::cudnn::backend_holds_ids;
using rgpu::wire::cudnn::kMaxBackendElements;
namespace ids = rgpu::gen::cudnn;

namespace {

struct Answer {
  int64_t count;
  std::vector<uint8_t> bytes;
};

struct Descriptor {
  explicit Descriptor(cudnnBackendDescriptorType_t t) : type(t) {}
  cudnnBackendDescriptorType_t type;
  bool finalized = false;
  // (attribute, type, requested count) -> answer; only for finalized descriptors.
  std::map<std::tuple<int32_t, int32_t, int64_t>, Answer> answers;
  TensorFacts tensor;               // a tensor's unique id, type and by-value flag
  std::vector<void*> pointers;      // a variant pack's data pointers, not sent yet
  bool pointers_set = false;
  std::vector<int64_t> uids;        // a variant pack's unique ids
};

struct Registry {
  std::mutex mu;
  std::unordered_map<uint64_t, Descriptor> descriptors;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: calls may come from exit handlers
  return *r;
}

uint64_t id_of(cudnnBackendDescriptor_t d) { return reinterpret_cast<uintptr_t>(d); }

// Sends an attribute (async), with `inline_values` (element index, bytes) standing in for host
// pointers of a VOID_PTR array.
cudnnStatus_t send_attribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                             cudnnBackendAttributeType_t type, int64_t count, const void* array,
                             const std::vector<std::pair<uint32_t, std::vector<uint8_t>>>& inline_values = {}) {
  LegacyCall call(ids::k_cudnnBackendSetAttribute, CallClass::kAsync);
  call.value(id_of(descriptor)).value<int32_t>(name).value<int32_t>(type).value(count);
  // Handles and descriptors are client ids already: the bytes travel as they are.
  call.bytes(array, static_cast<size_t>(count) * backend_element_size(type));
  call.value<uint32_t>(static_cast<uint32_t>(inline_values.size()));
  for (const auto& [index, bytes] : inline_values) call.value(index).bytes(bytes.data(), bytes.size());
  return call.post();
}

// Runs `f` on the descriptor's record under the registry lock; false for an unknown descriptor.
template <typename F>
bool with_descriptor(cudnnBackendDescriptor_t d, F f) {
  std::lock_guard lock(registry().mu);
  auto it = registry().descriptors.find(id_of(d));
  if (it == registry().descriptors.end()) return false;
  f(it->second);
  return true;
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
                                           cudnnBackendDescriptor_t* descriptor) {
  if (!descriptor) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const uint64_t id = rgpu::client::new_handle_id();
  LegacyCall call(ids::k_cudnnBackendCreateDescriptor, CallClass::kAsync);
  call.value<int32_t>(descriptorType).value(id);
  cudnnStatus_t status = call.post();
  if (status != CUDNN_STATUS_SUCCESS) return status;
  {
    std::lock_guard lock(registry().mu);
    registry().descriptors.emplace(id, Descriptor(descriptorType));
  }
  *descriptor = reinterpret_cast<cudnnBackendDescriptor_t>(static_cast<uintptr_t>(id));
  return status;
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  {
    std::lock_guard lock(registry().mu);
    if (registry().descriptors.erase(id_of(descriptor)) == 0) return CUDNN_STATUS_BAD_PARAM;
  }
  LegacyCall call(ids::k_cudnnBackendDestroyDescriptor, CallClass::kAsync);
  call.value(id_of(descriptor));
  return call.post();
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t attributeName,
                                       cudnnBackendAttributeType_t attributeType, int64_t elementCount,
                                       const void* arrayOfElements) {
  const size_t size = backend_element_size(attributeType);
  if (size == 0) return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
  if (elementCount < 0 || elementCount > kMaxBackendElements) return CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND;
  if (elementCount && !arrayOfElements) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  bool deferred = false;
  if (!with_descriptor(descriptor, [&](Descriptor& d) {
        d.answers.clear();
        if (d.type == CUDNN_BACKEND_TENSOR_DESCRIPTOR) d.tensor.note(attributeName, elementCount, arrayOfElements);
        if (d.type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR) return;
        if (attributeName == CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS && attributeType == CUDNN_TYPE_VOID_PTR) {
          const auto* p = static_cast<void* const*>(arrayOfElements);
          d.pointers.assign(p, p + elementCount);
          d.pointers_set = deferred = true;
        } else if (attributeName == CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS && attributeType == CUDNN_TYPE_INT64) {
          const auto* u = static_cast<const int64_t*>(arrayOfElements);
          d.uids.assign(u, u + elementCount);
        }
      }))
    return CUDNN_STATUS_BAD_PARAM;
  if (deferred) return CUDNN_STATUS_SUCCESS;  // sent at finalize, when the unique ids are known
  // These VOID_PTR values point at host objects (the frontend's shape vectors for dynamic shapes),
  // which the server cannot read: refuse them rather than hand it a client address.
  if (attributeName == CUDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES ||
      attributeName == CUDNN_ATTR_VARIANT_PACK_OVERRIDE_STRIDES) {
    rgpu::client::report_unsupported("cudnnBackendSetAttribute(CUDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES/STRIDES)");
    return CUDNN_STATUS_NOT_SUPPORTED;
  }
  return send_attribute(descriptor, attributeName, attributeType, elementCount, arrayOfElements);
}

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  bool variant_pack = false, pointers_set = false;
  std::vector<void*> pointers;
  std::vector<int64_t> uids;
  TensorFacts tensor;
  if (!with_descriptor(descriptor, [&](Descriptor& d) {
        variant_pack = d.type == CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR;
        pointers_set = d.pointers_set;
        pointers = d.pointers;
        uids = d.uids;
        tensor = d.tensor;
      }))
    return CUDNN_STATUS_BAD_PARAM;
  if (pointers_set) {
    cudnnStatus_t s = send_attribute(descriptor, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
                                     static_cast<int64_t>(pointers.size()), pointers.data(),
                                     rgpu::client::cudnn::inline_values(pointers, uids));
    if (s != CUDNN_STATUS_SUCCESS) return s;
  }
  LegacyCall call(ids::k_cudnnBackendFinalize, variant_pack ? CallClass::kAsync : CallClass::kSync);
  call.value(id_of(descriptor));
  // A variant pack is only pointers and ids: its finalize fails only if its execute would, and
  // that error is reported then.
  cudnnStatus_t status = variant_pack ? call.post() : call.invoke();
  if (status != CUDNN_STATUS_SUCCESS) return status;
  with_descriptor(descriptor, [](Descriptor& d) { d.finalized = true; });
  rgpu::client::cudnn::register_by_value(tensor);
  return status;
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                       cudnnBackendAttributeName_t attributeName,
                                       cudnnBackendAttributeType_t attributeType, int64_t requestedElementCount,
                                       int64_t* elementCount, void* arrayOfElements) {
  const size_t size = backend_element_size(attributeType);
  if (size == 0) return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
  // A handle read back would need the server to map its real handle to our id; nobody reads one.
  if (attributeType == CUDNN_TYPE_HANDLE) return CUDNN_STATUS_NOT_SUPPORTED;
  if (requestedElementCount < 0 || requestedElementCount > kMaxBackendElements)
    return CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND;
  if (!elementCount && !arrayOfElements) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const bool want_array = arrayOfElements && requestedElementCount > 0;
  const auto key = std::make_tuple(static_cast<int32_t>(attributeName), static_cast<int32_t>(attributeType),
                                   want_array ? requestedElementCount : 0);
  const bool cacheable = !backend_holds_ids(attributeType);
  Answer answer;
  bool cached = false;
  const bool known = with_descriptor(descriptor, [&](Descriptor& d) {
    auto it = d.answers.find(key);
    if (it != d.answers.end()) answer = it->second, cached = true;
  });
  if (!known) return CUDNN_STATUS_BAD_PARAM;
  if (!cached) {
    LegacyCall call(ids::k_cudnnBackendGetAttribute, CallClass::kSync);
    call.value(id_of(descriptor)).value<int32_t>(attributeName).value<int32_t>(attributeType);
    call.value<int64_t>(want_array ? requestedElementCount : 0);
    // Descriptors are filled in place: the server gets the ids of the caller's descriptors.
    const bool fill = attributeType == CUDNN_TYPE_BACKEND_DESCRIPTOR && want_array;
    call.bytes(fill ? arrayOfElements : nullptr, fill ? static_cast<size_t>(requestedElementCount) * size : 0);
    cudnnStatus_t status = call.invoke();
    if (status != CUDNN_STATUS_SUCCESS) return status;
    rgpu::wire::Decoder& reply = call.results();
    answer.count = reply.get<int64_t>();
    std::span<const uint8_t> bytes = reply.get_bytes();
    const int64_t filled = std::min(std::max<int64_t>(answer.count, 0), requestedElementCount);
    const bool bytes_back = attributeType != CUDNN_TYPE_BACKEND_DESCRIPTOR && want_array;
    const size_t expect = bytes_back ? static_cast<size_t>(filled) * size : 0;
    if (!reply.ok() || answer.count < 0 || bytes.size() != expect) return CUDNN_STATUS_INTERNAL_ERROR;
    answer.bytes.assign(bytes.begin(), bytes.end());
    if (cacheable) {
      with_descriptor(descriptor, [&](Descriptor& d) {
        if (d.finalized) d.answers.emplace(key, answer);
      });
    }
  }
  if (elementCount) *elementCount = answer.count;
  if (!answer.bytes.empty()) std::memcpy(arrayOfElements, answer.bytes.data(), answer.bytes.size());
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                  cudnnBackendDescriptor_t variantPack) {
  LegacyCall call(ids::k_cudnnBackendExecute, CallClass::kAsync);
  call.handle(handle).value(id_of(executionPlan)).value(id_of(variantPack));
  return call.post();
}

}  // extern "C"
