// Emulated cuBLAS compute, and the SGEMM that cuBLASLt's FP32 matmul shares: column-major reference
// loops over the virtual device's memory (host RAM), issued in the handle's stream like any other
// device work (run now, or recorded into a capture). Every matrix and vector is confirmed inside
// one live allocation before it is used.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/cublas/getrs_arguments.h"
#include "server/backends/emulated/cublas.h"
#include "server/backends/emulated/cublas_handle.h"
#include "server/backends/emulated/runtime_state.h"
#include "server/backends/emulated/sgemm.h"

namespace rgpu::server::emulated {
namespace {

// A float scalar (alpha, beta): its value now when it is in host memory (the caller's memory is
// read at issue time, as cuBLAS does), else the device range it is read from when the work runs.
class ScalarArg {
 public:
  bool bind(cublasPointerMode_t mode, const float* p) {
    if (!p) return false;
    if (mode == CUBLAS_POINTER_MODE_HOST) {
      value_ = *p;
      return true;
    }
    range_ = state().memory.find(p, sizeof(float));
    return static_cast<bool>(range_);
  }
  float get() const {
    if (!range_) return value_;
    float v;
    std::memcpy(&v, range_.data, sizeof v);
    return v;
  }

 private:
  float value_ = 0;
  DeviceRange range_;
};

// Elements of a rows x cols column-major matrix with leading dimension ld, as a device range.
DeviceRange matrix(const float* p, int rows, int cols, int ld) {
  uint64_t elements = uint64_t(cols - 1) * uint64_t(ld) + uint64_t(rows);
  return state().memory.find(p, elements * sizeof(float));
}

// n elements inc apart (a negative inc walks from the far end, as BLAS does).
DeviceRange vector(const float* p, int64_t n, int64_t inc) {
  return state().memory.find(p, (uint64_t(n - 1) * uint64_t(std::abs(inc)) + 1) * sizeof(float));
}

size_t vector_index(int64_t i, int64_t n, int64_t inc) {
  return inc >= 0 ? size_t(i) * size_t(inc) : size_t(n - 1 - i) * size_t(-inc);
}

// The n x n matrices (or n x nrhs right-hand sides) a batched routine's device array of pointers
// names, each confirmed inside one allocation; empty when the array or one of them is not.
std::vector<DeviceRange> batch_matrices(const float* const* array, int batch, int rows, int cols, int ld) {
  DeviceRange pointers = state().memory.find(array, uint64_t(batch) * sizeof(float*));
  if (!pointers && batch > 0) return {};
  std::vector<DeviceRange> out;
  for (int b = 0; b < batch; ++b) {
    const float* p = nullptr;
    std::memcpy(&p, pointers.data + size_t(b) * sizeof p, sizeof p);
    DeviceRange m = matrix(p, rows, cols, ld);
    if (!m) return {};
    out.push_back(std::move(m));
  }
  return out;
}

bool valid_op(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }

cublasStatus_t issued(cudaError_t err) { return err == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED; }

}  // namespace

cublasStatus_t sgemm(const SgemmCall& g) {
  const bool ta = g.transa != CUBLAS_OP_N, tb = g.transb != CUBLAS_OP_N;
  const int m = g.m, n = g.n, k = g.k, lda = g.lda, ldb = g.ldb, ldc = g.ldc, ldd = g.ldd;
  const int a_rows = ta ? k : m, b_rows = tb ? n : k;
  if (!valid_op(g.transa) || !valid_op(g.transb) || m < 0 || n < 0 || k < 0 || lda < std::max(1, a_rows) ||
      ldb < std::max(1, b_rows) || ldc < std::max(1, m) || ldd < std::max(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  ScalarArg a_scale, b_scale;
  if (!a_scale.bind(g.pointer_mode, g.alpha) || !b_scale.bind(g.pointer_mode, g.beta)) return CUBLAS_STATUS_INVALID_VALUE;
  DeviceRange a, b, bias;
  if (k > 0) {
    a = matrix(g.A, a_rows, ta ? m : k, lda);
    b = matrix(g.B, b_rows, tb ? k : n, ldb);
    if (!a || !b) return CUBLAS_STATUS_INVALID_VALUE;
  }
  DeviceRange c = matrix(g.C, m, n, ldc), d = matrix(g.D, m, n, ldd);
  if (!c || !d) return CUBLAS_STATUS_INVALID_VALUE;
  if (g.bias && !(bias = vector(g.bias, m, 1))) return CUBLAS_STATUS_INVALID_VALUE;
  return issued(state().enqueue(g.stream, cudaGraphNodeTypeKernel, [=] {
    const float* pa = reinterpret_cast<const float*>(a.data);
    const float* pb = reinterpret_cast<const float*>(b.data);
    const float* pc = reinterpret_cast<const float*>(c.data);
    const float* pbias = reinterpret_cast<const float*>(bias.data);
    float* pd = reinterpret_cast<float*>(d.data);
    const float al = a_scale.get(), be = b_scale.get();
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        float sum = 0;
        for (int l = 0; l < k; ++l) {
          float x = ta ? pa[l + size_t(i) * lda] : pa[i + size_t(l) * lda];
          float y = tb ? pb[j + size_t(l) * ldb] : pb[l + size_t(j) * ldb];
          sum += x * y;
        }
        // beta 0: C is not read (NaN stays out)
        float out = be == 0 ? al * sum : al * sum + be * pc[i + size_t(j) * ldc];
        pd[i + size_t(j) * ldd] = pbias ? out + pbias[i] : out;
      }
    }
    return cudaSuccess;
  }));
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const float* alpha, const float* A, int lda, const float* B, int ldb,
                              const float* beta, float* C, int ldc) {
  std::optional<CublasSettings> h = cublas_settings(handle);
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  return sgemm({h->stream, h->pointer_mode, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, C, ldc});
}

cublasStatus_t cublasSdot_v2(cublasHandle_t handle, int n, const float* x, int incx, const float* y, int incy,
                             float* result) {
  std::optional<CublasSettings> h = cublas_settings(handle);
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  DeviceRange vx, vy;
  if (n > 0) {
    vx = vector(x, n, incx);
    vy = vector(y, n, incy);
    if (!vx || !vy) return CUBLAS_STATUS_INVALID_VALUE;
  }
  auto dot = [=] {
    float sum = 0;
    for (int i = 0; i < n; ++i) {
      sum += reinterpret_cast<const float*>(vx.data)[vector_index(i, n, incx)] *
             reinterpret_cast<const float*>(vy.data)[vector_index(i, n, incy)];
    }
    return sum;
  };
  if (h->pointer_mode == CUBLAS_POINTER_MODE_HOST) {
    // A host result is ready when the call returns: the work before it in the stream is done (the
    // emulated streams run eagerly).
    *result = dot();
    return CUBLAS_STATUS_SUCCESS;
  }
  DeviceRange out = state().memory.find(result, sizeof(float));
  if (!out) return CUBLAS_STATUS_INVALID_VALUE;
  return issued(state().enqueue(h->stream, cudaGraphNodeTypeKernel, [=] {
    float v = dot();
    std::memcpy(out.data, &v, sizeof v);
    return cudaSuccess;
  }));
}

cublasStatus_t cublasSaxpy_v2_64(cublasHandle_t handle, int64_t n, const float* alpha, const float* x, int64_t incx,
                                 float* y, int64_t incy) {
  std::optional<CublasSettings> h = cublas_settings(handle);
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  ScalarArg a;
  if (!a.bind(h->pointer_mode, alpha)) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  DeviceRange vx = vector(x, n, incx), vy = vector(y, n, incy);
  if (!vx || !vy) return CUBLAS_STATUS_INVALID_VALUE;
  return issued(state().enqueue(h->stream, cudaGraphNodeTypeKernel, [=] {
    const auto* px = reinterpret_cast<const float*>(vx.data);
    auto* py = reinterpret_cast<float*>(vy.data);
    for (int64_t i = 0; i < n; ++i) py[vector_index(i, n, incy)] += a.get() * px[vector_index(i, n, incx)];
    return cudaSuccess;
  }));
}

cublasStatus_t cublasSrot_v2(cublasHandle_t handle, int n, float* x, int incx, float* y, int incy, const float* c,
                             const float* s) {
  std::optional<CublasSettings> h = cublas_settings(handle);
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  ScalarArg cos, sin;
  if (!cos.bind(h->pointer_mode, c) || !sin.bind(h->pointer_mode, s)) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  DeviceRange vx = vector(x, n, incx), vy = vector(y, n, incy);
  if (!vx || !vy) return CUBLAS_STATUS_INVALID_VALUE;
  return issued(state().enqueue(h->stream, cudaGraphNodeTypeKernel, [=] {
    auto* px = reinterpret_cast<float*>(vx.data);
    auto* py = reinterpret_cast<float*>(vy.data);
    for (int i = 0; i < n; ++i) {
      float& xi = px[vector_index(i, n, incx)];
      float& yi = py[vector_index(i, n, incy)];
      const float xv = xi, yv = yi;
      xi = cos.get() * xv + sin.get() * yv;
      yi = cos.get() * yv - sin.get() * xv;
    }
    return cudaSuccess;
  }));
}

// Solves A X = B for each matrix of the batch, A given as getrf leaves it (L below the diagonal
// with a unit diagonal, U on and above it, rows swapped as the 1-based pivots say). `info` is one
// int in host memory, as cuBLAS checks the arguments (common/cublas/getrs_arguments.h). Only
// trans = N is emulated.
cublasStatus_t cublasSgetrsBatched(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs,
                                   const float* const Aarray[], int lda, const int* devIpiv, float* const Barray[],
                                   int ldb, int* info, int batchSize) {
  std::optional<CublasSettings> h = cublas_settings(handle);
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!info) return CUBLAS_STATUS_INVALID_VALUE;
  *info = rgpu::cublas::getrs_wrong_argument(trans, n, nrhs, lda, ldb);
  if (*info != 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (batchSize < 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  if (trans != CUBLAS_OP_N) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (n == 0 || nrhs == 0 || batchSize == 0) return CUBLAS_STATUS_SUCCESS;
  std::vector<DeviceRange> as = batch_matrices(Aarray, batchSize, n, n, lda);
  std::vector<DeviceRange> bs = batch_matrices(Barray, batchSize, n, nrhs, ldb);
  DeviceRange pivots = state().memory.find(devIpiv, uint64_t(n) * uint64_t(batchSize) * sizeof(int));
  if (as.empty() || bs.empty() || !pivots) return CUBLAS_STATUS_INVALID_VALUE;
  return issued(state().enqueue(h->stream, cudaGraphNodeTypeKernel, [=] {
    for (int b = 0; b < batchSize; ++b) {
      const auto* a = reinterpret_cast<const float*>(as[b].data);
      auto* x = reinterpret_cast<float*>(bs[b].data);
      const auto* piv = reinterpret_cast<const int*>(pivots.data) + size_t(b) * size_t(n);
      for (int j = 0; j < nrhs; ++j) {
        float* col = x + size_t(j) * size_t(ldb);
        for (int i = 0; i < n; ++i) {
          const int p = piv[i] - 1;
          if (p < 0 || p >= n) return cudaErrorIllegalAddress;  // a pivot no getrf writes
          std::swap(col[i], col[p]);
        }
        for (int i = 0; i < n; ++i)
          for (int k = 0; k < i; ++k) col[i] -= a[i + size_t(k) * lda] * col[k];
        for (int i = n - 1; i >= 0; --i) {
          for (int k = i + 1; k < n; ++k) col[i] -= a[i + size_t(k) * lda] * col[k];
          col[i] /= a[i + size_t(i) * lda];
        }
      }
    }
    return cudaSuccess;
  }));
}

namespace {

// n elements of elem_size bytes, inc elements apart, between host memory and one device range
// (cublasSetVector: to the device; cublasGetVector: from it). As cuBLAS does, it waits for nothing:
// the emulated streams have run what came before.
cublasStatus_t copy_vector(int n, int elem_size, const void* from, int inc_from, void* to, int inc_to, bool to_device) {
  if (n < 0 || elem_size <= 0 || inc_from <= 0 || inc_to <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  const void* device = to_device ? to : from;
  const int device_inc = to_device ? inc_to : inc_from;
  DeviceRange range = state().memory.find(device, (uint64_t(n - 1) * uint64_t(device_inc) + 1) * uint64_t(elem_size));
  if (!range) return CUBLAS_STATUS_MAPPING_ERROR;
  const auto* src = to_device ? static_cast<const uint8_t*>(from) : range.data;
  auto* dst = to_device ? range.data : static_cast<uint8_t*>(to);
  for (int i = 0; i < n; ++i)
    std::memcpy(dst + size_t(i) * size_t(inc_to) * size_t(elem_size), src + size_t(i) * size_t(inc_from) * size_t(elem_size),
                size_t(elem_size));
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

cublasStatus_t cublasSetVector(int n, int elemSize, const void* x, int incx, void* devicePtr, int incy) {
  return copy_vector(n, elemSize, x, incx, devicePtr, incy, true);
}

cublasStatus_t cublasGetVector(int n, int elemSize, const void* x, int incx, void* y, int incy) {
  return copy_vector(n, elemSize, x, incx, y, incy, false);
}

}  // namespace rgpu::server::emulated
