// Table, CSV and JSON output of `rgpu bench` (see format.h).
#include "bench/cli/format.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace rgpu::bench {

std::string printf_text(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

namespace {

std::string optional_value(const std::optional<double>& v, const std::string& unit) {
  return v ? format_value(*v, unit) : "-";
}

std::string ratio_text(const std::optional<double>& r) { return r ? printf_text("%.2fx", *r) : "-"; }

std::string bar_text(const Row& row) {
  if (row.bar.empty()) return "";
  return row.limit ? row.bar + " (" + format_value(*row.limit, row.unit) + ")" : row.bar;
}

std::string native_text(const ReportHeader& h) { return h.native_device.empty() ? "none (no GPU here)" : h.native_device; }

std::string table(const ReportHeader& h, const std::vector<Row>& rows) {
  std::string out = "rgpu bench  " + h.date_utc + "  host " + h.host + (h.quick ? "  (quick)" : "") + "\n";
  out += "server " + h.server + ": " + h.backend + " backend, " + h.server_device + "; native: " + native_text(h) + "\n\n";
  std::vector<std::vector<std::string>> lines = {{"metric", "unit", "native", "remote", "ratio", "bar", "verdict"}};
  for (const auto& r : rows)
    lines.push_back({r.metric, r.unit, optional_value(r.native, r.unit), optional_value(r.remote, r.unit),
                     ratio_text(r.ratio), bar_text(r), verdict_name(r.verdict)});
  out += format_columns(lines, {false, false, true, true, true, false, false});
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csv_number(const std::optional<double>& v) { return v ? printf_text("%.10g", *v) : ""; }

std::string csv(const ReportHeader& h, const std::vector<Row>& rows) {
  std::string out = "# rgpu bench, date " + h.date_utc + ", host " + h.host + ", server " + h.server + ", backend " +
                    h.backend + ", server device " + h.server_device + ", native " + native_text(h) +
                    (h.quick ? ", quick" : "") + "\n";
  out += "metric,unit,native,remote,ratio,bar,limit,verdict\n";
  for (const auto& r : rows)
    out += csv_field(r.metric) + "," + csv_field(r.unit) + "," + csv_number(r.native) + "," + csv_number(r.remote) +
           "," + csv_number(r.ratio) + "," + csv_field(r.bar) + "," + csv_number(r.limit) + "," +
           verdict_name(r.verdict) + "\n";
  return out;
}

std::string json(const ReportHeader& h, const std::vector<Row>& rows) {
  std::string out = "{\n";
  out += "  \"date\": " + json_string(h.date_utc) + ",\n";
  out += "  \"host\": " + json_string(h.host) + ",\n";
  out += "  \"server\": " + json_string(h.server) + ",\n";
  out += "  \"backend\": " + json_string(h.backend) + ",\n";
  out += "  \"server_device\": " + json_string(h.server_device) + ",\n";
  out += "  \"native_device\": " + (h.native_device.empty() ? std::string("null") : json_string(h.native_device)) + ",\n";
  out += std::string("  \"quick\": ") + (h.quick ? "true" : "false") + ",\n";
  out += "  \"rows\": [";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const char* verdict = verdict_name(r.verdict);
    out += i ? ",\n    " : "\n    ";
    out += "{\"metric\": " + json_string(r.metric) + ", \"unit\": " + json_string(r.unit) +
           ", \"native\": " + json_number(r.native) + ", \"remote\": " + json_number(r.remote) +
           ", \"ratio\": " + json_number(r.ratio) + ", \"bar\": " + (r.bar.empty() ? "null" : json_string(r.bar)) +
           ", \"limit\": " + json_number(r.limit) + ", \"verdict\": " + (*verdict ? json_string(verdict) : "null") + "}";
  }
  out += rows.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c < 0x20) out += printf_text("\\u%04x", c);
    else out += static_cast<char>(c);
  }
  return out + "\"";
}

std::string json_number(const std::optional<double>& v) { return v ? printf_text("%.10g", *v) : "null"; }

std::string format_columns(const std::vector<std::vector<std::string>>& lines, const std::vector<bool>& right) {
  std::vector<size_t> width(right.size());
  for (const auto& l : lines)
    for (size_t c = 0; c < l.size() && c < width.size(); ++c) width[c] = std::max(width[c], l[c].size());
  std::string out;
  for (const auto& l : lines) {
    std::string line;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < l.size() ? l[c] : "";
      std::string pad(width[c] - cell.size(), ' ');
      line += right[c] ? pad + cell : cell + pad;
      if (c + 1 < width.size()) line += "  ";
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "unknown";
}

std::string format_value(double value, const std::string& unit) {
  if (unit == "GB/s") return printf_text("%.2f", value);
  if (unit == "us") return printf_text("%.1f", value);
  if (unit == "launches/s") return printf_text("%.0f", value);
  return printf_text("%.3g", value);
}

std::string format_report(Format format, const ReportHeader& header, const std::vector<Row>& rows) {
  switch (format) {
    case Format::kCsv: return csv(header, rows);
    case Format::kJson: return json(header, rows);
    case Format::kTable: break;
  }
  return table(header, rows);
}

}  // namespace rgpu::bench
