// cuBLASLt through the libcublasLt.so.13 shim, as PyTorch uses it: per matmul a descriptor, layouts
// and a preference are built, the heuristic picks one algorithm, the matmul runs, all is destroyed.
// FP32, TF32 (CUBLAS_COMPUTE_32F_FAST_TF32), BF16 and FP16 inputs accumulated in FP32, with and
// without the bias epilogue, RELU_BIAS and GELU_BIAS, a transposed A, and a strided batch through
// layout attributes. The data are small integers, so every result but GELU's is exact and checked
// to the last bit against a CPU loop (checksums printed as integers); GELU is checked within a
// tolerance and its checksum printed rounded.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <vector>

#include "suite_check.h"

#define CHECK_BLAS(call) check_blas((call), #call, __LINE__)
inline void check_blas(cublasStatus_t status, const char* call, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    say("FAIL: %s returned %s (line %d)\n", call, cublasLtGetStatusName(status), line);
    exit(1);
  }
}

namespace {

constexpr int kM = 64, kN = 48, kK = 16;  // k small enough that BF16 results stay exact integers
constexpr size_t kWorkspace = 32 << 20;

// Small integers in [-3, 3], different per seed.
std::vector<double> ints(size_t n, int seed) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 5 + i / 11 + size_t(seed) * 3) % 7) - 3.0;
  return v;
}

size_t element_size(cudaDataType t) { return t == CUDA_R_32F ? 4 : 2; }

// Host values as the device bytes of type t, and back.
std::vector<unsigned char> encode(const std::vector<double>& v, cudaDataType t) {
  std::vector<unsigned char> out(v.size() * element_size(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == CUDA_R_32F) reinterpret_cast<float*>(out.data())[i] = static_cast<float>(v[i]);
    if (t == CUDA_R_16F) reinterpret_cast<__half*>(out.data())[i] = __double2half(v[i]);
    if (t == CUDA_R_16BF) reinterpret_cast<__nv_bfloat16*>(out.data())[i] = __double2bfloat16(v[i]);
  }
  return out;
}

std::vector<double> decode(const std::vector<unsigned char>& bytes, cudaDataType t) {
  std::vector<double> out(bytes.size() / element_size(t));
  for (size_t i = 0; i < out.size(); ++i) {
    if (t == CUDA_R_32F) out[i] = reinterpret_cast<const float*>(bytes.data())[i];
    if (t == CUDA_R_16F) out[i] = __half2float(reinterpret_cast<const __half*>(bytes.data())[i]);
    if (t == CUDA_R_16BF) out[i] = __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(bytes.data())[i]);
  }
  return out;
}

