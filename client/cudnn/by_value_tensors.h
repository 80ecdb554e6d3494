// Backend tensors passed by value (CUDNN_ATTR_TENSOR_IS_BY_VALUE: a scalar such as attention's
// scale, whose variant-pack pointer is host memory). The server cannot read client memory, so a
// variant pack's host values travel inline with its data pointers (common/wire/cudnn_args.h) and
// the server points cuDNN at its own copies. Which pointers those are: the ones whose unique id
// belongs to a finalized by-value tensor and that are not device allocations of this process.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace rgpu::client::cudnn {

// What a backend tensor's setter says about it (called for every attribute of a tensor).
struct TensorFacts {
  int64_t uid = -1;
  int32_t data_type = -1;
  bool by_value = false;
  void note(cudnnBackendAttributeName_t name, int64_t count, const void* values);
};

// A by-value tensor was finalized: its unique id's pointers are host values of its type's size.
void register_by_value(const TensorFacts& tensor);

// The (element index, value bytes) of each host value among a variant pack's data pointers.
std::vector<std::pair<uint32_t, std::vector<uint8_t>>> inline_values(std::span<void* const> pointers,
                                                                       std::span<const int64_t> uids);

}  // namespace rgpu::client::cudnn
