// cuBLASLt descriptors as plain data: the attribute tables of cublasLt.h (CUDA 13.0), set/get, and
// the byte form with its bounds-checked decoder.
#include "common/cublaslt/lt_descriptor.h"

#include <cstring>

namespace rgpu::cublaslt {
namespace {

struct Attr {
  uint32_t id;
  uint8_t size;
  bool is_signed;
  int64_t def;  // the documented default
};

// Attributes the pointer-valued ones included (device addresses are just values here). Left out:
// CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR (38), a pointer to another client-side descriptor that
// cannot travel as a value: setting it answers CUBLAS_STATUS_INVALID_VALUE.
constexpr Attr kMatmulAttrs[] = {
    {CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, 4, true, CUBLAS_COMPUTE_32F},
    {CUBLASLT_MATMUL_DESC_SCALE_TYPE, 4, true, CUDA_R_32F},
    {CUBLASLT_MATMUL_DESC_POINTER_MODE, 4, true, CUBLASLT_POINTER_MODE_HOST},
    {CUBLASLT_MATMUL_DESC_TRANSA, 4, true, CUBLAS_OP_N},
    {CUBLASLT_MATMUL_DESC_TRANSB, 4, true, CUBLAS_OP_N},
    {CUBLASLT_MATMUL_DESC_TRANSC, 4, true, CUBLAS_OP_N},
    {CUBLASLT_MATMUL_DESC_FILL_MODE, 4, true, CUBLAS_FILL_MODE_FULL},
    {CUBLASLT_MATMUL_DESC_EPILOGUE, 4, false, CUBLASLT_EPILOGUE_DEFAULT},
    {CUBLASLT_MATMUL_DESC_BIAS_POINTER, 8, false, 0},
    {CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, 8, true, 0},
    {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, 8, false, 0},
    {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, 8, true, 0},
    {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, 8, true, 0},
    {CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, 8, true, 0},
    {CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, 4, true, 0},
    {CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, 8, false, 0},
    {CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, 8, false, 0},
    {CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, 8, false, 0},
    {CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, 8, false, 0},
    {CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, 8, false, 0},
    {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, 4, true, -1},
    {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER, 8, false, 0},
    {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER, 8, false, 0},
    {CUBLASLT_MATMUL_DESC_FAST_ACCUM, 1, true, 0},
    {CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, 4, true, -1},
    {CUBLASLT_MATMUL_DESC_A_SCALE_MODE, 4, true, 0},
    {CUBLASLT_MATMUL_DESC_B_SCALE_MODE, 4, true, 0},
    {CUBLASLT_MATMUL_DESC_C_SCALE_MODE, 4, true, 0},
    {CUBLASLT_MATMUL_DESC_D_SCALE_MODE, 4, true, 0},
    {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE, 4, true, 0},
    {CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER, 8, false, 0},
    {CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE, 4, true, 0},
};

constexpr Attr kLayoutAttrs[] = {
    {CUBLASLT_MATRIX_LAYOUT_TYPE, 4, false, CUDA_R_32F},
    {CUBLASLT_MATRIX_LAYOUT_ORDER, 4, true, CUBLASLT_ORDER_COL},
    {CUBLASLT_MATRIX_LAYOUT_ROWS, 8, false, 0},
    {CUBLASLT_MATRIX_LAYOUT_COLS, 8, false, 0},
    {CUBLASLT_MATRIX_LAYOUT_LD, 8, true, 0},
    {CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 4, true, 1},
    {CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, 8, true, 0},
    {CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, 8, true, 0},
    {CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, 4, false, CUBLASLT_BATCH_MODE_STRIDED},
};

constexpr Attr kPreferenceAttrs[] = {
    {CUBLASLT_MATMUL_PREF_SEARCH_MODE, 4, false, CUBLASLT_SEARCH_BEST_FIT},
    {CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, 8, false, 0},
    {CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, 4, false, CUBLASLT_REDUCTION_SCHEME_MASK},
    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, 4, false, 256},
    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, 4, false, 256},
    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, 4, false, 256},
    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, 4, false, 256},
    {CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT, 4, false, 0},  // a float; 0.0f is all zero bits
    {CUBLASLT_MATMUL_PREF_IMPL_MASK, 8, false, -1},       // uint64_t(-1): everything allowed
};

