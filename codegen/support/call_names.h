// The name of a call by its wire id, whichever forwarded library (or rgpu's own internal calls) owns
// it: for the client's traced waits (RGPU_TRACE_WAITS) and rgpud's call profile (RGPU_CALL_PROFILE).
#pragma once

#include <cstdint>

#include "common/wire/internal_calls.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cublasLt/cublasLt_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/cufft/cufft_ids.h"
#include "gen/curand/curand_ids.h"
#include "gen/cusolver/cusolver_ids.h"
#include "gen/cusparse/cusparse_ids.h"
#include "gen/nvml/nvml_ids.h"

namespace rgpu::gen {

inline const char* any_call_name(uint32_t id) {
  if (cublas::has_call(id)) return cublas::call_name(id);
  if (cublasLt::has_call(id)) return cublasLt::call_name(id);
  if (cudnn::has_call(id)) return cudnn::call_name(id);
  if (nvml::has_call(id)) return nvml::call_name(id);
  if (curand::has_call(id)) return curand::call_name(id);
  if (cufft::has_call(id)) return cufft::call_name(id);
  if (cusparse::has_call(id)) return cusparse::call_name(id);
  if (cusolver::has_call(id)) return cusolver::call_name(id);
  if (const char* internal = wire::internal_call_name(id)) return internal;
  return cudart::call_name(id);
}

}  // namespace rgpu::gen
