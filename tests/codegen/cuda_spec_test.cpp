// The driver API spec (cuda.yaml) and the libcuda.so.1 shim built from it: every export accounted
// for and exported unversioned, as the real library does; cuGetProcAddress's table (pairing
// cudaTypedefs.h's versions with the exported variants, and the lookup) on synthetic inputs, the
// real header and the shim itself.
#include <catch2/catch.hpp>
#include <cuda.h>
#include <dlfcn.h>

#include <set>
#include <string>
#include <vector>

#include "codegen/src/proc_versions.h"
#include "codegen/support/proc_table.h"
#include "codegen_runner.h"
#include "tests/codegen/shim_checks.h"
#include "tests/codegen/spec_report.h"

using rgpu::codegen::ProcVersion;
using rgpu::codegen::read_proc_versions;
using rgpu::gen::find_proc;
using rgpu::gen::ProcEntry;
using rgpu::gen::ProcLookup;
using rgpu::gen::ProcTable;
using rgpu::test::read_file;
using rgpu::test::run_command;

namespace {

const std::set<std::string>& exports() {
  static const std::set<std::string> e = rgpu::test::lines_of(read_file(RGPU_CUDA_EXPORTS));
  return e;
}

void f_old() {}
void f_v2() {}
void f_v2_ptds() {}
void g_any() {}

// cuFoo as cuFoo (2000) and cuFoo_v2 (3020), with a per-thread variant from 7000; cuGet at any version.
const ProcEntry kEntries[] = {
    {"cuFoo", 2000, false, &f_old},
    {"cuFoo", 3020, false, &f_v2},
    {"cuFoo", 7000, true, &f_v2_ptds},
    {"cuGet", 0, false, &g_any},
};
const ProcTable kTable{kEntries, 4};

}  // namespace

TEST_CASE("find_proc picks the newest variant the caller's version knows") {
  const ProcEntry* e = nullptr;
  REQUIRE(find_proc(kTable, "cuFoo", 12000, false, &e) == ProcLookup::kFound);
  CHECK(e->fn == &f_v2);
  REQUIRE(find_proc(kTable, "cuFoo", 3010, false, &e) == ProcLookup::kFound);
  CHECK(e->fn == &f_old);
  REQUIRE(find_proc(kTable, "cuFoo", 12000, true, &e) == ProcLookup::kFound);
  CHECK(e->fn == &f_v2_ptds);
  // Per thread, but older than the per-thread variant: the ordinary one, as the driver answers.
  REQUIRE(find_proc(kTable, "cuFoo", 3020, true, &e) == ProcLookup::kFound);
  CHECK(e->fn == &f_v2);
  CHECK(find_proc(kTable, "cuFoo", 1000, false, &e) == ProcLookup::kVersionTooOld);
  REQUIRE(find_proc(kTable, "cuGet", 0, true, &e) == ProcLookup::kFound);
  CHECK(e->fn == &g_any);
  CHECK(find_proc(kTable, "cuFo", 12000, false, &e) == ProcLookup::kNotFound);
  CHECK(find_proc(kTable, "cuFooo", 12000, false, &e) == ProcLookup::kNotFound);
}

TEST_CASE("read_proc_versions pairs typedef versions with exported variants in order") {
  std::string typedefs =
      "typedef CUresult (CUDAAPI *PFN_cuFoo_v3020)(int);\n"
      "typedef CUresult (CUDAAPI *PFN_cuFoo_v7000_ptds)(int);\n"
      "#ifdef __CUDA_API_VERSION_INTERNAL\n typedef CUresult (CUDAAPI *PFN_cuFoo_v2000)(int);\n#endif\n"
      "typedef CUresult (CUDAAPI *PFN_cuNotExported_v12000)(void);\n";
  std::vector<ProcVersion> rows;
  std::string error;
  REQUIRE(read_proc_versions(typedefs, {"cuFoo", "cuFoo_v2", "cuFoo_v2_ptds", "cuBar"}, &rows, &error));
  REQUIRE(rows.size() == 4);
  CHECK((rows[0].name == "cuBar" && rows[0].version == 0 && rows[0].symbol == "cuBar"));
  CHECK((rows[1].name == "cuFoo" && rows[1].version == 2000 && rows[1].symbol == "cuFoo" && !rows[1].per_thread));
  CHECK((rows[2].version == 3020 && rows[2].symbol == "cuFoo_v2"));
  CHECK((rows[3].version == 7000 && rows[3].symbol == "cuFoo_v2_ptds" && rows[3].per_thread));

  // Two versions but three variants: the rule does not cover it, and generation says so.
  rows.clear();
  CHECK_FALSE(read_proc_versions(typedefs, {"cuFoo", "cuFoo_v2", "cuFoo_v3"}, &rows, &error));
  CHECK_THAT(error, Catch::Contains("cuFoo") && Catch::Contains("extend proc_versions.cpp"));
}

