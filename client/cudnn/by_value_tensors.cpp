// By-value backend tensors: their unique ids and sizes, and the host values a variant pack holds.
#include "client/cudnn/by_value_tensors.h"

#include <cstring>
#include <mutex>
#include <unordered_map>

#include "client/cudnn/legacy_records.h"
#include "client/runtime/memory_map.h"

namespace rgpu::client::cudnn {
namespace {

struct ByValue {
  std::mutex mu;
  std::unordered_map<int64_t, size_t> sizes;  // unique id -> bytes of its value
};

ByValue& by_value() {
  static ByValue* b = new ByValue;  // never destroyed: calls may come from exit handlers
  return *b;
}

}  // namespace

void TensorFacts::note(cudnnBackendAttributeName_t name, int64_t count, const void* values) {
  if (count != 1 || !values) return;
  if (name == CUDNN_ATTR_TENSOR_UNIQUE_ID) std::memcpy(&uid, values, sizeof uid);
  if (name == CUDNN_ATTR_TENSOR_DATA_TYPE) std::memcpy(&data_type, values, sizeof data_type);
  if (name == CUDNN_ATTR_TENSOR_IS_BY_VALUE) std::memcpy(&by_value, values, sizeof by_value);
}

void register_by_value(const TensorFacts& tensor) {
  if (!tensor.by_value || tensor.uid < 0 || !wire::cudnn::in_range(tensor.data_type, CUDNN_DATA_COMPLEX_FP64)) return;
  const size_t size = data_type_size(static_cast<cudnnDataType_t>(tensor.data_type));
  if (size == 0) return;
  std::lock_guard lock(by_value().mu);
  by_value().sizes[tensor.uid] = size;
}

std::vector<std::pair<uint32_t, std::vector<uint8_t>>> inline_values(std::span<void* const> pointers,
                                                                       std::span<const int64_t> uids) {
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> out;
  std::lock_guard lock(by_value().mu);
  if (by_value().sizes.empty()) return out;
  for (size_t i = 0; i < pointers.size() && i < uids.size(); ++i) {
    auto it = by_value().sizes.find(uids[i]);
    if (it == by_value().sizes.end() || !pointers[i] || MemoryMap::get().find_device(pointers[i])) continue;
    const auto* p = static_cast<const uint8_t*>(pointers[i]);
    out.emplace_back(static_cast<uint32_t>(i), std::vector<uint8_t>(p, p + it->second));
  }
  return out;
}

}  // namespace rgpu::client::cudnn
