// The real cuDNN spec on the real cuDNN 9.19 headers, and the libcudnn.so.9 shim built from it:
// every export accounted for and versioned, call ids apart from the other libraries', and the
// shim's link to the libcudart.so.13 shim's runtime (one call pipe).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "codegen_runner.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/nvml/nvml_ids.h"
#include "tests/codegen/shim_checks.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_CUDNN_EXPORTS));
  return e;
}

}  // namespace

TEST_CASE("the exports list is libcudnn.so.9's 224 functions") { CHECK(exports().size() == 224); }

TEST_CASE("the cuDNN coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUDNN_COVERAGE);
  CHECK(rgpu::test::names_of(rows) == exports());
  CHECK_THAT(read_file(RGPU_CUDNN_COVERAGE), Catch::Contains("| total | 224 |"));
  CHECK(rows.at("cudnnCreate").category == "hand-written async");
  CHECK(rows.at("cudnnGetStream").category == "local");
  CHECK(rows.at("cudnnSetTensorNdDescriptor").category == "local");
  CHECK(rows.at("cudnnBackendSetAttribute").category == "hand-written async");
  CHECK(rows.at("cudnnBackendExecute").category == "hand-written async");
  CHECK(rows.at("cudnnBackendFinalize").category == "hand-written sync");  // variant packs: async at run time
  CHECK(rows.at("cudnnBatchNormalizationForwardTrainingEx").category == "hand-written async");
  CHECK(rows.at("cudnnGetBatchNormalizationTrainingExReserveSpaceSize").category == "hand-written sync");
  // The legacy ops' descriptors are generated client ids; their compute is hand-written.
  CHECK(rows.at("cudnnCreatePoolingDescriptor").category == "forwarded async");
  CHECK(rows.at("cudnnSetPoolingNdDescriptor").category == "forwarded async");
  CHECK(rows.at("cudnnGetPooling2dDescriptor").category == "forwarded sync");
  CHECK(rows.at("cudnnPoolingForward").category == "hand-written async");
  CHECK(rows.at("cudnnGetReductionWorkspaceSize").category == "hand-written sync");
  CHECK(rows.at("cudnnSetCallback").category == "local");
  CHECK(rows.at("cudnnGetBackdoor").category == "unsupported");
  CHECK(rows.at("cudnnRNNForward").category == "hand-written async");
  CHECK(rows.at("cudnnGetRNNWeightParams").category == "hand-written sync");
  CHECK(rows.at("cudnnSetDropoutDescriptor").category == "hand-written async");  // a forwarder and a mirror
  CHECK(rows.at("cudnnSetRNNDataDescriptor").category == "hand-written async");  // likewise
  CHECK(rows.at("cudnnSetAttnDescriptor").category == "hand-written async");     // likewise
  CHECK(rows.at("cudnnRNNSetClip_v8").category == "forwarded async");           // descriptor ids
  CHECK(rows.at("cudnnGetRNNDescriptor_v8").category == "local");             // a client-side mirror
  CHECK(rows.at("cudnnCreateDropoutDescriptor").category == "forwarded async");
  CHECK(rows.at("cudnnGetRNNWeightSpaceSize").category == "hand-written sync");  // cached by settings
  CHECK(rows.at("cudnnGetRNNTempSpaceSizes").category == "hand-written sync");   // likewise
  CHECK(rows.at("cudnnMultiHeadAttnForward").category == "hand-written async");
  CHECK(rows.at("cudnnGetRNNDropoutLocationsInternal").category == "unsupported");  // no header declares it
}

TEST_CASE("every cuDNN export is in the version script under libcudnn.so.9") {
  rgpu::test::check_version_script(RGPU_CUDNN_MAP, "libcudnn.so.9", exports());
}

TEST_CASE("cuDNN call ids are apart from the other libraries', so one id names one library") {
  for (uint32_t id : rgpu::gen::cudnn::kCallIds) {
    INFO(rgpu::gen::cudnn::call_name(id));
    CHECK_FALSE(rgpu::gen::cudart::has_call(id));
    CHECK_FALSE(rgpu::gen::cublas::has_call(id));
    CHECK_FALSE(rgpu::gen::nvml::has_call(id));
  }
}

TEST_CASE("the libcudnn.so.9 shim exports exactly the real library's functions, versioned") {
  rgpu::test::check_versioned_exports(RGPU_CUDNN_SHIM, "libcudnn.so.9", exports());
}

TEST_CASE("the libcudnn.so.9 shim runs on the libcudart.so.13 shim's runtime") {
  rgpu::test::check_on_cudart_shim(RGPU_CUDNN_SHIM);
}
