// The real cuRAND spec on the real CUDA 13 headers, and the libcurand.so.10 shim built from it:
// every export accounted for and versioned, call ids apart from the other libraries', and the
// shim's link to the libcudart.so.13 shim's runtime (one call pipe).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "codegen_runner.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cublasLt/cublasLt_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/curand/curand_ids.h"
#include "gen/nvml/nvml_ids.h"
#include "tests/codegen/shim_checks.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_CURAND_EXPORTS));
  return e;
}

}  // namespace

TEST_CASE("the exports list is libcurand.so.10's 27 functions") { CHECK(exports().size() == 27); }

TEST_CASE("the cuRAND coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_CURAND_COVERAGE);
  CHECK(rgpu::test::names_of(rows) == exports());
  CHECK_THAT(read_file(RGPU_CURAND_COVERAGE), Catch::Contains("| total | 27 |"));
  CHECK_THAT(read_file(RGPU_CURAND_COVERAGE), Catch::Contains("| unsupported | 1 |"));
  CHECK(rows.at("curandCreateGenerator").category == "forwarded sync");  // its failures are checked at once
  CHECK(rows.at("curandGenerateNormal").category == "forwarded async");  // into device memory, in its stream
  CHECK(rows.at("curandSetStream").category == "forwarded async");
  CHECK(rows.at("curandCreateGeneratorHost").category == "unsupported");  // numbers in host memory
  CHECK(rows.at("curandGetDirectionVectors32").category == "hand-written sync");  // copied once
  CHECK(rows.at("curandGetDirectionVectors32").client == "tables.cpp");
}

TEST_CASE("every cuRAND export is in the version script under libcurand.so.10") {
  rgpu::test::check_version_script(RGPU_CURAND_MAP, "libcurand.so.10", exports());
}

TEST_CASE("cuRAND call ids are apart from the other libraries', so one id names one library") {
  for (uint32_t id : rgpu::gen::curand::kCallIds) {
    INFO(rgpu::gen::curand::call_name(id));
    CHECK_FALSE(rgpu::gen::cudart::has_call(id));
    CHECK_FALSE(rgpu::gen::cublas::has_call(id));
    CHECK_FALSE(rgpu::gen::cublasLt::has_call(id));
    CHECK_FALSE(rgpu::gen::nvml::has_call(id));
    CHECK_FALSE(rgpu::gen::cudnn::has_call(id));
  }
  CHECK(rgpu::gen::curand::has_call(rgpu::gen::curand::k_curandGenerateUniform));
}

TEST_CASE("the libcurand.so.10 shim exports exactly the real library's functions, versioned") {
  rgpu::test::check_versioned_exports(RGPU_CURAND_SHIM, "libcurand.so.10", exports());
}

TEST_CASE("the libcurand.so.10 shim runs on the libcudart.so.13 shim's runtime") {
  rgpu::test::check_on_cudart_shim(RGPU_CURAND_SHIM);
}
