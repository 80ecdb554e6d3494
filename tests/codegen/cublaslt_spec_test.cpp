// The real cuBLASLt spec on the real CUDA 13 headers, and the libcublasLt.so.13 shim built from it:
// every export accounted for and versioned, call ids apart from the other libraries', and the
// shim's link to the libcudart.so.13 shim's runtime (one call pipe).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "codegen_runner.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cublasLt/cublasLt_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/nvml/nvml_ids.h"
#include "tests/codegen/shim_checks.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_CUBLASLT_EXPORTS));
  return e;
}

}  // namespace

TEST_CASE("the exports list is libcublasLt.so.13's 184 functions") { CHECK(exports().size() == 184); }

TEST_CASE("the cuBLASLt coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUBLASLT_COVERAGE);
  CHECK(rgpu::test::names_of(rows) == exports());
  CHECK_THAT(read_file(RGPU_CUBLASLT_COVERAGE), Catch::Contains("| total | 184 |"));
  CHECK(rows.at("cublasLtCreate").category == "forwarded async");
  CHECK(rows.at("cublasLtMatmul").category == "hand-written async");
  CHECK(rows.at("cublasLtMatmulAlgoGetHeuristic").category == "hand-written sync");
  CHECK(rows.at("cublasLtMatmulDescSetAttribute").category == "local");
  CHECK(rows.at("cublasLtMatrixLayoutCreate").category == "local");
  CHECK(rows.at("cublasLtMatmulPreferenceInit_internal").category == "local");
  CHECK(rows.at("cublasLtSSSMatmul").category == "unsupported");  // the library's internals
}

TEST_CASE("every cuBLASLt export is in the version script under libcublasLt.so.13") {
  rgpu::test::check_version_script(RGPU_CUBLASLT_MAP, "libcublasLt.so.13", exports());
}

TEST_CASE("cuBLASLt call ids are apart from the other libraries', so one id names one library") {
  for (uint32_t id : rgpu::gen::cublasLt::kCallIds) {
    INFO(rgpu::gen::cublasLt::call_name(id));
    CHECK_FALSE(rgpu::gen::cudart::has_call(id));
    CHECK_FALSE(rgpu::gen::cublas::has_call(id));
    CHECK_FALSE(rgpu::gen::nvml::has_call(id));
  }
  CHECK(rgpu::gen::cublasLt::has_call(rgpu::gen::cublasLt::k_cublasLtMatmul));
}

TEST_CASE("the libcublasLt.so.13 shim exports exactly the real library's functions, versioned") {
  rgpu::test::check_versioned_exports(RGPU_CUBLASLT_SHIM, "libcublasLt.so.13", exports());
}

TEST_CASE("the libcublasLt.so.13 shim runs on the libcudart.so.13 shim's runtime") {
  rgpu::test::check_on_cudart_shim(RGPU_CUBLASLT_SHIM);
}
