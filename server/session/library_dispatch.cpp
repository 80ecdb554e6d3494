// Library routing: call ids are FNV-1a hashes of function names, distinct across libraries (the
// test of each spec checks its ids against the others), so the id alone says the library.
#include "server/session/library_dispatch.h"

#include "gen/cublas/cublas_handlers.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cublasLt/cublasLt_handlers.h"
#include "gen/cublasLt/cublasLt_ids.h"
#include "gen/cudart/cudart_handlers.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/cufft/cufft_handlers.h"
#include "gen/cufft/cufft_ids.h"
#include "gen/curand/curand_handlers.h"
#include "gen/curand/curand_ids.h"
#include "gen/cusolver/cusolver_handlers.h"
#include "gen/cusolver/cusolver_ids.h"
#include "gen/cusparse/cusparse_handlers.h"
#include "gen/cusparse/cusparse_ids.h"
#include "gen/nvml/nvml_handlers.h"
#include "gen/nvml/nvml_ids.h"
#include "server/backends/backend.h"

namespace rgpu::server {

bool dispatch_library(Backend& backend, CallContext& ctx, uint32_t id, wire::Decoder& in, wire::Encoder& out,
                      int32_t& status) {
  if (gen::cublas::has_call(id)) {
    backend.load_cublas();
    return gen::cublas::dispatch(ctx, id, in, out, status);
  }
  if (gen::cublasLt::has_call(id)) {
    backend.load_cublasLt();
    return gen::cublasLt::dispatch(ctx, id, in, out, status);
  }
  if (gen::nvml::has_call(id)) {
    backend.load_nvml();
    ctx.nvml = &backend.nvml();
    return gen::nvml::dispatch(ctx, id, in, out, status);
  }
  if (gen::cudnn::has_call(id)) {
    backend.load_cudnn();  // before the call: ctx.cudnn is the backend's table, filled by the first load
    return gen::cudnn::dispatch(ctx, id, in, out, status);
  }
  if (gen::curand::has_call(id)) {
    backend.load_curand();  // before the call: ctx.curand is the backend's table, filled by the first load
    return gen::curand::dispatch(ctx, id, in, out, status);
  }
  if (gen::cufft::has_call(id)) {
    backend.load_cufft();  // before the call: ctx.cufft is the backend's table, filled by the first load
    return gen::cufft::dispatch(ctx, id, in, out, status);
  }
  if (gen::cusparse::has_call(id)) {
    backend.load_cusparse();  // before the call: ctx.cusparse is the backend's table, filled by the first load
    return gen::cusparse::dispatch(ctx, id, in, out, status);
  }
  if (gen::cusolver::has_call(id)) {
    backend.load_cusolver();  // before the call: ctx.cusolver is the backend's table, filled by the first load
    return gen::cusolver::dispatch(ctx, id, in, out, status);
  }
  return gen::cudart::dispatch(ctx, id, in, out, status);
}

bool allocates_inside_library(uint32_t id) {
  using namespace gen;
  switch (id) {
    case cublas::k_cublasCreate_v2:
    case cublasLt::k_cublasLtCreate:
    case cudnn::k_cudnnCreate:
    case curand::k_curandCreateGenerator:
    // A cuFFT plan takes its work area when it is made (unless auto-allocation is off).
    case cufft::k_cufftPlan1d:
    case cufft::k_cufftPlan2d:
    case cufft::k_cufftPlan3d:
    case cufft::k_cufftPlanMany:
    case cufft::k_cufftMakePlan1d:
    case cufft::k_cufftMakePlan2d:
    case cufft::k_cufftMakePlan3d:
    case cufft::k_cufftMakePlanMany:
    case cufft::k_cufftMakePlanMany64:
    case cufft::k_cufftXtMakePlanMany:
    case cufft::k_cufftXtMalloc:  // a descriptor's buffers
    // A cuSPARSE handle takes device memory of its own, and an SpMMOp plan its compiled kernels.
    case cusparse::k_cusparseCreate:
    case cusparse::k_cusparseSpMMOp_createPlan:
    // cuSOLVER's handles take device memory of their own (and a cuBLAS handle inside the dense one).
    case cusolver::k_cusolverDnCreate:
    case cusolver::k_cusolverSpCreate:
    case cusolver::k_cusolverRfCreate:
      return true;
    default:
      return false;
  }
}

}  // namespace rgpu::server
