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
  for (int32_t t = CUDNN_TYPE_HANDLE; t <= CUDNN_TYPE_MOE_GROUPED_MATMUL_MODE; ++t) {
    INFO("type " << t);
    CHECK(backend_element_size(t) > 0);
  }
  CHECK(backend_element_size(CUDNN_TYPE_MOE_GROUPED_MATMUL_MODE + 1) == 0);
  CHECK(backend_element_size(-1) == 0);
  CHECK(backend_element_size(999) == 0);
}

TEST_CASE("only handles and descriptors travel as ids the server translates") {
  CHECK(backend_holds_ids(CUDNN_TYPE_HANDLE));
  CHECK(backend_holds_ids(CUDNN_TYPE_BACKEND_DESCRIPTOR));
  CHECK_FALSE(backend_holds_ids(CUDNN_TYPE_VOID_PTR));
  CHECK_FALSE(backend_holds_ids(CUDNN_TYPE_INT64));
}

TEST_CASE("records with enum values outside their enums are not valid") {
  rgpu::wire::cudnn::ActivationRecord a{CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0, 0};
  CHECK(rgpu::wire::cudnn::valid(a));
  a.mode = 12345;
  CHECK_FALSE(rgpu::wire::cudnn::valid(a));
  rgpu::wire::cudnn::TensorRecord t{};
  t.nb_dims = 4;
  CHECK(rgpu::wire::cudnn::valid(t));
  t.data_type = -1;
  CHECK_FALSE(rgpu::wire::cudnn::valid(t));
}
