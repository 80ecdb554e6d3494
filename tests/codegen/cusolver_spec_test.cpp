// The real cuSOLVER spec on the real CUDA 13 headers, and the libcusolver.so.12 shim built from it:
// every export accounted for and versioned, the classes the design asks for (handles and objects
// without a round trip, compute async, what writes host memory sync, the generic API's host
// workspace never sent), the unsupported and hand-written shares, call ids apart from the other
// libraries', and the shim's link to the libcudart.so.13 shim's runtime (one call pipe).
#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <string>

#include "codegen_runner.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cublasLt/cublasLt_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/cufft/cufft_ids.h"
#include "gen/curand/curand_ids.h"
#include "gen/cusolver/cusolver_ids.h"
#include "gen/cusparse/cusparse_ids.h"
#include "gen/nvml/nvml_ids.h"
#include "tests/codegen/shim_checks.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_CUSOLVER_EXPORTS));
  return e;
}

// The exports no parsed header declares: the generator writes their unsupported stubs apart.
std::set<std::string> undeclared() {
  const std::string text = read_file(RGPU_CUSOLVER_DIR "/cusolver_client_nodecl.cpp");
  const std::regex stub("report_unsupported\\(\"(\\w+)\"\\)");
  std::set<std::string> names;
  for (std::sregex_iterator it(text.begin(), text.end(), stub), end; it != end; ++it) names.insert((*it)[1]);
  return names;
}

}  // namespace

TEST_CASE("the exports list is libcusolver.so.12's 832 functions") { CHECK(exports().size() == 832); }

TEST_CASE("the cuSOLVER coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUSOLVER_COVERAGE);
  CHECK(rgpu::test::names_of(rows) == exports());
  const std::string report = read_file(RGPU_CUSOLVER_COVERAGE);
  CHECK_THAT(report, Catch::Contains("| total | 832 |"));
  CHECK_THAT(report, Catch::Contains("| forwarded sync | 284 |"));
  CHECK_THAT(report, Catch::Contains("| forwarded async | 206 |"));
  CHECK_THAT(report, Catch::Contains("| hand-written async | 6 |"));
  CHECK_THAT(report, Catch::Contains("| local | 2 |"));
  CHECK_THAT(report, Catch::Contains("| unsupported | 334 |"));
  // Handles and objects: client ids, nothing to wait for; the streams mirrored on the client.
  CHECK(rows.at("cusolverDnCreate").category == "hand-written async");
  CHECK(rows.at("cusolverDnSetStream").category == "hand-written async");
  CHECK(rows.at("cusolverDnGetStream").category == "local");
  CHECK(rows.at("cusolverSpCreate").category == "hand-written async");
  CHECK(rows.at("cusolverSpGetStream").category == "local");
  CHECK(rows.at("cusolverRfCreate").category == "forwarded async");
  CHECK(rows.at("cusolverDnCreateParams").category == "forwarded async");
  CHECK(rows.at("cusolverDnSetAdvOptions").category == "forwarded async");
  CHECK(rows.at("cusolverDnCreateSyevjInfo").category == "forwarded async");
  CHECK(rows.at("cusolverDnXsyevjSetTolerance").category == "forwarded async");
  CHECK(rows.at("cusolverDnCreateGesvdjInfo").category == "forwarded async");
  CHECK(rows.at("cusolverDnIRSParamsCreate").category == "forwarded async");
  CHECK(rows.at("cusolverSpCreateCsrqrInfo").category == "forwarded async");
  CHECK(rows.at("cusolverDnDestroyParams").category == "forwarded async");
  // Compute: async in the handle's stream (info and pivots are device memory), the generic API's
  // too, whose host workspace the server provides.
  for (const char* f : {"cusolverDnSgetrf", "cusolverDnDgetrs", "cusolverDnSpotrf", "cusolverDnZpotrfBatched",
                        "cusolverDnDpotrsBatched", "cusolverDnSgeqrf", "cusolverDnDorgqr", "cusolverDnSormqr",
                        "cusolverDnDgesvdj", "cusolverDnSsyevj", "cusolverDnCgesvd", "cusolverDnXgetrf",
                        "cusolverDnXgetrs", "cusolverDnXpotrf", "cusolverDnXpotrs", "cusolverDnXgeqrf",
                        "cusolverDnXsyevd", "cusolverDnXgesvd", "cusolverDnXsyevBatched", "cusolverDnXgeev",
                        "cusolverSpDcsrqrsvBatched", "cusolverRfRefactor", "cusolverRfSolve", "cusolverRfSetupHost"}) {
    INFO(f);
    CHECK(rows.at(f).category == "forwarded async");
  }
  // Host memory written: sync.
  for (const char* f : {"cusolverDnSgetrf_bufferSize", "cusolverDnXgetrf_bufferSize", "cusolverDnXsyevd_bufferSize",
                        "cusolverDnDDgesv_bufferSize", "cusolverDnDDgesv", "cusolverDnIRSXgesv", "cusolverDnSsyevdx",
                        "cusolverDnXsyevdx", "cusolverDnXgesvdp", "cusolverDnSgesvdaStridedBatched",
                        "cusolverDnXsyevjGetSweeps", "cusolverDnGetDeterministicMode", "cusolverGetProperty",
                        "cusolverSpDcsrlsvqr", "cusolverSpDcsrlsvluHost", "cusolverSpXcsrsymrcmHost",
                        "cusolverSpDcsrqrZeroPivot", "cusolverSpDcsrqrBufferInfoBatched",
                        "cusolverRfAccessBundledFactorsDevice", "cusolverRfGetMatrixFormat"}) {
    INFO(f);
    CHECK(rows.at(f).category == "forwarded sync");
  }
  // Not forwarded, named in the spec.
  CHECK(rows.at("cusolverRfExtractBundledFactorsHost").category == "unsupported");  // host memory of the server's
  CHECK(rows.at("cusolverDnIRSInfosGetResidualHistory").category == "unsupported");
  CHECK(rows.at("cusolverSpDcsrluFactorHost").category == "unsupported");  // host buffer of an unsaid size
  CHECK(rows.at("pegasusDcsr2dense").category == "unsupported");           // no header declares it
}

