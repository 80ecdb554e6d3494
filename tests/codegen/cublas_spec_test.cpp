// The real cuBLAS spec on the real CUDA 13 headers, and the libcublas.so.13 shim built from it:
// every export accounted for and versioned, call ids apart from cudart's, and the shim's link to
// the libcudart.so.13 shim's runtime (private version node, RUNPATH $ORIGIN).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "codegen_runner.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "tests/codegen/shim_checks.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_CUBLAS_EXPORTS));
  return e;
}

}  // namespace

TEST_CASE("the exports list is libcublas.so.13's 756 functions") { CHECK(exports().size() == 756); }

TEST_CASE("the cuBLAS coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUBLAS_COVERAGE);
  CHECK(rgpu::test::names_of(rows) == exports());
  CHECK_THAT(read_file(RGPU_CUBLAS_COVERAGE), Catch::Contains("| total | 756 |"));
  CHECK(rows.at("cublasSgemm_v2").category == "forwarded async");
  CHECK(rows.at("cublasGemmEx").category == "forwarded async");
  CHECK(rows.at("cublasSdot_v2").category == "forwarded sync");  // a host result waits
  CHECK(rows.at("cublasSetStream_v2").category == "hand-written async");
  CHECK(rows.at("cublasSetStream_v2").client == "handle_settings.cpp");
  CHECK(rows.at("cublasGetPointerMode_v2").category == "local");
  CHECK(rows.at("cublasSgemm").category == "forwarded async");  // the legacy API: returns nothing
  CHECK(rows.at("cublasSdot").category == "forwarded sync");     // ... or a value, which waits
  CHECK(rows.at("cublasAlloc").category == "local");
  CHECK(rows.at("cublasXtSgemm").category == "unsupported");
  // The families by pattern: a result that may land in host memory waits, the rest does not.
  CHECK(rows.at("cublasZher2k_v2_64").category == "forwarded async");
  CHECK(rows.at("cublasIzamin_v2_64").category == "forwarded sync");
  CHECK(rows.at("cublasCtrsmBatched").category == "forwarded async");
  CHECK(rows.at("cublasSgetrfBatched").category == "forwarded async");  // its info is in device memory
  CHECK(rows.at("cublasSgeqrfBatched").category == "forwarded sync");   // its info is in host memory
  CHECK(rows.at("cublasSgetrsBatched").category == "hand-written async");  // its info checked on the client
  CHECK(rows.at("cublasSrotg_v2").category == "unsupported");           // in-out scalars
  CHECK_THAT(read_file(RGPU_CUBLAS_COVERAGE), Catch::Contains("| unsupported | 75 |"));
}

TEST_CASE("every cuBLAS export is in the version script under libcublas.so.13") {
  rgpu::test::check_version_script(RGPU_CUBLAS_MAP, "libcublas.so.13", exports());
}

TEST_CASE("cuBLAS call ids are apart from cudart's, so one id names one library") {
  for (uint32_t id : rgpu::gen::cublas::kCallIds) {
    INFO(rgpu::gen::cublas::call_name(id));
    CHECK_FALSE(rgpu::gen::cudart::has_call(id));
  }
  CHECK(rgpu::gen::cublas::has_call(rgpu::gen::cublas::k_cublasSgemm_v2));
  CHECK_FALSE(rgpu::gen::cublas::has_call(rgpu::gen::cudart::k_cudaMalloc));
}

TEST_CASE("the libcublas.so.13 shim exports exactly the real library's functions, versioned") {
  rgpu::test::check_versioned_exports(RGPU_CUBLAS_SHIM, "libcublas.so.13", exports());
}

TEST_CASE("the libcublas.so.13 shim runs on the libcudart.so.13 shim's runtime") {
  rgpu::test::check_on_cudart_shim(RGPU_CUBLAS_SHIM);
  // What it takes from the runtime is under the private node, and the cudart shim provides it.
  std::set<std::string> provided = rgpu::test::nm_symbols("--defined-only", RGPU_CUDART_SHIM);
  int from_runtime = 0;
  for (const auto& sym : rgpu::test::nm_symbols("--undefined-only", RGPU_CUBLAS_SHIM)) {
    if (sym.find("@RGPU_PRIVATE_1") == std::string::npos) continue;
    INFO(sym);
    ++from_runtime;
    CHECK(provided.count(sym.substr(0, sym.find('@')) + "@@RGPU_PRIVATE_1") == 1);
  }
  CHECK(from_runtime > 0);
}
