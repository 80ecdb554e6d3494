// The real cudart spec on the real CUDA 13 headers: every export of libcudart.so.13 is accounted
// for in the coverage report, versioned in the version script, and exported by a linked shim.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen_runner.h"
#include "gen/cudart/cudart_ids.h"
#include "tests/codegen/shim_checks.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;

namespace {

using rgpu::test::lines_of;

std::map<std::string, rgpu::test::CoverageRow> coverage_rows() {
  return rgpu::test::coverage_rows(RGPU_CUDART_COVERAGE);
}

const std::set<std::string>& exports() {
  static const std::set<std::string> e = lines_of(read_file(RGPU_CUDART_EXPORTS));
  return e;
}

}  // namespace

TEST_CASE("the exports list is libcudart.so.13's 422 functions") { CHECK(exports().size() == 422); }

TEST_CASE("the coverage report accounts for every export exactly once") {
  auto rows = coverage_rows();
  CHECK(rgpu::test::names_of(rows) == exports());
  std::string report = read_file(RGPU_CUDART_COVERAGE);
  CHECK_THAT(report, Catch::Contains("| total | 422 |"));
  int forwarded = 0, hand_written = 0;
  for (const auto& [name, row] : rows) {
    forwarded += row.category.rfind("forwarded", 0) == 0;
    // A hand-written client over another function's call (the array copies travel as cudaMemcpy3D)
    // adds no call of its own.
    hand_written += row.category.rfind("hand-written", 0) == 0 && row.server != "-";
  }
  CHECK(forwarded > hand_written);  // the bulk of what travels is generated, not hand-written
}

TEST_CASE("the hand-written functions are where the contract puts them") {
  auto rows = coverage_rows();
  CHECK(rows.at("cudaMalloc").client == "memory.cpp");
  CHECK(rows.at("cudaMemcpyAsync_ptsz").client == "memcpy.cpp");
  CHECK(rows.at("__cudaRegisterFatBinary").client == "registration.cpp");
  CHECK(rows.at("__cudaLaunchKernel_ptsz").client == "launch.cpp");
  CHECK(rows.at("cudaGetLastError").category == "local");
  CHECK(rows.at("cudaStreamAddCallback_ptsz").client == "callbacks.cpp");
  CHECK(rows.at("cudaGLGetDevices").category == "unsupported");
  CHECK(rows.at("cudaStreamCreate").category == "forwarded async");
}

TEST_CASE("every export is in the version script under the soname") {
  rgpu::test::check_version_script(RGPU_CUDART_MAP, "libcudart.so.13", exports());
  CHECK_THAT(read_file(RGPU_CUDART_MAP), Catch::Contains("  local:\n    *;\n};"));
}

TEST_CASE("the waiting calls are marked blocking") {
  namespace gen = rgpu::gen::cudart;
  CHECK(gen::is_blocking(gen::k_cudaDeviceSynchronize));
  CHECK(gen::is_blocking(gen::k_cudaStreamSynchronize));
  CHECK(gen::is_blocking(gen::k_cudaStreamSynchronize_ptsz));
  CHECK(gen::is_blocking(gen::k_cudaEventSynchronize));
  CHECK_FALSE(gen::is_blocking(gen::k_cudaStreamQuery));
  CHECK(gen::is_async(gen::k_cudaLaunchKernel));
}

TEST_CASE("a shim linked from the generated client sources exports the generated functions, versioned") {
  auto defined = rgpu::test::run_command(std::string("nm -D --defined-only ") + RGPU_CUDART_SHIM);
  auto undefined = rgpu::test::run_command(std::string("nm -D --undefined-only ") + RGPU_CUDART_SHIM);
  REQUIRE(defined.exit_code == 0);
  REQUIRE(undefined.exit_code == 0);
  std::set<std::string> exported, needed;
  std::istringstream d(defined.output), u(undefined.output);
  for (std::string line; std::getline(d, line);) {
    auto sp = line.rfind(' ');
    if (line.find(" T ") != std::string::npos) exported.insert(line.substr(sp + 1));
  }
  for (std::string line; std::getline(u, line);) needed.insert(line.substr(line.rfind(' ') + 1));
  for (const auto& [name, row] : coverage_rows()) {
    INFO(name);
    bool hand_written = row.client.size() > 4 && row.client.substr(row.client.size() - 4) == ".cpp";
    if (hand_written) {
      CHECK(needed.count(name) == 1);  // referenced by the manual table, provided by client/runtime
    } else {
      CHECK(exported.count(name + "@@libcudart.so.13") == 1);
    }
  }
  for (const auto& sym : exported) {
    INFO(sym);
    CHECK(exports().count(sym.substr(0, sym.find('@'))) == 1);  // nothing else leaks out
  }
}
