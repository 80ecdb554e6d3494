// cuBLASLt through the shim against rgpud --emulate (whose cuBLASLt computes FP32 matmuls on a CPU
// reference): matmuls with and without the bias epilogue, transposed and strided-batched, checked
// against a host loop; a cuBLAS handle used as a cuBLASLt handle (as PyTorch does); descriptor
// attributes read back; the not-supported answers. Prints "ok: ..." per check and "ok: cublaslt_tour" last.
//
// `cublaslt_tour loop N` does what PyTorch does per GEMM, N times: build a matmul descriptor, three
// layouts and a preference, ask the heuristic for one algorithm, run the matmul, destroy them all;
// then one copy back and a check. Run with RGPU_STATS=1, its round trips must not depend on N.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tour_checks.h"

#define CHECK_BLAS(x) CHECK_STATUS(#x, x, CUBLAS_STATUS_SUCCESS, cublasLtGetStatusName)

namespace {

constexpr int kM = 5, kN = 4, kK = 3;

// D = alpha * op(A) * op(B) + beta * C (+ bias per row), column-major, on the host.
std::vector<float> reference(bool ta, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
                             int ldb, float beta, const float* c, const float* bias) {
  std::vector<float> d(size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      float sum = 0;
      for (int l = 0; l < k; ++l) sum += (ta ? a[l + i * lda] : a[i + l * lda]) * b[l + j * ldb];
      d[i + j * m] = alpha * sum + beta * c[i + j * m] + (bias ? bias[i] : 0.0f);
    }
  return d;
}

float max_abs_diff(const std::vector<float>& x, const std::vector<float>& y) {
  float d = 0;
  for (size_t i = 0; i < x.size(); ++i) d = std::fmax(d, std::fabs(x[i] - y[i]));
  return d;
}

std::vector<float> filled(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * float(int(i % 7) - 3);
  return v;
}

struct Device {
  float *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr, *bias = nullptr;
};

// One matmul as PyTorch's gemm_and_bias builds it: descriptors made, used and destroyed. `batch`
// operands are `stride` elements apart.
int matmul(cublasLtHandle_t lt, const Device& m, bool trans_a, bool with_bias, int batch, float alpha, float beta,
           cudaStream_t stream) {
  cublasLtMatmulDesc_t desc;
  CHECK_BLAS(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t ta = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = CUBLAS_OP_N;
  CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  if (with_bias) {
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    cudaDataType_t bias_type = CUDA_R_32F;
    CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &m.bias, sizeof m.bias));
    CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
  }
  cublasLtMatrixLayout_t la, lb, lc;
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, trans_a ? kK : kM, trans_a ? kM : kK, trans_a ? kK : kM));
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, kK, kN, kK));
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, kM, kN, kM));
  if (batch > 1) {
    int64_t sa = kM * kK, sb = kK * kN, sc = kM * kN;
    for (auto [l, stride] : {std::pair{la, &sa}, {lb, &sb}, {lc, &sc}}) {
      CHECK_BLAS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
      CHECK_BLAS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, stride, sizeof *stride));
    }
  }
  cublasLtMatmulPreference_t pref;
  CHECK_BLAS(cublasLtMatmulPreferenceCreate(&pref));
  uint64_t workspace = 1 << 20;
  uint32_t align = 16;
  CHECK_BLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                  sizeof workspace));
  for (auto attr : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
    CHECK_BLAS(cublasLtMatmulPreferenceSetAttribute(pref, attr, &align, sizeof align));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  CHECK_BLAS(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &result, &found));
  if (found != 1 || result.state != CUBLAS_STATUS_SUCCESS) return std::printf("FAIL heuristic found %d\n", found), 1;
  CHECK_BLAS(cublasLtMatmul(lt, desc, &alpha, m.a, la, m.b, lb, &beta, m.c, lc, m.d, lc, &result.algo, nullptr, 0,
                            stream));
  CHECK_BLAS(cublasLtMatmulPreferenceDestroy(pref));
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(la));
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(lb));
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(lc));
  CHECK_BLAS(cublasLtMatmulDescDestroy(desc));
  return 0;
}

// Operands for up to two batches, on the host and on the device.
struct Operands {
  std::vector<float> a = filled(2 * kM * kK, 0.5f), b = filled(2 * kK * kN, 0.25f), c = filled(2 * kM * kN, 1.0f),
                     bias = filled(kM, 2.0f);
  Device dev;
  int upload() {
    CHECK_CUDA(cudaMalloc(&dev.a, a.size() * 4));
    CHECK_CUDA(cudaMalloc(&dev.b, b.size() * 4));
    CHECK_CUDA(cudaMalloc(&dev.c, c.size() * 4));
    CHECK_CUDA(cudaMalloc(&dev.d, c.size() * 4));
    CHECK_CUDA(cudaMalloc(&dev.bias, bias.size() * 4));
    CHECK_CUDA(cudaMemcpy(dev.a, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dev.b, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dev.c, c.data(), c.size() * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dev.bias, bias.data(), bias.size() * 4, cudaMemcpyHostToDevice));
    return 0;
  }
  // D of batch `i` against the host reference.
  float error(const std::vector<float>& d, int i, bool ta, bool with_bias, float alpha, float beta) const {
    std::vector<float> want = reference(ta, kM, kN, kK, alpha, a.data() + i * kM * kK, ta ? kK : kM,
                                        b.data() + i * kK * kN, kK, beta, c.data() + i * kM * kN,
                                        with_bias ? bias.data() : nullptr);
    std::vector<float> got(d.begin() + i * kM * kN, d.begin() + (i + 1) * kM * kN);
    return max_abs_diff(got, want);
  }
};

