// Byte counts of cuBLAS arguments that live in host memory, evaluated by the generated client
// stubs and server dispatchers alike (the spec's count expressions): a scalar of a compute type,
// a strided vector, a column-major matrix. A combination cuBLAS rejects counts 0 bytes (cuBLAS
// fails it before reading anything).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <cublas_api.h>

namespace rgpu::gen {

// alpha/beta of cublasGemmEx and friends: the compute type's scalar, twice for a complex C.
// Integers, not the enums, so that the server's decoded values (underlying integers) fit too.
inline size_t cublas_scalar_bytes(int compute_type, int c_type) {
  size_t real = 0;
  switch (static_cast<cublasComputeType_t>(compute_type)) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
      real = 2;  // half
      break;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
      real = 4;  // float or int
      break;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
      real = 8;  // double
      break;
    default:
      return 0;
  }
  switch (static_cast<cudaDataType>(c_type)) {
    case CUDA_C_16F: case CUDA_C_16BF: case CUDA_C_32F: case CUDA_C_64F: case CUDA_C_4I: case CUDA_C_4U:
    case CUDA_C_8I: case CUDA_C_8U: case CUDA_C_16I: case CUDA_C_16U: case CUDA_C_32I: case CUDA_C_32U:
    case CUDA_C_64I: case CUDA_C_64U:
      return 2 * real;
    default:
      return real;
  }
}

// One element of a cudaDataType: the scalars of the level-1 Ex forms (alpha by alphaType, result by
// resultType, c and s by csType, each of rotm's five parameters by paramType); 0 for a type cuBLAS
// takes no scalar of.
inline size_t cublas_type_bytes(int data_type) {
  switch (static_cast<cudaDataType>(data_type)) {
    case CUDA_R_8I: case CUDA_R_8U:
      return 1;
    case CUDA_R_16F: case CUDA_R_16BF: case CUDA_C_8I: case CUDA_C_8U:
      return 2;
    case CUDA_R_32F: case CUDA_R_32I: case CUDA_R_32U: case CUDA_C_16F: case CUDA_C_16BF:
      return 4;
    case CUDA_R_64F: case CUDA_C_32F:
      return 8;
    case CUDA_C_64F:
      return 16;
    default:
      return 0;
  }
}

// n elements of elem_size bytes, inc elements apart (cublasSetVector/GetVector, and their _64 forms).
inline size_t cublas_vector_bytes(int64_t n, int64_t elem_size, int64_t inc) {
  if (n <= 0 || elem_size <= 0 || inc == 0) return 0;
  return (static_cast<size_t>(n - 1) * static_cast<size_t>(inc < 0 ? -inc : inc) + 1) * static_cast<size_t>(elem_size);
}

// A rows x cols column-major matrix with leading dimension ld (cublasSetMatrix/GetMatrix, and _64).
inline size_t cublas_matrix_bytes(int64_t rows, int64_t cols, int64_t elem_size, int64_t ld) {
  if (rows <= 0 || cols <= 0 || elem_size <= 0 || ld < rows) return 0;
  return (static_cast<size_t>(cols - 1) * static_cast<size_t>(ld) + static_cast<size_t>(rows)) *
         static_cast<size_t>(elem_size);
}

}  // namespace rgpu::gen
