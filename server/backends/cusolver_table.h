// The generated cuSOLVER table, for the backends that also hold cuBLAS's. cusolverDn.h includes
// cublas_v2.h, which refuses to share a translation unit with cublas.h (the legacy API the cuBLAS
// table declares) and would rename cuBLAS's functions to their _v2 forms by macro. All that
// cusolverDn.h needs of cuBLAS is cublas_api.h, which cublas.h has included: cublas_v2.h is marked
// as included, so it is skipped. Include this after the cuBLAS table.
#pragma once

#include <cublas_api.h>

#if defined(CUBLAS_H_) && !defined(CUBLAS_V2_H_)
#define CUBLAS_V2_H_
#endif

#include "gen/cusolver/cusolver_api.h"
