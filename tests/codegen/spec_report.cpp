// Parsing of exports lists and coverage reports for the real-spec tests.
#include "tests/codegen/spec_report.h"

#include <sstream>
#include <vector>

#include "tests/codegen/codegen_runner.h"

namespace rgpu::test {

std::set<std::string> lines_of(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') out.insert(line);
  }
  return out;
}

std::map<std::string, CoverageRow> coverage_rows(const std::string& report_path) {
  std::map<std::string, CoverageRow> rows;
  std::istringstream in(read_file(report_path));
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| function |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table || line.rfind("| ---", 0) == 0 || line.empty()) continue;
    std::vector<std::string> cells;
    std::istringstream cs(line);
    for (std::string cell; std::getline(cs, cell, '|');) {
      auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      if (b != std::string::npos) cells.push_back(cell.substr(b, e - b + 1));
    }
    if (cells.size() == 5) rows[cells[0]] = {cells[1], cells[2], cells[3]};
  }
  return rows;
}

}  // namespace rgpu::test
