// The real-spec tests' shared checks: version scripts, versioned exports, the link to the cudart shim.
#include "tests/codegen/shim_checks.h"

#include <catch2/catch.hpp>

#include <sstream>

#include "tests/codegen/codegen_runner.h"

namespace rgpu::test {

std::set<std::string> nm_symbols(const std::string& options, const std::string& library) {
  auto r = run_command("nm -D " + options + " " + library);
  REQUIRE(r.exit_code == 0);
  std::set<std::string> out;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) out.insert(line.substr(line.rfind(' ') + 1));
  return out;
}

std::set<std::string> names_of(const std::map<std::string, CoverageRow>& rows) {
  std::set<std::string> names;
  for (const auto& [name, row] : rows) names.insert(name);
  return names;
}

void check_version_script(const std::string& map_path, const std::string& soname,
                          const std::set<std::string>& exports) {
  std::string map = read_file(map_path);
  REQUIRE_THAT(map, Catch::Contains(soname + " {\n  global:\n"));
  for (const auto& name : exports) {
    INFO(name);
    CHECK(map.find("    " + name + ";\n") != std::string::npos);
  }
}

void check_versioned_exports(const std::string& shim, const std::string& soname,
                             const std::set<std::string>& exports) {
  std::set<std::string> defined = nm_symbols("--defined-only", shim);
  for (const auto& name : exports) {
    INFO(name);
    CHECK(defined.count(name + "@@" + soname) == 1);
  }
  for (const auto& sym : defined) {
    INFO(sym);
    CHECK((sym == soname || exports.count(sym.substr(0, sym.find('@'))) == 1));
  }
}

std::string check_on_cudart_shim(const std::string& shim) {
  auto dynamic = run_command("readelf -d " + shim);
  REQUIRE(dynamic.exit_code == 0);
  CHECK_THAT(dynamic.output, Catch::Contains("Shared library: [libcudart.so.13]"));
  CHECK_THAT(dynamic.output, Catch::Contains("Library runpath: [$ORIGIN]"));
  return dynamic.output;
}

}  // namespace rgpu::test
