// The real cuFFT spec on the real CUDA 13 headers, and the libcufft.so.12 shim built from it: every
// export accounted for and versioned, call ids apart from the other libraries', and the shim's
// link to the libcudart.so.13 shim's runtime (one call pipe).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "codegen_runner.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cublasLt/cublasLt_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/cufft/cufft_ids.h"
#include "gen/curand/curand_ids.h"
#include "gen/nvml/nvml_ids.h"
#include "tests/codegen/shim_checks.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_CUFFT_EXPORTS));
  return e;
}

}  // namespace

TEST_CASE("the exports list is libcufft.so.12's 58 functions") { CHECK(exports().size() == 58); }

TEST_CASE("the cuFFT coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUFFT_COVERAGE);
  CHECK(rgpu::test::names_of(rows) == exports());
  CHECK_THAT(read_file(RGPU_CUFFT_COVERAGE), Catch::Contains("| total | 58 |"));
  CHECK_THAT(read_file(RGPU_CUFFT_COVERAGE), Catch::Contains("| unsupported | 2 |"));
  CHECK(rows.at("cufftPlan1d").category == "forwarded sync");          // its failures are checked at once
  CHECK(rows.at("cufftXtMakePlanMany").category == "forwarded sync");  // PyTorch's planner: its work size returns
  CHECK(rows.at("cufftCreate").category == "forwarded async");         // a client id: nothing to wait for
  CHECK(rows.at("cufftExecC2C").category == "forwarded async");        // into device memory, in its stream
  CHECK(rows.at("cufftXtExec").category == "forwarded async");
  CHECK(rows.at("cufftSetStream").category == "forwarded async");
  CHECK(rows.at("cufftXtMalloc").category == "hand-written sync");  // the client mirrors the descriptor
  CHECK(rows.at("cufftXtMalloc").client == "xt_descriptors.cpp");
  CHECK(rows.at("cufftXtMemcpy").category == "local");                 // the runtime's copy of its buffer
  CHECK(rows.at("cufftXtExecDescriptorC2C").category == "forwarded sync");  // descriptors as ids, checked at the call
  CHECK(rows.at("cufftDebug").category == "unsupported");              // declared in no header
  CHECK(rows.at("cufftXtMakePlanGuru64").category == "unsupported");   // likewise
}

TEST_CASE("every cuFFT export is in the version script under libcufft.so.12") {
  rgpu::test::check_version_script(RGPU_CUFFT_MAP, "libcufft.so.12", exports());
}

TEST_CASE("cuFFT call ids are apart from the other libraries', so one id names one library") {
  for (uint32_t id : rgpu::gen::cufft::kCallIds) {
    INFO(rgpu::gen::cufft::call_name(id));
    CHECK_FALSE(rgpu::gen::cudart::has_call(id));
    CHECK_FALSE(rgpu::gen::cublas::has_call(id));
    CHECK_FALSE(rgpu::gen::cublasLt::has_call(id));
    CHECK_FALSE(rgpu::gen::nvml::has_call(id));
    CHECK_FALSE(rgpu::gen::cudnn::has_call(id));
    CHECK_FALSE(rgpu::gen::curand::has_call(id));
  }
  CHECK(rgpu::gen::cufft::has_call(rgpu::gen::cufft::k_cufftExecR2C));
}

TEST_CASE("the libcufft.so.12 shim exports exactly the real library's functions, versioned") {
  rgpu::test::check_versioned_exports(RGPU_CUFFT_SHIM, "libcufft.so.12", exports());
}

TEST_CASE("the libcufft.so.12 shim runs on the libcudart.so.13 shim's runtime") {
  rgpu::test::check_on_cudart_shim(RGPU_CUFFT_SHIM);
}
