// The real cuDNN spec on the real cuDNN 9.19 headers, and the libcudnn.so.9 shim built from it:
// every export accounted for and versioned, call ids apart from the other libraries', and the
// shim's link to the libcudart.so.13 shim's runtime (one call pipe).
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

#include "codegen_runner.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/nvml/nvml_ids.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;
using rgpu::test::run_command;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_CUDNN_EXPORTS));
  return e;
}

std::set<std::string> symbols(const std::string& options, const std::string& library) {
  auto r = run_command("nm -D " + options + " " + library);
  REQUIRE(r.exit_code == 0);
  std::set<std::string> out;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) out.insert(line.substr(line.rfind(' ') + 1));
  return out;
}

}  // namespace

TEST_CASE("the exports list is libcudnn.so.9's 224 functions") { CHECK(exports().size() == 224); }

TEST_CASE("the cuDNN coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUDNN_COVERAGE);
  std::set<std::string> names;
  for (const auto& [name, row] : rows) names.insert(name);
  CHECK(names == exports());
  CHECK_THAT(read_file(RGPU_CUDNN_COVERAGE), Catch::Contains("| total | 224 |"));
  CHECK(rows.at("cudnnCreate").category == "hand-written async");
  CHECK(rows.at("cudnnGetStream").category == "local");
  CHECK(rows.at("cudnnSetTensorNdDescriptor").category == "local");
  CHECK(rows.at("cudnnBackendSetAttribute").category == "hand-written async");
  CHECK(rows.at("cudnnBackendExecute").category == "hand-written async");
  CHECK(rows.at("cudnnBackendFinalize").category == "hand-written sync");  // variant packs: async at run time
  CHECK(rows.at("cudnnBatchNormalizationForwardTrainingEx").category == "hand-written async");
  CHECK(rows.at("cudnnGetBatchNormalizationTrainingExReserveSpaceSize").category == "hand-written sync");
  CHECK(rows.at("cudnnRNNForward").category == "unsupported");
}

TEST_CASE("every cuDNN export is in the version script under libcudnn.so.9") {
  std::string map = read_file(RGPU_CUDNN_MAP);
  REQUIRE_THAT(map, Catch::Contains("libcudnn.so.9 {\n  global:\n"));
  for (const auto& name : exports()) {
    INFO(name);
    CHECK(map.find("    " + name + ";\n") != std::string::npos);
  }
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
  std::set<std::string> defined = symbols("--defined-only", RGPU_CUDNN_SHIM);
  for (const auto& name : exports()) {
    INFO(name);
    CHECK(defined.count(name + "@@libcudnn.so.9") == 1);
  }
  for (const auto& sym : defined) {
    INFO(sym);
    CHECK((sym == "libcudnn.so.9" || exports().count(sym.substr(0, sym.find('@'))) == 1));
  }
}

TEST_CASE("the libcudnn.so.9 shim runs on the libcudart.so.13 shim's runtime") {
  auto dynamic = run_command(std::string("readelf -d ") + RGPU_CUDNN_SHIM);
  REQUIRE(dynamic.exit_code == 0);
  CHECK_THAT(dynamic.output, Catch::Contains("Shared library: [libcudart.so.13]"));
  CHECK_THAT(dynamic.output, Catch::Contains("Library runpath: [$ORIGIN]"));
}
