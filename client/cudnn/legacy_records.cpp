// Helpers shared by the legacy descriptor setters and getters: element sizes and packed strides.
#include "client/cudnn/legacy_records.h"

namespace rgpu::client::cudnn {

size_t data_type_size(cudnnDataType_t type) {
  switch (type) {
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_BOOLEAN:
    case CUDNN_DATA_FP8_E4M3:
    case CUDNN_DATA_FP8_E5M2:
      return 1;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
      return 2;
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_UINT32:
      return 4;
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_INT64:
      return 8;
    default:
      return 0;
  }
}

bool packed_strides(cudnnTensorFormat_t format, int nb, const int* dims, int* strides) {
  if (format == CUDNN_TENSOR_NCHW) {
    int s = 1;
    for (int i = nb - 1; i >= 0; --i) {
      strides[i] = s;
      s *= dims[i];
    }
    return true;
  }
  if (format == CUDNN_TENSOR_NHWC && nb >= 3) {
    // Channels (dim 1) innermost, then the spatial dimensions from the last, then the batch.
    int s = 1;
    strides[1] = s;
    s *= dims[1];
    for (int i = nb - 1; i >= 2; --i) {
      strides[i] = s;
      s *= dims[i];
    }
    strides[0] = s;
    return true;
  }
  return false;
}

}  // namespace rgpu::client::cudnn
