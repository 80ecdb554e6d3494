// The one table of cuDNN backend attribute element sizes (common/wire/cudnn_args.h): what each
// cudnnBackendAttributeType_t occupies in the caller's array and on the wire.
#include <catch2/catch.hpp>

#include "common/wire/cudnn_args.h"

using rgpu::wire::cudnn::backend_element_size;
using rgpu::wire::cudnn::backend_holds_ids;

TEST_CASE("backend attribute elements have the C ABI's sizes") {
  CHECK(backend_element_size(CUDNN_TYPE_HANDLE) == sizeof(cudnnHandle_t));
  CHECK(backend_element_size(CUDNN_TYPE_BACKEND_DESCRIPTOR) == sizeof(cudnnBackendDescriptor_t));
  CHECK(backend_element_size(CUDNN_TYPE_VOID_PTR) == sizeof(void*));
  CHECK(backend_element_size(CUDNN_TYPE_INT64) == sizeof(int64_t));
  CHECK(backend_element_size(CUDNN_TYPE_DOUBLE) == sizeof(double));
  CHECK(backend_element_size(CUDNN_TYPE_FLOAT) == sizeof(float));
  CHECK(backend_element_size(CUDNN_TYPE_INT32) == sizeof(int32_t));
  CHECK(backend_element_size(CUDNN_TYPE_BOOLEAN) == sizeof(bool));
  CHECK(backend_element_size(CUDNN_TYPE_CHAR) == sizeof(char));
  CHECK(backend_element_size(CUDNN_TYPE_FRACTION) == sizeof(cudnnFraction_t));
  CHECK(backend_element_size(CUDNN_TYPE_DATA_TYPE) == sizeof(cudnnDataType_t));
  CHECK(backend_element_size(CUDNN_TYPE_HEUR_MODE) == sizeof(cudnnBackendHeurMode_t));
  CHECK(backend_element_size(CUDNN_TYPE_ATTRIB_NAME) == sizeof(cudnnBackendAttributeName_t));
}

TEST_CASE("every attribute type of the header has a size, and unknown ones none") {
  for (int t = CUDNN_TYPE_HANDLE; t <= CUDNN_TYPE_MOE_GROUPED_MATMUL_MODE; ++t) {
    INFO("type " << t);
    CHECK(backend_element_size(static_cast<cudnnBackendAttributeType_t>(t)) > 0);
  }
  CHECK(backend_element_size(static_cast<cudnnBackendAttributeType_t>(CUDNN_TYPE_MOE_GROUPED_MATMUL_MODE + 1)) == 0);
  CHECK(backend_element_size(static_cast<cudnnBackendAttributeType_t>(-1)) == 0);
}

TEST_CASE("only handles and descriptors travel as ids the server translates") {
  CHECK(backend_holds_ids(CUDNN_TYPE_HANDLE));
  CHECK(backend_holds_ids(CUDNN_TYPE_BACKEND_DESCRIPTOR));
  CHECK_FALSE(backend_holds_ids(CUDNN_TYPE_VOID_PTR));
  CHECK_FALSE(backend_holds_ids(CUDNN_TYPE_INT64));
}
