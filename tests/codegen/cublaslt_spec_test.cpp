// The real cuBLASLt spec on the real CUDA 13 headers, and the libcublasLt.so.13 shim built from it:
// every export accounted for and versioned, call ids apart from the other libraries', and the
// shim's link to the libcudart.so.13 shim's runtime (one call pipe).
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

#include "codegen_runner.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cublasLt/cublasLt_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/nvml/nvml_ids.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;
using rgpu::test::run_command;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_CUBLASLT_EXPORTS));
  return e;
}

// The symbols `nm -D <options>` lists for a library, as "name@version".
std::set<std::string> symbols(const std::string& options, const std::string& library) {
  auto r = run_command("nm -D " + options + " " + library);
  REQUIRE(r.exit_code == 0);
  std::set<std::string> out;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) out.insert(line.substr(line.rfind(' ') + 1));
  return out;
}

}  // namespace

TEST_CASE("the exports list is libcublasLt.so.13's 184 functions") { CHECK(exports().size() == 184); }

TEST_CASE("the cuBLASLt coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUBLASLT_COVERAGE);
  std::set<std::string> names;
  for (const auto& [name, row] : rows) names.insert(name);
  CHECK(names == exports());
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
  std::string map = read_file(RGPU_CUBLASLT_MAP);
  REQUIRE_THAT(map, Catch::Contains("libcublasLt.so.13 {\n  global:\n"));
  for (const auto& name : exports()) {
    INFO(name);
    CHECK(map.find("    " + name + ";\n") != std::string::npos);
  }
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
  std::set<std::string> defined = symbols("--defined-only", RGPU_CUBLASLT_SHIM);
  for (const auto& name : exports()) {
    INFO(name);
    CHECK(defined.count(name + "@@libcublasLt.so.13") == 1);
  }
  for (const auto& sym : defined) {
    INFO(sym);
    CHECK((sym == "libcublasLt.so.13" || exports().count(sym.substr(0, sym.find('@'))) == 1));
  }
}

TEST_CASE("the libcublasLt.so.13 shim runs on the libcudart.so.13 shim's runtime") {
  auto dynamic = run_command(std::string("readelf -d ") + RGPU_CUBLASLT_SHIM);
  REQUIRE(dynamic.exit_code == 0);
  CHECK_THAT(dynamic.output, Catch::Contains("Shared library: [libcudart.so.13]"));
  CHECK_THAT(dynamic.output, Catch::Contains("Library runpath: [$ORIGIN]"));
}
