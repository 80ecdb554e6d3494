// Emulated cuBLASLt: handles, the heuristic and FP32 matmuls. A cuBLAS handle is accepted wherever a
// cuBLASLt handle is (as the real library does: torch passes its cuBLAS handle cast).
#include <climits>
#include <cstring>
#include <variant>

#include "server/backends/emulated/cublas_handle.h"
#include "server/backends/emulated/cublaslt.h"
#include "server/backends/emulated/handle_table.h"
#include "server/backends/emulated/sgemm.h"

namespace rgpu::server::emulated {
namespace {

using cublaslt::DescKind;
using cublaslt::Descriptor;

// A cuBLASLt handle has no settings of its own: its state is an empty object.
HandleTable<cublasLtHandle_t, std::monostate>& handles() {
  static HandleTable<cublasLtHandle_t, std::monostate> table;
  return table;
}

bool known_handle(cublasLtHandle_t h) {
  return handles().get(h).has_value() || cublas_settings(reinterpret_cast<cublasHandle_t>(h)).has_value();
}

// The one algorithm the emulation has, as the heuristic reports it.
constexpr uint64_t kEmulatedAlgo = 0x454d554c41544544ull;  // "EMULATED"

// One operand's layout, as the SGEMM takes it.
struct Operand {
  int rows = 0, cols = 0, ld = 0;
  int batch = 1;
  int64_t stride = 0;  // elements between batches
};

// A matmul this emulation computes: FP32 throughout, column-major, pointer mode host or device,
// the default or bias epilogue.
struct Plan {
  Operand a, b, c, d;
  cublasOperation_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  bool bias = false;
  uint64_t bias_pointer = 0;
  int64_t bias_stride = 0;
};

bool fp32_compute(int64_t compute) {
  return compute == CUBLAS_COMPUTE_32F || compute == CUBLAS_COMPUTE_32F_PEDANTIC ||
         compute == CUBLAS_COMPUTE_32F_FAST_TF32 || compute == CUBLAS_COMPUTE_32F_FAST_16F ||
         compute == CUBLAS_COMPUTE_32F_FAST_16BF;
}

cublasStatus_t read_operand(cublasLtMatrixLayout_t layout, Operand* out) {
  Descriptor l;
  if (!cublaslt::objects::snapshot(layout, DescKind::kLayout, &l)) return CUBLAS_STATUS_INVALID_VALUE;
  if (l.value(CUBLASLT_MATRIX_LAYOUT_TYPE) != CUDA_R_32F || l.value(CUBLASLT_MATRIX_LAYOUT_ORDER) != CUBLASLT_ORDER_COL ||
      l.value(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE) != CUBLASLT_BATCH_MODE_STRIDED)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  const uint64_t rows = static_cast<uint64_t>(l.value(CUBLASLT_MATRIX_LAYOUT_ROWS));
  const uint64_t cols = static_cast<uint64_t>(l.value(CUBLASLT_MATRIX_LAYOUT_COLS));
  const int64_t ld = l.value(CUBLASLT_MATRIX_LAYOUT_LD);
  if (rows > INT_MAX || cols > INT_MAX || ld < 0 || ld > INT_MAX) return CUBLAS_STATUS_NOT_SUPPORTED;
  *out = {static_cast<int>(rows), static_cast<int>(cols), static_cast<int>(ld),
          static_cast<int>(l.value(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT)),
          l.value(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET)};
  return out->batch >= 1 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t make_plan(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t A, cublasLtMatrixLayout_t B,
                         cublasLtMatrixLayout_t C, cublasLtMatrixLayout_t D, Plan* p) {
  Descriptor m;
  if (!cublaslt::objects::snapshot(desc, DescKind::kMatmul, &m)) return CUBLAS_STATUS_INVALID_VALUE;
  for (auto [layout, op] : {std::pair{A, &p->a}, {B, &p->b}, {C, &p->c}, {D, &p->d}})
    if (cublasStatus_t st = read_operand(layout, op); st != CUBLAS_STATUS_SUCCESS) return st;
  const int64_t epilogue = m.value(CUBLASLT_MATMUL_DESC_EPILOGUE), mode = m.value(CUBLASLT_MATMUL_DESC_POINTER_MODE);
  const int64_t bias_type = m.value(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
  if (!fp32_compute(m.value(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE)) || m.value(CUBLASLT_MATMUL_DESC_SCALE_TYPE) != CUDA_R_32F ||
      (epilogue != CUBLASLT_EPILOGUE_DEFAULT && epilogue != CUBLASLT_EPILOGUE_BIAS) ||
      (mode != CUBLASLT_POINTER_MODE_HOST && mode != CUBLASLT_POINTER_MODE_DEVICE) ||
      (bias_type != -1 && bias_type != CUDA_R_32F))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  p->transa = static_cast<cublasOperation_t>(m.value(CUBLASLT_MATMUL_DESC_TRANSA));
  p->transb = static_cast<cublasOperation_t>(m.value(CUBLASLT_MATMUL_DESC_TRANSB));
  p->pointer_mode = static_cast<cublasPointerMode_t>(mode);
  p->bias = epilogue == CUBLASLT_EPILOGUE_BIAS;
  p->bias_pointer = static_cast<uint64_t>(m.value(CUBLASLT_MATMUL_DESC_BIAS_POINTER));
  p->bias_stride = m.value(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE);
  // op(A) is m x k, op(B) k x n, C and D m x n, every operand with D's batch count.
  const bool ta = p->transa != CUBLAS_OP_N, tb = p->transb != CUBLAS_OP_N;
  const int rows = p->d.rows, cols = p->d.cols, k = ta ? p->a.rows : p->a.cols;
  if ((ta ? p->a.cols : p->a.rows) != rows || (tb ? p->b.cols : p->b.rows) != k || (tb ? p->b.rows : p->b.cols) != cols ||
      p->c.rows != rows || p->c.cols != cols || p->a.batch != p->d.batch || p->b.batch != p->d.batch ||
      p->c.batch != p->d.batch || (p->bias && !p->bias_pointer))
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

// The address of batch `i` of an operand `stride` elements apart (device addresses are numbers here).
template <typename T>
T* at(const void* base, int64_t i, int64_t stride) {
  return reinterpret_cast<T*>(reinterpret_cast<uintptr_t>(base) + static_cast<uintptr_t>(i * stride * 4));
}

}  // namespace

cublasStatus_t cublasLtCreate(cublasLtHandle_t* lightHandle) {
  if (!lightHandle) return CUBLAS_STATUS_INVALID_VALUE;
  *lightHandle = handles().create();
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle) {
  return handles().destroy(lightHandle) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                              cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t preference, int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                              int* returnAlgoCount) {
  if (!known_handle(lightHandle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  Descriptor pref;
  if (requestedAlgoCount <= 0 || !heuristicResultsArray || !returnAlgoCount ||
      !cublaslt::objects::snapshot(preference, DescKind::kPreference, &pref))
    return CUBLAS_STATUS_INVALID_VALUE;
  *returnAlgoCount = 0;
  Plan plan;
  if (cublasStatus_t st = make_plan(operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &plan); st != CUBLAS_STATUS_SUCCESS)
    return st;
  cublasLtMatmulHeuristicResult_t r{};
  r.algo.data[0] = kEmulatedAlgo;
  r.workspaceSize = 0;
  r.state = CUBLAS_STATUS_SUCCESS;
  r.wavesCount = 1.0f;
  heuristicResultsArray[0] = r;
  *returnAlgoCount = 1;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void* alpha,
                              const void* A, cublasLtMatrixLayout_t Adesc, const void* B,
                              cublasLtMatrixLayout_t Bdesc, const void* beta, const void* C,
                              cublasLtMatrixLayout_t Cdesc, void* D, cublasLtMatrixLayout_t Ddesc,
                              const cublasLtMatmulAlgo_t* algo, void*, size_t, cudaStream_t stream) {
  if (!known_handle(lightHandle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (algo && algo->data[0] != kEmulatedAlgo) return CUBLAS_STATUS_INVALID_VALUE;
  Plan p;
  if (cublasStatus_t st = make_plan(computeDesc, Adesc, Bdesc, Cdesc, Ddesc, &p); st != CUBLAS_STATUS_SUCCESS)
    return st;
  const int k = p.transa != CUBLAS_OP_N ? p.a.rows : p.a.cols;
  for (int i = 0; i < p.d.batch; ++i) {
    SgemmCall g{stream, p.pointer_mode, p.transa, p.transb, p.d.rows, p.d.cols, k,
                static_cast<const float*>(alpha), at<const float>(A, i, p.a.stride), p.a.ld,
                at<const float>(B, i, p.b.stride), p.b.ld, static_cast<const float*>(beta),
                at<const float>(C, i, p.c.stride), p.c.ld, at<float>(D, i, p.d.stride), p.d.ld,
                p.bias ? at<const float>(reinterpret_cast<const void*>(p.bias_pointer), i, p.bias_stride) : nullptr};
    if (cublasStatus_t st = sgemm(g); st != CUBLAS_STATUS_SUCCESS) return st;
  }
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace rgpu::server::emulated
