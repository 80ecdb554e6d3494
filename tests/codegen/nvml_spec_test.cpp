// The NVML spec on our declarations of its subset, and the libnvidia-ml.so.1 shim built from it:
// every export accounted for, exported unversioned (as the real library does), call ids apart
// from the other libraries', and the shim's link to the libcudart.so.13 shim's runtime.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "codegen_runner.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/nvml/nvml_ids.h"
#include "tests/codegen/shim_checks.h"
#include "tests/codegen/spec_report.h"

using rgpu::test::read_file;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_NVML_EXPORTS));
  return e;
}

}  // namespace

TEST_CASE("the NVML coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_NVML_COVERAGE);
  CHECK(rgpu::test::names_of(rows) == exports());
  CHECK(rows.at("nvmlInit_v2").category == "hand-written sync");
  CHECK(rows.at("nvmlDeviceGetMemoryInfo").category == "hand-written sync");
  CHECK(rows.at("nvmlDeviceGetName").category == "local");
  CHECK(rows.at("nvmlDeviceGetTemperature").category == "unsupported");
}

TEST_CASE("the NVML version script exports plain names: the real library versions none") {
  std::string map = read_file(RGPU_NVML_MAP);
  CHECK_THAT(map, Catch::Contains("\n{\n  global:\n"));
  CHECK_THAT(map, !Catch::Contains("libnvidia-ml.so.1 {"));
  std::set<std::string> defined = rgpu::test::nm_symbols("--defined-only", RGPU_NVML_SHIM);
  for (const auto& name : exports()) {
    INFO(name);
    CHECK(defined.count(name) == 1);
  }
  for (const auto& sym : defined) {
    INFO(sym);
    CHECK(exports().count(sym) == 1);
  }
}

TEST_CASE("NVML call ids are apart from cudart's and cuBLAS's") {
  for (uint32_t id : rgpu::gen::nvml::kCallIds) {
    INFO(rgpu::gen::nvml::call_name(id));
    CHECK_FALSE(rgpu::gen::cudart::has_call(id));
    CHECK_FALSE(rgpu::gen::cublas::has_call(id));
  }
  // Only what needs the server has a call: the snapshot and the usage queries.
  CHECK(rgpu::gen::nvml::kCallCount == 4);
  CHECK(rgpu::gen::nvml::has_call(rgpu::gen::nvml::k_nvmlInit_v2));
}

TEST_CASE("the libnvidia-ml.so.1 shim runs on the libcudart.so.13 shim's runtime") {
  std::string dynamic = rgpu::test::check_on_cudart_shim(RGPU_NVML_SHIM);
  CHECK_THAT(dynamic, Catch::Contains("Library soname: [libnvidia-ml.so.1]"));
}
