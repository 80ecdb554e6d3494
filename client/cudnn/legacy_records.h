// The client-side objects behind cuDNN's legacy descriptor handles: each holds the record that
// travels with the calls using it (common/wire/cudnn_args.h). Creating, setting and reading one
// costs no traffic. cudnn*.h only declares these structs; the shim defines them.
#pragma once

#include <cudnn.h>

#include <cstddef>

#include "common/wire/cudnn_args.h"

struct cudnnTensorStruct {
  rgpu::wire::cudnn::TensorRecord record{};
  bool set = false;
};

struct cudnnFilterStruct {
  rgpu::wire::cudnn::FilterRecord record{};
  bool set = false;
};

struct cudnnConvolutionStruct {
  cudnnConvolutionStruct() {
    // cuDNN's defaults for what the Nd setter leaves alone.
    record.math_type = CUDNN_DEFAULT_MATH;
    record.group_count = 1;
    record.reorder_type = CUDNN_DEFAULT_REORDER;
  }
  rgpu::wire::cudnn::ConvolutionRecord record{};
  bool set = false;
};

struct cudnnActivationStruct {
  rgpu::wire::cudnn::ActivationRecord record{};
  bool set = false;
};

namespace rgpu::client::cudnn {

// Bytes of one element of `type`, or 0 for a type this shim does not know.
size_t data_type_size(cudnnDataType_t type);

// Packed strides of `dims` (nb dims) in `format` (NCHW: row-major; NHWC: channels innermost).
// False for a format this shim cannot describe (NCHW_VECT_C).
bool packed_strides(cudnnTensorFormat_t format, int nb, const int* dims, int* strides);

// Writes `object`'s new instance into *out (false when out is null).
template <typename T, typename Handle>
cudnnStatus_t create_record(Handle* out) {
  if (!out) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  *out = new T;
  return CUDNN_STATUS_SUCCESS;
}

// cudnnDestroy*Descriptor: deleting null is allowed, as cuDNN allows it.
template <typename Struct>
cudnnStatus_t destroy_record(Struct* desc) {
  delete desc;
  return CUDNN_STATUS_SUCCESS;
}

// The last step of every setter: `r` becomes the descriptor's record if the checks the server
// makes on it (wire::cudnn::valid) pass.
template <typename Struct, typename Record>
cudnnStatus_t store_record(Struct* desc, const Record& r) {
  if (!wire::cudnn::valid(r)) return CUDNN_STATUS_BAD_PARAM;
  desc->record = r;
  desc->set = true;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace rgpu::client::cudnn
