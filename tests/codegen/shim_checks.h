// Catch2 checks the real-spec tests share: a library's exports against its coverage report, its
// version script and the shim built from it.
#pragma once

#include <map>
#include <set>
#include <string>

#include "tests/codegen/spec_report.h"

namespace rgpu::test {

// The names `nm -D <options>` lists for a library, as printed ("name" or "name@version").
std::set<std::string> nm_symbols(const std::string& options, const std::string& library);

// The function names of a coverage report's rows.
std::set<std::string> names_of(const std::map<std::string, CoverageRow>& rows);

// The version script at MAP_PATH lists every export under the node SONAME.
void check_version_script(const std::string& map_path, const std::string& soname,
                          const std::set<std::string>& exports);

// The shim defines every export as "name@@SONAME", and nothing but them and the node itself.
void check_versioned_exports(const std::string& shim, const std::string& soname,
                             const std::set<std::string>& exports);

// The shim needs libcudart.so.13 and finds it beside itself (RUNPATH $ORIGIN), so it runs on the
// libcudart.so.13 shim's runtime. Returns `readelf -d`'s output for further checks.
std::string check_on_cudart_shim(const std::string& shim);

}  // namespace rgpu::test
