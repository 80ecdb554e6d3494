// Reading what the generator wrote about a real library: its exports list and coverage report.
#pragma once

#include <map>
#include <set>
#include <string>

namespace rgpu::test {

// The non-empty, non-comment lines of a text.
std::set<std::string> lines_of(const std::string& text);

struct CoverageRow {
  std::string category, client, server;
};

// Rows "| name | category | client | server | classified by |" of a coverage report's table.
std::map<std::string, CoverageRow> coverage_rows(const std::string& report_path);

}  // namespace rgpu::test
