// The real cuBLAS spec on the real CUDA 13 headers, and the libcublas.so.13 shim built from it:
// every export accounted for and versioned, call ids apart from cudart's, and the shim's link to
// the libcudart.so.13 shim's runtime (private version node, RUNPATH $ORIGIN).
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

#include "codegen_runner.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;
using rgpu::test::run_command;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_CUBLAS_EXPORTS));
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

TEST_CASE("the exports list is libcublas.so.13's 756 functions") { CHECK(exports().size() == 756); }

TEST_CASE("the cuBLAS coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUBLAS_COVERAGE);
  std::set<std::string> names;
  for (const auto& [name, row] : rows) names.insert(name);
  CHECK(names == exports());
  CHECK_THAT(read_file(RGPU_CUBLAS_COVERAGE), Catch::Contains("| total | 756 |"));
  CHECK(rows.at("cublasSgemm_v2").category == "forwarded async");
  CHECK(rows.at("cublasGemmEx").category == "forwarded async");
  CHECK(rows.at("cublasSdot_v2").category == "forwarded sync");  // a host result waits
  CHECK(rows.at("cublasSetStream_v2").category == "hand-written async");
  CHECK(rows.at("cublasSetStream_v2").client == "handle_settings.cpp");
  CHECK(rows.at("cublasGetPointerMode_v2").category == "local");
  CHECK(rows.at("cublasSgemm").category == "unsupported");  // the legacy API
}

TEST_CASE("every cuBLAS export is in the version script under libcublas.so.13") {
  std::string map = read_file(RGPU_CUBLAS_MAP);
  REQUIRE_THAT(map, Catch::Contains("libcublas.so.13 {\n  global:\n"));
  for (const auto& name : exports()) {
    INFO(name);
    CHECK(map.find("    " + name + ";\n") != std::string::npos);
  }
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
  std::set<std::string> defined = symbols("--defined-only", RGPU_CUBLAS_SHIM);
  for (const auto& name : exports()) {
    INFO(name);
    CHECK(defined.count(name + "@@libcublas.so.13") == 1);
  }
  for (const auto& sym : defined) {
    INFO(sym);
    CHECK((sym == "libcublas.so.13" || exports().count(sym.substr(0, sym.find('@'))) == 1));
  }
}

TEST_CASE("the libcublas.so.13 shim runs on the libcudart.so.13 shim's runtime") {
  auto dynamic = run_command(std::string("readelf -d ") + RGPU_CUBLAS_SHIM);
  REQUIRE(dynamic.exit_code == 0);
  CHECK_THAT(dynamic.output, Catch::Contains("Shared library: [libcudart.so.13]"));
  CHECK_THAT(dynamic.output, Catch::Contains("Library runpath: [$ORIGIN]"));
  // What it takes from the runtime is under the private node, and the cudart shim provides it.
  std::set<std::string> provided = symbols("--defined-only", RGPU_CUDART_SHIM);
  int from_runtime = 0;
  for (const auto& sym : symbols("--undefined-only", RGPU_CUBLAS_SHIM)) {
    if (sym.find("@RGPU_PRIVATE_1") == std::string::npos) continue;
    INFO(sym);
    ++from_runtime;
    CHECK(provided.count(sym.substr(0, sym.find('@')) + "@@RGPU_PRIVATE_1") == 1);
  }
  CHECK(from_runtime > 0);
}