double gelu(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

struct Case {
  const char* name;
  cublasComputeType_t compute;
  cudaDataType ab, cd;  // A and B, C and D (and the bias)
  cublasLtEpilogue_t epilogue;
  bool trans_a;
  int batch;
};

// D = epilogue(op(A) * B + C + bias) for each batch, on the CPU.
std::vector<double> reference(const Case& c, const std::vector<double>& a, const std::vector<double>& b,
                              const std::vector<double>& cm, const std::vector<double>& bias) {
  std::vector<double> d(cm.size());
  const bool has_bias = c.epilogue != CUBLASLT_EPILOGUE_DEFAULT;
  for (int s = 0; s < c.batch; ++s)
    for (int j = 0; j < kN; ++j)
      for (int i = 0; i < kM; ++i) {
        double sum = 0;
        for (int l = 0; l < kK; ++l) {
          double x = c.trans_a ? a[s * kM * kK + l + i * kK] : a[s * kM * kK + i + l * kM];
          sum += x * b[s * kK * kN + l + j * kK];
        }
        double v = sum + cm[s * kM * kN + i + j * kM] + (has_bias ? bias[i] : 0);
        if (c.epilogue == CUBLASLT_EPILOGUE_RELU_BIAS) v = v > 0 ? v : 0;
        if (c.epilogue == CUBLASLT_EPILOGUE_GELU_BIAS) v = gelu(v);
        d[s * kM * kN + i + j * kM] = v;
      }
  return d;
}

void set_layout_batch(cublasLtMatrixLayout_t layout, int batch, int64_t stride) {
  CHECK_BLAS(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
  CHECK_BLAS(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                              sizeof stride));
}

void run(cublasLtHandle_t lt, void* workspace, cudaStream_t stream, const Case& c, int seed) {
  const std::vector<double> a = ints(size_t(c.batch) * kM * kK, seed), b = ints(size_t(c.batch) * kK * kN, seed + 1),
                            cm = ints(size_t(c.batch) * kM * kN, seed + 2), bias = ints(kM, seed + 3);
  void* da = to_device(encode(a, c.ab));
  void* db = to_device(encode(b, c.ab));
  void* dc = to_device(encode(cm, c.cd));
  void* dbias = to_device(encode(bias, c.cd));
  void* dd = nullptr;
  CHECK_CUDA(cudaMalloc(&dd, cm.size() * element_size(c.cd)));

  cublasLtMatmulDesc_t desc;
  CHECK_BLAS(cublasLtMatmulDescCreate(&desc, c.compute, CUDA_R_32F));
  cublasOperation_t ta = c.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = CUBLAS_OP_N;
  CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &c.epilogue, sizeof c.epilogue));
  if (c.epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
    CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof dbias));
    CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &c.cd, sizeof c.cd));
  }
  cublasLtMatrixLayout_t la, lb, lc;
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&la, c.ab, c.trans_a ? kK : kM, c.trans_a ? kM : kK, c.trans_a ? kK : kM));
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&lb, c.ab, kK, kN, kK));
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&lc, c.cd, kM, kN, kM));
  if (c.batch > 1) {
    set_layout_batch(la, c.batch, int64_t(kM) * kK);
    set_layout_batch(lb, c.batch, int64_t(kK) * kN);
    set_layout_batch(lc, c.batch, int64_t(kM) * kN);
  }
  cublasLtMatmulPreference_t pref;
  CHECK_BLAS(cublasLtMatmulPreferenceCreate(&pref));
  uint64_t max_workspace = kWorkspace;
  CHECK_BLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace,
                                                  sizeof max_workspace));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  CHECK_BLAS(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &result, &found));
  if (found == 1) {
    const float alpha = 1.0f, beta = 1.0f;  // integers stay integers, |D| < 256: exact in BF16
    CHECK_BLAS(cublasLtMatmul(lt, desc, &alpha, da, la, db, lb, &beta, dc, lc, dd, lc, &result.algo, workspace,
                              kWorkspace, stream));
    std::vector<unsigned char> bytes(cm.size() * element_size(c.cd));
    CHECK_CUDA(cudaMemcpyAsync(bytes.data(), dd, bytes.size(), cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    const std::vector<double> got = decode(bytes, c.cd), want = reference(c, a, b, cm, bias);
    double max_error = 0, checksum = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      max_error = std::fmax(max_error, std::fabs(got[i] - want[i]));
      checksum += got[i];
    }
    if (c.epilogue == CUBLASLT_EPILOGUE_GELU_BIAS) {
      // The library's GELU is an approximation of its own: within 1 % of the largest value.
      say("%s: checksum about %.0f\n", c.name, std::round(checksum / 10) * 10);
      expect(max_error < 0.5, c.name);
    } else {
      say("%s: checksum %.0f, max abs error %g\n", c.name, checksum, max_error);
      expect(max_error == 0, c.name);
    }
  } else {
    say("%s: no algorithm found\n", c.name);
    expect(false, c.name);
  }
  CHECK_BLAS(cublasLtMatmulPreferenceDestroy(pref));
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(la));
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(lb));
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(lc));
  CHECK_BLAS(cublasLtMatmulDescDestroy(desc));
  for (void* p : {da, db, dc, dbias, dd}) CHECK_CUDA(cudaFree(p));
}

}  // namespace

int main() {
  cublasLtHandle_t lt;
  CHECK_BLAS(cublasLtCreate(&lt));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  void* workspace = nullptr;
  CHECK_CUDA(cudaMalloc(&workspace, kWorkspace));

  const Case cases[] = {
      {"fp32", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUBLASLT_EPILOGUE_DEFAULT, false, 1},
      {"fp32 bias", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUBLASLT_EPILOGUE_BIAS, false, 1},
      {"fp32 transposed A bias", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUBLASLT_EPILOGUE_BIAS, true, 1},
      {"tf32", CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUDA_R_32F, CUBLASLT_EPILOGUE_DEFAULT, false, 1},
      {"tf32 bias", CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUDA_R_32F, CUBLASLT_EPILOGUE_BIAS, false, 1},
      {"bf16 in, fp32 accumulate", CUBLAS_COMPUTE_32F, CUDA_R_16BF, CUDA_R_16BF, CUBLASLT_EPILOGUE_DEFAULT, false, 1},
      {"bf16 bias", CUBLAS_COMPUTE_32F, CUDA_R_16BF, CUDA_R_16BF, CUBLASLT_EPILOGUE_BIAS, false, 1},
      {"fp16 in, fp32 accumulate", CUBLAS_COMPUTE_32F, CUDA_R_16F, CUDA_R_16F, CUBLASLT_EPILOGUE_DEFAULT, false, 1},
      {"fp16 bias", CUBLAS_COMPUTE_32F, CUDA_R_16F, CUDA_R_16F, CUBLASLT_EPILOGUE_BIAS, false, 1},
      {"fp32 relu bias", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUBLASLT_EPILOGUE_RELU_BIAS, false, 1},
      {"fp16 gelu bias", CUBLAS_COMPUTE_32F, CUDA_R_16F, CUDA_R_16F, CUBLASLT_EPILOGUE_GELU_BIAS, false, 1},
      {"fp32 strided batch x3 bias", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUBLASLT_EPILOGUE_BIAS, false, 3},
      {"bf16 strided batch x3", CUBLAS_COMPUTE_32F, CUDA_R_16BF, CUDA_R_16BF, CUBLASLT_EPILOGUE_DEFAULT, false, 3},
  };
  int seed = 0;
  for (const Case& c : cases) run(lt, workspace, stream, c, seed++);

  // The same matmul again: PyTorch's steady state (remotely: no heuristic round trip, cached).
  run(lt, workspace, stream, cases[1], 1);

  CHECK_CUDA(cudaFree(workspace));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_BLAS(cublasLtDestroy(lt));
  return finish("25_cublaslt");
}
