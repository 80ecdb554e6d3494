// The wire form of the hand-written cuDNN calls (client/cudnn, server/session/cudnn_*.cpp).
//
// Legacy descriptors (tensor, filter, convolution, activation) are client-side records: a call
// that uses one sends a presence byte, then the record's bytes (zero-filled past the used
// dimensions, so equal descriptors are equal bytes: the server caches real descriptors by them).
// alpha/beta travel as a u8 byte count (4: float, 8: double) and the value.
//
// Backend (graph) descriptors are client-chosen u64 ids. Attribute values travel as count
// elements of backend_element_size(type) bytes; handles and descriptors as u64 ids, translated
// by the server (see backend_element_size). The calls (bytes = length-prefixed, may be absent):
//   cudnnBackendCreateDescriptor   i32 type, u64 new id
//   cudnnBackendDestroyDescriptor  u64 id
//   cudnnBackendSetAttribute       u64 id, i32 name, i32 type, i64 count, bytes (count elements),
//                                  u32 n, n x (u32 element index, bytes): host values standing in
//                                  for a VOID_PTR element (by-value tensors' pointers; n is 0
//                                  otherwise), which the server keeps until the descriptor goes
//   cudnnBackendFinalize           u64 id
//   cudnnBackendGetAttribute       u64 id, i32 name, i32 type, i64 requested (0: no array),
//                                  bytes (descriptor type: the ids of the caller's descriptors,
//                                  filled in place; else absent)
//                                  reply: i64 count, bytes (min(count, requested) elements; none
//                                  for descriptors)
//   cudnnBackendExecute            u64 handle, u64 plan, u64 variant pack
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <cstdint>

