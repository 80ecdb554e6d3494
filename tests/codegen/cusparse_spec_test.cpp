// The real cuSPARSE spec on the real CUDA 13 headers, and the libcusparse.so.12 shim built from it:
// every export accounted for and versioned, the classes the design asks for (ids without a round
// trip, compute async, what writes host memory sync), call ids apart from the other libraries',
// and the shim's link to the libcudart.so.13 shim's runtime (one call pipe).
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
#include "gen/cusparse/cusparse_ids.h"
#include "gen/nvml/nvml_ids.h"
#include "tests/codegen/shim_checks.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_CUSPARSE_EXPORTS));
  return e;
}

}  // namespace

TEST_CASE("the exports list is libcusparse.so.12's 423 functions") { CHECK(exports().size() == 423); }

TEST_CASE("the cuSPARSE coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUSPARSE_COVERAGE);
  CHECK(rgpu::test::names_of(rows) == exports());
  const std::string report = read_file(RGPU_CUSPARSE_COVERAGE);
  CHECK_THAT(report, Catch::Contains("| total | 423 |"));
  CHECK_THAT(report, Catch::Contains("| unsupported | 20 |"));
  // Handles and descriptors: client ids, nothing to wait for.
  CHECK(rows.at("cusparseCreate").category == "hand-written async");  // the client mirrors its settings
  CHECK(rows.at("cusparseSetPointerMode").category == "hand-written async");
  CHECK(rows.at("cusparseGetPointerMode").category == "local");
  CHECK(rows.at("cusparseGetStream").category == "local");
  CHECK(rows.at("cusparseCreateCsr").category == "forwarded async");
  CHECK(rows.at("cusparseCreateConstDnVec").category == "forwarded async");
  CHECK(rows.at("cusparseCreateMatDescr").category == "forwarded async");
  CHECK(rows.at("cusparseCreateCsric02Info").category == "forwarded async");
  CHECK(rows.at("cusparseSpSV_createDescr").category == "forwarded async");
  CHECK(rows.at("cusparseDestroySpMat").category == "forwarded async");
  CHECK(rows.at("cusparseCsrSetPointers").category == "forwarded async");
  // Compute: async, in the handle's stream.
  CHECK(rows.at("cusparseSpMV").category == "forwarded async");
  CHECK(rows.at("cusparseSpMM").category == "forwarded async");
  CHECK(rows.at("cusparseCsr2cscEx2").category == "forwarded async");
  CHECK(rows.at("cusparseSparseToDense").category == "forwarded async");
  CHECK(rows.at("cusparseDcsrgeam2").category == "forwarded async");
  CHECK(rows.at("cusparseXcsrsort").category == "forwarded async");
  // Host memory written: sync.
  CHECK(rows.at("cusparseSpMV_bufferSize").category == "forwarded sync");
  CHECK(rows.at("cusparseScsrgeam2_bufferSizeExt").category == "forwarded sync");
  CHECK(rows.at("cusparseCsrGet").category == "forwarded sync");
  CHECK(rows.at("cusparseSpMatGetSize").category == "forwarded sync");
  CHECK(rows.at("cusparseGetMatType").category == "forwarded sync");  // returns its value
  CHECK(rows.at("cusparseSpGEMM_compute").category == "forwarded sync");  // its buffer size comes back
  CHECK(rows.at("cusparseXcsrgeam2Nnz").category == "forwarded sync");   // the count, in host pointer mode
  CHECK(rows.at("cusparseXcsric02_zeroPivot").category == "forwarded sync");
  // Not forwarded, named in the spec.
  CHECK(rows.at("cusparseAxpby").category == "unsupported");  // scalars of the descriptor's type
  CHECK(rows.at("cusparseLoggerSetCallback").category == "unsupported");
  CHECK(rows.at("cusparseScsrilu02_numericBoost").category == "unsupported");
}

TEST_CASE("at most 15 % of cuSPARSE is unsupported and at most 10 % hand-written") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUSPARSE_COVERAGE);
  size_t unsupported = 0, hand_written = 0;
  for (const auto& [name, row] : rows) {
    if (row.category == "unsupported") ++unsupported;
    if (row.client != "generated" && row.client != "-") ++hand_written;
  }
  CHECK(unsupported * 100 <= rows.size() * 15);
  CHECK(hand_written * 100 <= rows.size() * 10);
}

TEST_CASE("every cuSPARSE export is in the version script under libcusparse.so.12") {
  rgpu::test::check_version_script(RGPU_CUSPARSE_MAP, "libcusparse.so.12", exports());
}

TEST_CASE("cuSPARSE call ids are apart from the other libraries', so one id names one library") {
  for (uint32_t id : rgpu::gen::cusparse::kCallIds) {
    INFO(rgpu::gen::cusparse::call_name(id));
    CHECK_FALSE(rgpu::gen::cudart::has_call(id));
    CHECK_FALSE(rgpu::gen::cublas::has_call(id));
    CHECK_FALSE(rgpu::gen::cublasLt::has_call(id));
    CHECK_FALSE(rgpu::gen::nvml::has_call(id));
    CHECK_FALSE(rgpu::gen::cudnn::has_call(id));
    CHECK_FALSE(rgpu::gen::curand::has_call(id));
    CHECK_FALSE(rgpu::gen::cufft::has_call(id));
  }
  CHECK(rgpu::gen::cusparse::has_call(rgpu::gen::cusparse::k_cusparseSpMV));
}

TEST_CASE("the libcusparse.so.12 shim exports exactly the real library's functions, versioned") {
  rgpu::test::check_versioned_exports(RGPU_CUSPARSE_SHIM, "libcusparse.so.12", exports());
}

TEST_CASE("the libcusparse.so.12 shim runs on the libcudart.so.13 shim's runtime") {
  rgpu::test::check_on_cudart_shim(RGPU_CUSPARSE_SHIM);
}
