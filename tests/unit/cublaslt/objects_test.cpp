// The cublasLt.h descriptor functions over the registry: creation, initialization in caller
// storage, attributes through the opaque pointers, refusal of unknown pointers.
#include <catch2/catch.hpp>

#include "common/cublaslt/lt_objects.h"

namespace obj = rgpu::cublaslt::objects;

TEST_CASE("created descriptors answer their creation parameters and are destroyed once") {
  cublasLtMatrixLayout_t layout = nullptr;
  REQUIRE(obj::cublasLtMatrixLayoutCreate(&layout, CUDA_R_16BF, 64, 32, 128) == CUBLAS_STATUS_SUCCESS);
  uint64_t cols = 0;
  uint32_t type = 0;
  int64_t ld = 0;
  CHECK(obj::cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_COLS, &cols, sizeof cols, nullptr) ==
        CUBLAS_STATUS_SUCCESS);
  CHECK(obj::cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_TYPE, &type, sizeof type, nullptr) ==
        CUBLAS_STATUS_SUCCESS);
  CHECK(obj::cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_LD, &ld, sizeof ld, nullptr) ==
        CUBLAS_STATUS_SUCCESS);
  CHECK(cols == 32);
  CHECK(type == CUDA_R_16BF);
  CHECK(ld == 128);
  CHECK(obj::cublasLtMatrixLayoutDestroy(layout) == CUBLAS_STATUS_SUCCESS);
  CHECK(obj::cublasLtMatrixLayoutDestroy(layout) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(obj::cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_COLS, &cols, sizeof cols, nullptr) ==
        CUBLAS_STATUS_INVALID_VALUE);
  CHECK(obj::cublasLtMatrixLayoutDestroy(nullptr) == CUBLAS_STATUS_SUCCESS);
  CHECK(obj::cublasLtMatrixLayoutCreate(nullptr, CUDA_R_32F, 1, 1, 1) == CUBLAS_STATUS_INVALID_VALUE);
}

TEST_CASE("a descriptor of one kind is not one of another") {
  cublasLtMatmulPreference_t pref = nullptr;
  REQUIRE(obj::cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS);
  int32_t op = CUBLAS_OP_T;
  auto* as_desc = reinterpret_cast<cublasLtMatmulDesc_t>(pref);
  CHECK(obj::cublasLtMatmulDescSetAttribute(as_desc, CUBLASLT_MATMUL_DESC_TRANSA, &op, sizeof op) ==
        CUBLAS_STATUS_INVALID_VALUE);
  rgpu::cublaslt::Descriptor d;
  CHECK_FALSE(obj::snapshot(pref, rgpu::cublaslt::DescKind::kMatmul, &d));
  CHECK(obj::snapshot(pref, rgpu::cublaslt::DescKind::kPreference, &d));
  CHECK(obj::cublasLtMatmulPreferenceDestroy(pref) == CUBLAS_STATUS_SUCCESS);
}

TEST_CASE("initialized descriptors live in the caller's storage of the library's size") {
  cublasLtMatmulDescOpaque_t storage;
  CHECK(obj::cublasLtMatmulDescInit_internal(&storage, sizeof storage - 1, CUBLAS_COMPUTE_32F, CUDA_R_32F) ==
        CUBLAS_STATUS_INVALID_VALUE);
  REQUIRE(obj::cublasLtMatmulDescInit_internal(&storage, sizeof storage, CUBLAS_COMPUTE_64F, CUDA_R_64F) ==
          CUBLAS_STATUS_SUCCESS);
  int32_t scale = 0;
  CHECK(obj::cublasLtMatmulDescGetAttribute(&storage, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale, sizeof scale, nullptr) ==
        CUBLAS_STATUS_SUCCESS);
  CHECK(scale == CUDA_R_64F);
  // Initializing again starts over.
  int32_t op = CUBLAS_OP_T;
  REQUIRE(obj::cublasLtMatmulDescSetAttribute(&storage, CUBLASLT_MATMUL_DESC_TRANSB, &op, sizeof op) ==
          CUBLAS_STATUS_SUCCESS);
  REQUIRE(obj::cublasLtMatmulDescInit_internal(&storage, sizeof storage, CUBLAS_COMPUTE_32F, CUDA_R_32F) ==
          CUBLAS_STATUS_SUCCESS);
  CHECK(obj::cublasLtMatmulDescGetAttribute(&storage, CUBLASLT_MATMUL_DESC_TRANSB, &op, sizeof op, nullptr) ==
        CUBLAS_STATUS_SUCCESS);
  CHECK(op == CUBLAS_OP_N);
  CHECK(obj::cublasLtMatmulDescDestroy(&storage) == CUBLAS_STATUS_SUCCESS);
}

TEST_CASE("unknown pointers are refused, never read") {
  uint64_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  auto* p = reinterpret_cast<cublasLtMatmulPreference_t>(junk);
  uint64_t v = 0;
  CHECK(obj::cublasLtMatmulPreferenceGetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &v, sizeof v,
                                                  nullptr) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(obj::cublasLtMatmulPreferenceDestroy(p) == CUBLAS_STATUS_INVALID_VALUE);
}
