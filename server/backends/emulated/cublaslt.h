// The emulated cuBLASLt: handles, the descriptors (common/cublaslt's objects, as on the client), a
// heuristic with one deterministic answer, and FP32 matmuls (with the bias epilogue, strided
// batches) on the CPU reference SGEMM. Exactly the signatures of cublasLt.h (checked in
// cublaslt_table.cpp); everything else stays null: CUBLAS_STATUS_NOT_SUPPORTED.
#pragma once

#include <cublasLt.h>

#include "common/cublaslt/lt_objects.h"

namespace rgpu::server::emulated {

// Descriptors: the same objects the client keeps.
using cublaslt::objects::cublasLtMatmulDescCreate;
using cublaslt::objects::cublasLtMatmulDescDestroy;
using cublaslt::objects::cublasLtMatmulDescSetAttribute;
using cublaslt::objects::cublasLtMatmulPreferenceCreate;
using cublaslt::objects::cublasLtMatmulPreferenceDestroy;
using cublaslt::objects::cublasLtMatmulPreferenceSetAttribute;
using cublaslt::objects::cublasLtMatrixLayoutCreate;
using cublaslt::objects::cublasLtMatrixLayoutDestroy;
using cublaslt::objects::cublasLtMatrixLayoutSetAttribute;

// cublaslt_matmul.cpp
cublasStatus_t cublasLtCreate(cublasLtHandle_t* lightHandle);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle);
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                              cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t preference, int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                              int* returnAlgoCount);
cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void* alpha,
                              const void* A, cublasLtMatrixLayout_t Adesc, const void* B,
                              cublasLtMatrixLayout_t Bdesc, const void* beta, const void* C,
                              cublasLtMatrixLayout_t Cdesc, void* D, cublasLtMatrixLayout_t Ddesc,
                              const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspaceSizeInBytes,
                              cudaStream_t stream);

// The name -> entry point table above, as the resolver that load_api takes (cublaslt_table.cpp).
void* resolve_cublasLt(const char* name, void* ctx);

}  // namespace rgpu::server::emulated