std::span<const Attr> table(DescKind kind) {
  switch (kind) {
    case DescKind::kMatmul: return kMatmulAttrs;
    case DescKind::kLayout: return kLayoutAttrs;
    case DescKind::kPreference: return kPreferenceAttrs;
  }
  return {};
}

const Attr* find(DescKind kind, uint32_t attr) {
  for (const Attr& a : table(kind))
    if (a.id == attr) return &a;
  return nullptr;
}

}  // namespace

size_t Descriptor::size_of(DescKind kind, uint32_t attr) {
  const Attr* a = find(kind, attr);
  return a ? a->size : 0;
}

cublasStatus_t Descriptor::set(uint32_t attr, const void* buf, size_t size) {
  const Attr* a = find(kind_, attr);
  if (!a || !buf || size != a->size) return CUBLAS_STATUS_INVALID_VALUE;
  values_[attr] = 0;
  std::memcpy(&values_[attr], buf, size);
  set_mask_ |= uint64_t{1} << attr;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t Descriptor::get(uint32_t attr, void* buf, size_t size, size_t* written) const {
  const Attr* a = find(kind_, attr);
  if (!a) return CUBLAS_STATUS_INVALID_VALUE;
  if (size == 0) {
    if (!written) return CUBLAS_STATUS_INVALID_VALUE;
    *written = a->size;
    return CUBLAS_STATUS_SUCCESS;
  }
  if (!buf || size != a->size) return CUBLAS_STATUS_INVALID_VALUE;
  uint64_t v = is_set(attr) ? values_[attr] : static_cast<uint64_t>(a->def);
  std::memcpy(buf, &v, size);
  if (written) *written = size;
  return CUBLAS_STATUS_SUCCESS;
}

int64_t Descriptor::value(uint32_t attr) const {
  const Attr* a = find(kind_, attr);
  if (!a) return 0;
  if (!is_set(attr)) return a->def;
  uint64_t v = values_[attr];
  if (a->size < 8) {
    const unsigned bits = a->size * 8;
    v &= (uint64_t{1} << bits) - 1;
    if (a->is_signed && (v >> (bits - 1)) & 1) v |= ~uint64_t{0} << bits;
  }
  return static_cast<int64_t>(v);
}

void Descriptor::serialize(std::vector<uint8_t>* out) const {
  out->push_back(static_cast<uint8_t>(kind_));
  for_each_set([&](uint32_t attr, const void* bytes, size_t size) {
    out->push_back(static_cast<uint8_t>(attr));
    out->push_back(static_cast<uint8_t>(size));
    const auto* p = static_cast<const uint8_t*>(bytes);
    out->insert(out->end(), p, p + size);
  });
}

bool parse(std::span<const uint8_t> bytes, DescKind kind, Descriptor* out, std::string* error) {
  if (bytes.empty() || bytes[0] != static_cast<uint8_t>(kind)) {
    *error = bytes.empty() ? "empty descriptor" : "descriptor of kind " + std::to_string(bytes[0]) + ", expected " +
                                                      std::to_string(static_cast<int>(kind));
    return false;
  }
  Descriptor d(kind);
  int last = -1;
  for (size_t i = 1; i < bytes.size();) {
    if (bytes.size() - i < 2) {
      *error = "descriptor truncated in an attribute header";
      return false;
    }
    const uint32_t attr = bytes[i], size = bytes[i + 1];
    i += 2;
    if (static_cast<int>(attr) <= last) {
      *error = "descriptor attribute " + std::to_string(attr) + " repeated or out of order";
      return false;
    }
    if (size > bytes.size() - i) {
      *error = "descriptor truncated in attribute " + std::to_string(attr);
      return false;
    }
    if (d.set(attr, bytes.data() + i, size) != CUBLAS_STATUS_SUCCESS) {
      *error = "descriptor attribute " + std::to_string(attr) + " of " + std::to_string(size) +
               " bytes is not one of this kind";
      return false;
    }
    last = static_cast<int>(attr);
    i += size;
  }
  *out = d;
  return true;
}

size_t scalar_bytes(int32_t scale_type) {
  switch (static_cast<cudaDataType>(scale_type)) {
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_32F: case CUDA_R_32I: case CUDA_C_16F: case CUDA_C_16BF: return 4;
    case CUDA_R_64F: case CUDA_C_32F: case CUDA_C_32I: return 8;
    case CUDA_C_64F: return 16;
    default: return 0;
  }
}

}  // namespace rgpu::cublaslt
