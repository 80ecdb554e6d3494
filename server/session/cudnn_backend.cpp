// Hand-written handlers of cuDNN's backend (graph) API (client/cudnn/backend_descriptors.cpp;
// the wire form is in common/wire/cudnn_args.h). Descriptors are bound to the client's ids in
// the session's handle table; attribute arrays of handles and descriptors are translated from
// ids to the real objects here, everything else is passed as the client's bytes.
#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "common/wire/cudnn_args.h"
#include "gen/cudnn/cudnn_api.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "server/session/cudnn_args.h"

namespace rgpu::server::handlers {
namespace {

// The element count a peer sent, if it is one this side accepts.
bool valid_count(int64_t count) { return count >= 0 && count <= wire::cudnn::kMaxBackendElements; }

// Replaces each u64 id in `bytes` (count elements) by the real object bound to it as `kind`;
// false (the call fails with CUDNN_STATUS_BAD_PARAM) for an id the session does not know.
bool translate_ids(const HandleTable& handles, HandleKind kind, std::vector<uint8_t>& bytes) {
  for (size_t at = 0; at + sizeof(uint64_t) <= bytes.size(); at += sizeof(uint64_t)) {
    uint64_t id;
    std::memcpy(&id, bytes.data() + at, sizeof id);
    void* real = nullptr;
    if (id != 0 && (HandleTable::is_builtin(id) || !handles.resolve(kind, id, &real))) return false;
    std::memcpy(bytes.data() + at, &real, sizeof real);
  }
  return true;
}

// Host values of by-value tensors, per descriptor id, that the descriptor's VOID_PTR elements
// point at; they live until the descriptor is destroyed. (One session per worker process, used by
// the session thread only.)
std::unordered_map<uint64_t, std::vector<std::vector<uint8_t>>>& inline_values() {
  static auto* values = new std::unordered_map<uint64_t, std::vector<std::vector<uint8_t>>>;
  return *values;
}

// What both attribute calls send first: the descriptor, the attribute's name and element type, an
// element count, and an array (absent, or elements or ids).
struct Attribute {
  cudnnBackendDescriptor_t d;
  cudnnBackendAttributeName_t name;
  int32_t type;  // checked by its element size before it becomes an enum
  int64_t count;
  bool present;
  std::span<const uint8_t> bytes;
};

Attribute attribute(cudnn::Args& a) {
  Attribute at{};
  at.d = a.backend_descriptor();
  at.name = a.enumerated<cudnnBackendAttributeName_t>(wire::cudnn::kLastBackendAttributeName);
  at.type = a.value<int32_t>();
  at.count = a.value<int64_t>();
  at.bytes = a.in().get_bytes(&at.present);
  return at;
}

HandleKind id_kind(int32_t type) {
  return type == CUDNN_TYPE_HANDLE ? HandleKind::kCudnn : HandleKind::kCudnnDescriptor;
}

}  // namespace

bool cudnnBackendCreateDescriptor(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  auto type = a.enumerated<cudnnBackendDescriptorType_t>(wire::cudnn::kLastBackendDescriptorType);
  const uint64_t id = a.value<uint64_t>();
  if (HandleTable::is_builtin(id)) return false;
  cudnnBackendDescriptor_t d{};
  if (!a.call(status, ctx.cudnn.cudnnBackendCreateDescriptor, "cudnnBackendCreateDescriptor", type, &d)) return false;
  if (status == CUDNN_STATUS_SUCCESS) ctx.handles.bind(HandleKind::kCudnnDescriptor, id, d);
  return true;
}

bool cudnnBackendDestroyDescriptor(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  const uint64_t id = a.value<uint64_t>();
  cudnnBackendDescriptor_t d{};
  if (HandleTable::is_builtin(id) || !ctx.handles.resolve(HandleKind::kCudnnDescriptor, id, &d))
    a.fail(CUDNN_STATUS_BAD_PARAM);
  if (!a.call(status, ctx.cudnn.cudnnBackendDestroyDescriptor, "cudnnBackendDestroyDescriptor", d)) return false;
  if (status != CUDNN_STATUS_SUCCESS) return true;
  ctx.handles.unbind(HandleKind::kCudnnDescriptor, id);
  inline_values().erase(id);
  return true;
}

bool cudnnBackendSetAttribute(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  const uint64_t id = wire::Decoder(in).get<uint64_t>();  // a peek: backend_descriptor() reads it next
  const auto [d, name, type, count, present, bytes] = attribute(a);
  const uint32_t inline_count = a.value<uint32_t>();
  std::vector<std::pair<uint32_t, std::span<const uint8_t>>> inlined;
  for (uint32_t i = 0; i < inline_count && a.in().ok(); ++i) {
    const uint32_t index = a.value<uint32_t>();
    inlined.emplace_back(index, a.in().get_bytes());
  }
  const size_t size = wire::cudnn::backend_element_size(type);
  if (!a.complete() || !valid_count(count)) return false;
  if (size == 0) {
    status = CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
    return true;
  }
  if (bytes.size() != static_cast<size_t>(count) * size || (count > 0 && !present)) return false;
  std::vector<uint8_t> elements(bytes.begin(), bytes.end());
  if (wire::cudnn::backend_holds_ids(type) && !translate_ids(ctx.handles, id_kind(type), elements))
    a.fail(CUDNN_STATUS_BAD_PARAM);
  // Host values: kept here, and the elements point at the copies.
  if (!inlined.empty() && d) {
    if (type != CUDNN_TYPE_VOID_PTR) return false;
    std::vector<std::vector<uint8_t>>& kept = inline_values()[id];
    kept.clear();
    for (const auto& [index, value] : inlined) {
      if (index >= static_cast<uint64_t>(count) || value.empty() || value.size() > wire::cudnn::kMaxInlineValueBytes)
        return false;
      kept.emplace_back(value.begin(), value.end());
      const void* p = kept.back().data();
      std::memcpy(elements.data() + size_t{index} * sizeof p, &p, sizeof p);
    }
  }
  if (!d) a.fail(CUDNN_STATUS_BAD_PARAM);
  return a.call(status, ctx.cudnn.cudnnBackendSetAttribute, "cudnnBackendSetAttribute", d, name,
                static_cast<cudnnBackendAttributeType_t>(type), count,
                static_cast<const void*>(present ? elements.data() : nullptr));
}

bool cudnnBackendFinalize(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnBackendDescriptor_t d = a.backend_descriptor();
  if (!d) a.fail(CUDNN_STATUS_BAD_PARAM);
  return a.call(status, ctx.cudnn.cudnnBackendFinalize, "cudnnBackendFinalize", d);
}

bool cudnnBackendGetAttribute(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  cudnn::Args a(ctx, in);
  const auto [d, name, type, requested, present, ids] = attribute(a);
  const size_t size = wire::cudnn::backend_element_size(type);
  if (!a.complete() || !valid_count(requested)) return false;
  if (size == 0 || type == CUDNN_TYPE_HANDLE) {
    status = size == 0 ? CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE : CUDNN_STATUS_NOT_SUPPORTED;
    return true;
  }
  const bool descriptors = type == CUDNN_TYPE_BACKEND_DESCRIPTOR;
  // Descriptors are filled in place: the caller's own, by id. Anything else lands in our buffer.
  std::vector<uint8_t> elements;
  if (descriptors && present) {
    if (ids.size() != static_cast<size_t>(requested) * size) return false;
    elements.assign(ids.begin(), ids.end());
    if (!translate_ids(ctx.handles, HandleKind::kCudnnDescriptor, elements)) a.fail(CUDNN_STATUS_BAD_PARAM);
  } else {
    if (present) return false;  // ids travel only for descriptor arrays
    if (!descriptors) elements.assign(static_cast<size_t>(requested) * size, 0);
  }
  if (!d) a.fail(CUDNN_STATUS_BAD_PARAM);
  int64_t count = 0;
  void* array = elements.empty() ? nullptr : elements.data();
  if (!a.call(status, ctx.cudnn.cudnnBackendGetAttribute, "cudnnBackendGetAttribute", d, name,
              static_cast<cudnnBackendAttributeType_t>(type), array ? requested : 0, &count, array))
    return false;
  if (status != CUDNN_STATUS_SUCCESS) return true;
  out.put<int64_t>(count);
  const int64_t filled = descriptors || !array ? 0 : std::min(std::max<int64_t>(count, 0), requested);
  const size_t returned = static_cast<size_t>(filled) * size;
  out.put_bytes(elements.data(), returned);
  return true;
}

bool cudnnBackendExecute(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnBackendDescriptor_t plan = a.backend_descriptor();
  cudnnBackendDescriptor_t pack = a.backend_descriptor();
  if (!plan || !pack) a.fail(CUDNN_STATUS_BAD_PARAM);
  return a.call(status, ctx.cudnn.cudnnBackendExecute, "cudnnBackendExecute", handle, plan, pack);
}

}  // namespace rgpu::server::handlers