TEST_CASE("the real cudaTypedefs.h pairs with every export of libcuda.so.1") {
  std::vector<ProcVersion> rows;
  std::string error;
  std::vector<std::string> names(exports().begin(), exports().end());
  REQUIRE(read_proc_versions(read_file(RGPU_CUDA_TYPEDEFS), names, &rows, &error));
  std::multiset<std::string> symbols;
  for (const auto& r : rows) symbols.insert(r.symbol);
  for (const auto& e : exports()) {
    INFO(e);
    CHECK(symbols.count(e) == 1);  // each export answers exactly one (name, version)
  }
}

TEST_CASE("the cuda coverage report accounts for every export in its class") {
  auto rows = rgpu::test::coverage_rows(RGPU_CUDA_COVERAGE);
  CHECK(rgpu::test::names_of(rows) == exports());
  CHECK(rows.at("cuInit").category == "local");
  CHECK(rows.at("cuGetProcAddress_v2").category == "local");
  CHECK(rows.at("cuLaunchKernel").category == "hand-written async");
  CHECK(rows.at("cuModuleLoadData").category == "hand-written sync");
  CHECK(rows.at("cuGetExportTable").category == "unsupported");
}

TEST_CASE("the libcuda.so.1 shim exports exactly the driver's names, unversioned, on the runtime") {
  CHECK(rgpu::test::nm_symbols("--defined-only", RGPU_CUDA_SHIM) == exports());
  auto dynamic = run_command(std::string("readelf -d ") + RGPU_CUDA_SHIM);
  CHECK_THAT(dynamic.output, Catch::Contains("Library soname: [libcuda.so.1]"));
  CHECK_THAT(dynamic.output, Catch::Contains("Shared library: [libcudart.so.13]"));
}

TEST_CASE("the shim's cuGetProcAddress answers with its own exports (no server needed)") {
  void* lib = dlopen(RGPU_CUDA_SHIM, RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib);
  using Get = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto get = reinterpret_cast<Get>(dlsym(lib, "cuGetProcAddress_v2"));
  REQUIRE(get);
  struct Case {
    const char* name;
    int version;
    cuuint64_t flags;
    const char* symbol;
  };
  for (const Case& c : {Case{"cuMemAlloc", 12000, 0, "cuMemAlloc_v2"}, Case{"cuMemAlloc", 3010, 0, "cuMemAlloc"},
                        Case{"cuCtxCreate", 12080, 0, "cuCtxCreate_v4"}, Case{"cuCtxCreate", 11040, 0, "cuCtxCreate_v3"},
                        Case{"cuStreamGetCaptureInfo", 12030, 0, "cuStreamGetCaptureInfo_v3"},
                        Case{"cuMemcpyDtoHAsync", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                             "cuMemcpyDtoHAsync_v2_ptsz"},
                        Case{"cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2"},
                        Case{"cuProfilerStart", 4000, 0, "cuProfilerStart"}}) {
    INFO(c.name << " at " << c.version);
    void* fn = nullptr;
    CUdriverProcAddressQueryResult found{};
    CHECK(get(c.name, &fn, c.version, c.flags, &found) == CUDA_SUCCESS);
    CHECK(found == CU_GET_PROC_ADDRESS_SUCCESS);
    CHECK(fn == dlsym(lib, c.symbol));
  }
  void* fn = nullptr;
  CUdriverProcAddressQueryResult found{};
  CHECK(get("cuMemAlloc_v2", &fn, 12000, 0, &found) == CUDA_SUCCESS);  // names are asked without suffix
  CHECK(found == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  CHECK(fn == nullptr);
  dlclose(lib);
}
