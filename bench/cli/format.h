// Prints `rgpu bench`'s rows: a table for people, CSV or JSON for machines. Each output starts
// with the run's context (date, host, server, backend, devices), since a number means little
// without the machine it came from.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/cli/options.h"
#include "bench/cli/report.h"

namespace rgpu::bench {

struct ReportHeader {
  std::string date_utc;       // "2026-12-01 10:22:03 UTC"
  std::string host;           // this host's name
  std::string server;         // RGPU_SERVER
  std::string backend;        // from rgpud's Welcome: "cuda" or "emulated"
  std::string server_device;  // the server's first device, from the Welcome
  std::string native_device;  // this host's GPU as the native run saw it; empty without one
  bool quick = false;
};

std::string format_report(Format format, const ReportHeader& header, const std::vector<Row>& rows);

// A value as the table prints it: GB/s with 2 decimals, us with 1, rates as whole numbers.
std::string format_value(double value, const std::string& unit);
// One number printed with a printf format ("%.1f us").
std::string printf_text(const char* fmt, double v);

// Pieces the table and JSON outputs share with `rgpu bench pool`'s report (bench/cli/pool_report.h).
// Rows of cells as aligned columns (two spaces apart, trailing blanks dropped); `right[c]`
// right-aligns column c (numbers), others are left-aligned (words). One line per row.
std::string format_columns(const std::vector<std::vector<std::string>>& lines, const std::vector<bool>& right);
std::string json_string(const std::string& s);              // quoted and escaped
std::string json_number(const std::optional<double>& v);    // null when absent
// The run's context: "2026-12-01 10:22:03 UTC" and this host's name.
std::string utc_now();
std::string host_name();

}  // namespace rgpu::bench