TEST_CASE("the generic API's host workspace is bounded on the client and never sent") {
  const std::string client = read_file(RGPU_CUSOLVER_DIR "/cusolver_client.cpp");
  const std::string server = read_file(RGPU_CUSOLVER_DIR "/cusolver_server.cpp");
  CHECK_THAT(client, Catch::Contains("rgpu_args.put<uint8_t>(bufferOnHost != nullptr);"));
  CHECK_THAT(client, !Catch::Contains("put_in_bytes(rgpu_args, bufferOnHost"));
  CHECK_THAT(server, Catch::Contains("rgpu_buf_bufferOnHost.allocate(workspaceInBytesOnHost)"));
  CHECK_THAT(server, !Catch::Contains("rgpu_buf_bufferOnHost.write(rgpu_out)"));
}

TEST_CASE("the generic eigenvalue interval travels as values, the batched pointer arrays as device addresses") {
  const std::string client = read_file(RGPU_CUSOLVER_DIR "/cusolver_client.cpp");
  CHECK_THAT(client, Catch::Contains("put_in_bytes(rgpu_args, vl, rgpu_bytes_vl);"));
  CHECK_THAT(client, Catch::Contains("put_in_bytes(rgpu_args, vu, rgpu_bytes_vu);"));
  CHECK_THAT(client, Catch::Contains("put_device(rgpu_args, Aarray);"));
  CHECK_THAT(client, !Catch::Contains("put_in_bytes(rgpu_args, Aarray"));
}

TEST_CASE("at most 15 % of cuSOLVER's declared functions are unsupported and at most 10 % hand-written") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUSOLVER_COVERAGE);
  const std::set<std::string> internal = undeclared();
  // 261 exports are internals no public header declares: unsupported, and counted apart.
  CHECK(internal.size() == 261);
  size_t unsupported = 0, hand_written = 0, served = 0;
  for (const auto& [name, row] : rows) {
    if (internal.count(name)) {
      INFO(name);
      CHECK(row.category == "unsupported");
      continue;
    }
    if (row.category == "unsupported") {
      ++unsupported;
      continue;
    }
    ++served;
    if (row.client != "generated") ++hand_written;
  }
  const size_t declared = rows.size() - internal.size();
  CHECK(declared == 571);
  CHECK(unsupported == 73);
  CHECK(unsupported * 100 <= declared * 15);
  CHECK(hand_written == 8);
  CHECK(hand_written * 100 <= served * 10);
}

TEST_CASE("every cuSOLVER export is in the version script under libcusolver.so.12") {
  rgpu::test::check_version_script(RGPU_CUSOLVER_MAP, "libcusolver.so.12", exports());
}

TEST_CASE("cuSOLVER call ids are apart from the other libraries', so one id names one library") {
  for (uint32_t id : rgpu::gen::cusolver::kCallIds) {
    INFO(rgpu::gen::cusolver::call_name(id));
    CHECK_FALSE(rgpu::gen::cudart::has_call(id));
    CHECK_FALSE(rgpu::gen::cublas::has_call(id));
    CHECK_FALSE(rgpu::gen::cublasLt::has_call(id));
    CHECK_FALSE(rgpu::gen::nvml::has_call(id));
    CHECK_FALSE(rgpu::gen::cudnn::has_call(id));
    CHECK_FALSE(rgpu::gen::curand::has_call(id));
    CHECK_FALSE(rgpu::gen::cufft::has_call(id));
    CHECK_FALSE(rgpu::gen::cusparse::has_call(id));
  }
  CHECK(rgpu::gen::cusolver::has_call(rgpu::gen::cusolver::k_cusolverDnXgetrf));
}

TEST_CASE("the libcusolver.so.12 shim exports exactly the real library's functions, versioned") {
  rgpu::test::check_versioned_exports(RGPU_CUSOLVER_SHIM, "libcusolver.so.12", exports());
}

TEST_CASE("the libcusolver.so.12 shim runs on the libcudart.so.13 shim's runtime") {
  rgpu::test::check_on_cudart_shim(RGPU_CUSOLVER_SHIM);
}