namespace rgpu::wire::cudnn {

inline constexpr int kMaxDims = CUDNN_DIM_MAX;  // 8
inline constexpr int kMaxConvDims = kMaxDims - 2;

struct TensorRecord {
  int32_t data_type;  // cudnnDataType_t
  int32_t nb_dims;    // 1..kMaxDims
  int32_t dims[kMaxDims];
  int32_t strides[kMaxDims];
};

struct FilterRecord {
  int32_t data_type;  // cudnnDataType_t
  int32_t format;     // cudnnTensorFormat_t
  int32_t nb_dims;    // 1..kMaxDims
  int32_t dims[kMaxDims];
};

struct ConvolutionRecord {
  int32_t array_length;  // spatial dimensions, 1..kMaxConvDims
  int32_t pads[kMaxConvDims];
  int32_t strides[kMaxConvDims];
  int32_t dilations[kMaxConvDims];
  int32_t mode;          // cudnnConvolutionMode_t
  int32_t compute_type;  // cudnnDataType_t
  int32_t math_type;     // cudnnMathType_t
  int32_t group_count;
  int32_t reorder_type;  // cudnnReorderType_t
};

struct ActivationRecord {
  int32_t mode;     // cudnnActivationMode_t
  int32_t nan_opt;  // cudnnNanPropagation_t
  double coef;
  double swish_beta;
};

// The most perf records an algorithm query asks for (cuDNN has fewer than ten algorithms of each
// kind).
inline constexpr int kMaxAlgorithms = 64;

// Whether `v` is one of enum E's values from 0 to `last`. Enums travel as int32 and are checked
// with this before they become enum values again: a value outside an enum's range is undefined
// behaviour in C++ (and a peer can send anything).
template <typename E>
constexpr bool in_range(int32_t v, E last) {
  return v >= 0 && v <= static_cast<int32_t>(last);
}

// Whether a record can describe anything: what the client's setters accept, and what the server
// checks before use (cuDNN checks the rest when the server builds the real descriptor).
inline bool valid(const TensorRecord& r) {
  return r.nb_dims >= 1 && r.nb_dims <= kMaxDims && in_range(r.data_type, CUDNN_DATA_COMPLEX_FP64);
}
inline bool valid(const FilterRecord& r) {
  return r.nb_dims >= 1 && r.nb_dims <= kMaxDims && in_range(r.data_type, CUDNN_DATA_COMPLEX_FP64) &&
         in_range(r.format, CUDNN_TENSOR_NCHW_VECT_C);
}
inline bool valid(const ConvolutionRecord& r) {
  return r.array_length >= 1 && r.array_length <= kMaxConvDims && in_range(r.mode, CUDNN_CROSS_CORRELATION) &&
         in_range(r.compute_type, CUDNN_DATA_COMPLEX_FP64) && in_range(r.math_type, CUDNN_FMA_MATH) &&
         in_range(r.reorder_type, CUDNN_NO_REORDER) && r.group_count >= 1;
}
inline bool valid(const ActivationRecord& r) {
  return in_range(r.mode, CUDNN_ACTIVATION_SWISH) && in_range(r.nan_opt, CUDNN_PROPAGATE_NAN);
}

// Bytes of one element of a backend attribute of `type` (a cudnnBackendAttributeType_t) on the
// wire and in the caller's array, or 0 for a type this build does not know (the call then fails with
// CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE). Handles and descriptors are pointers in the caller's
// array and u64 ids on the wire: both 8 bytes.
inline size_t backend_element_size(int32_t type) {
  switch (type) {
    case CUDNN_TYPE_HANDLE:
    case CUDNN_TYPE_BACKEND_DESCRIPTOR:
    case CUDNN_TYPE_VOID_PTR:  // device addresses
    case CUDNN_TYPE_INT64:
    case CUDNN_TYPE_DOUBLE:
      return 8;
    case CUDNN_TYPE_BOOLEAN:
      return sizeof(bool);
    case CUDNN_TYPE_CHAR:
      return 1;
    case CUDNN_TYPE_FLOAT:
    case CUDNN_TYPE_INT32:
      return 4;
    case CUDNN_TYPE_FRACTION:
      return sizeof(cudnnFraction_t);
    // The rest are enums (int-sized in cuDNN's C ABI).
    case CUDNN_TYPE_DATA_TYPE:
    case CUDNN_TYPE_CONVOLUTION_MODE:
    case CUDNN_TYPE_HEUR_MODE:
    case CUDNN_TYPE_KNOB_TYPE:
    case CUDNN_TYPE_NAN_PROPOGATION:
    case CUDNN_TYPE_NUMERICAL_NOTE:
    case CUDNN_TYPE_LAYOUT_TYPE:
    case CUDNN_TYPE_ATTRIB_NAME:
    case CUDNN_TYPE_POINTWISE_MODE:
    case CUDNN_TYPE_GENSTATS_MODE:
    case CUDNN_TYPE_BN_FINALIZE_STATS_MODE:
    case CUDNN_TYPE_REDUCTION_OPERATOR_TYPE:
    case CUDNN_TYPE_BEHAVIOR_NOTE:
    case CUDNN_TYPE_TENSOR_REORDERING_MODE:
    case CUDNN_TYPE_RESAMPLE_MODE:
    case CUDNN_TYPE_PADDING_MODE:
    case CUDNN_TYPE_SIGNAL_MODE:
    case CUDNN_TYPE_NORM_MODE:
    case CUDNN_TYPE_NORM_FWD_PHASE:
    case CUDNN_TYPE_RNG_DISTRIBUTION:
    case CUDNN_TYPE_MOE_GROUPED_MATMUL_MODE:
      return sizeof(int32_t);
  }
  return 0;
}

// Whether elements of `type` are ids the server translates (and whose getter answers need the
// caller's own objects).
inline bool backend_holds_ids(int32_t type) {
  return type == CUDNN_TYPE_HANDLE || type == CUDNN_TYPE_BACKEND_DESCRIPTOR;
}

// The last values of the backend enums the server receives (see in_range).
inline constexpr cudnnBackendDescriptorType_t kLastBackendDescriptorType = CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR;
inline constexpr cudnnBackendAttributeName_t kLastBackendAttributeName = CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOP_K;

// The largest host value sent inline for a by-value tensor (a scalar of any cuDNN data type).
inline constexpr size_t kMaxInlineValueBytes = 64;

// The largest attribute array either side accepts (cuDNN's own arrays are tens of elements).
inline constexpr int64_t kMaxBackendElements = 1 << 16;

}  // namespace rgpu::wire::cudnn