int loop(int iterations) {
  cublasLtHandle_t lt;
  CHECK_BLAS(cublasLtCreate(&lt));
  Operands o;
  if (o.upload()) return 1;
  for (int i = 0; i < iterations; ++i)
    if (matmul(lt, o.dev, false, true, 1, 1.0f, 0.5f, nullptr)) return 1;
  std::vector<float> d(2 * kM * kN);
  CHECK_CUDA(cudaMemcpy(d.data(), o.dev.d, d.size() * 4, cudaMemcpyDeviceToHost));
  if (o.error(d, 0, false, true, 1.0f, 0.5f) > 1e-4f) return std::printf("FAIL loop result\n"), 1;
  CHECK_BLAS(cublasLtDestroy(lt));
  std::printf("ok: cublaslt_tour loop\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && !std::strcmp(argv[1], "loop")) return loop(std::atoi(argv[2]));

  EXPECT(cublasLtGetVersion() == CUBLAS_VERSION, "cublasLtGetVersion answers the headers' version");

  // Descriptor attributes come back as set, defaults as documented, wrong sizes are refused.
  cublasLtMatmulDesc_t desc;
  CHECK_BLAS(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F));
  int32_t compute = 0;
  size_t written = 0;
  CHECK_BLAS(cublasLtMatmulDescGetAttribute(desc, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &compute, sizeof compute, &written));
  EXPECT(compute == CUBLAS_COMPUTE_32F_FAST_TF32 && written == 4, "the compute type reads back");
  uint32_t epilogue = 0;
  CHECK_BLAS(cublasLtMatmulDescGetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue, nullptr));
  EXPECT(epilogue == CUBLASLT_EPILOGUE_DEFAULT, "the epilogue defaults to CUBLASLT_EPILOGUE_DEFAULT");
  int64_t wrong = 0;
  EXPECT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &wrong, sizeof wrong) ==
             CUBLAS_STATUS_INVALID_VALUE,
         "a wrong attribute size is CUBLAS_STATUS_INVALID_VALUE");
  CHECK_BLAS(cublasLtMatmulDescDestroy(desc));

  cublasLtHandle_t lt;
  CHECK_BLAS(cublasLtCreate(&lt));
  Operands o;
  if (o.upload()) return 1;
  std::vector<float> d(2 * kM * kN);
  struct Case {
    const char* name;
    bool ta, bias;
    int batch;
  };
  for (Case c : {Case{"FP32 matmul", false, false, 1}, Case{"FP32 matmul with the bias epilogue", false, true, 1},
                 Case{"FP32 matmul of a transposed A", true, false, 1},
                 Case{"FP32 strided-batched matmul with bias", false, true, 2}}) {
    if (matmul(lt, o.dev, c.ta, c.bias, c.batch, 1.5f, 0.5f, nullptr)) return 1;
    CHECK_CUDA(cudaMemcpy(d.data(), o.dev.d, d.size() * 4, cudaMemcpyDeviceToHost));
    float err = 0;
    for (int i = 0; i < c.batch; ++i) err = std::fmax(err, o.error(d, i, c.ta, c.bias, 1.5f, 0.5f));
    EXPECT(err < 1e-4f, c.name);
  }

  // PyTorch passes its cuBLAS handle where a cuBLASLt handle goes.
  cublasHandle_t blas;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) return std::printf("FAIL cublasCreate\n"), 1;
  CHECK_CUDA(cudaMemset(o.dev.d, 0, d.size() * 4));
  if (matmul(reinterpret_cast<cublasLtHandle_t>(blas), o.dev, false, true, 1, 1.0f, 0.0f, nullptr)) return 1;
  CHECK_CUDA(cudaMemcpy(d.data(), o.dev.d, d.size() * 4, cudaMemcpyDeviceToHost));
  EXPECT(o.error(d, 0, false, true, 1.0f, 0.0f) < 1e-4f, "a cuBLAS handle serves as a cuBLASLt handle");
  cublasDestroy(blas);

  EXPECT(cublasLtMatrixTransform(lt, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                 nullptr) == CUBLAS_STATUS_NOT_SUPPORTED,
         "an unforwarded cuBLASLt function answers CUBLAS_STATUS_NOT_SUPPORTED");
  CHECK_BLAS(cublasLtDestroy(lt));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("ok: cublaslt_tour\n");
  return 0;
}
