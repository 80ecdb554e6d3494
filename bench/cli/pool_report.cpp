// Figures and bars of `rgpu bench pool` (see pool_report.h).
#include "bench/cli/pool_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string_view>

#include "bench/cli/format.h"

namespace rgpu::bench {
namespace {

// The lines of `text` (without their '\n').
std::vector<std::string_view> lines_of(const std::string& text) {
  std::vector<std::string_view> out;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.emplace_back(text.data() + start, end - start);
    start = end + 1;
  }
  return out;
}

// "WORKLOAD: 13.516 ms/step", or nothing.
std::optional<StepTime> step_time_of(std::string_view line) {
  static constexpr std::string_view kSuffix = " ms/step";
  const size_t colon = line.rfind(": ");
  if (colon == std::string_view::npos || !line.ends_with(kSuffix)) return std::nullopt;
  const std::string number(line.substr(colon + 2, line.size() - kSuffix.size() - colon - 2));
  char* stop = nullptr;
  const double ms = std::strtod(number.c_str(), &stop);
  if (number.empty() || *stop || !std::isfinite(ms) || ms <= 0) return std::nullopt;
  return StepTime{std::string(line.substr(0, colon)), ms};
}

std::string rate_text(double per_s) { return printf_text(per_s >= 100 ? "%.0f/s" : "%.2f/s", per_s); }

std::string tolerance_text(double pp) { return printf_text("%g", pp); }

std::string value_text(const std::optional<double>& v, const std::string& unit) {
  if (!v) return "-";
  if (unit == "%") return printf_text("%.2f %%", *v);
  if (unit == "ms") return printf_text("%.0f ms", *v);
  if (unit == "x") return printf_text("%.3fx", *v);
  return printf_text("%.3g", *v) + " " + unit;
}

std::string error_text(const std::optional<double>& e) { return e ? printf_text("%+.2f pp", *e) : ""; }

Verdict judge(bool ok) { return ok ? Verdict::kOk : Verdict::kMiss; }

}  // namespace

Result<Interval> steady_interval(const std::vector<const Bins*>& series, int64_t trim_ns) {
  if (series.empty()) return RGPU_ERROR(kInvalidArgument, "no series to line up");
  Interval iv{INT64_MIN, INT64_MAX};
  for (const Bins* b : series) {
    iv.from_ns = std::max(iv.from_ns, b->epoch_ns + b->from_ns);
    iv.to_ns = std::min(iv.to_ns, b->epoch_ns + b->to_ns);
  }
  iv.from_ns += trim_ns;
  if (iv.length_ns() < kMinIntervalNs)
    return RGPU_ERROR(kInvalidArgument, "the runs overlapped for " + printf_text("%.0f", double(iv.length_ns()) / 1e6) +
                                            " ms after start-up, less than " +
                                            printf_text("%.0f", double(kMinIntervalNs) / 1e6) +
                                            " ms: a longer --duration is needed");
  return iv;
}

Result<double> rate_in(const Bins& bins, const Interval& iv) {
  // Bin b covers [epoch + b w, epoch + (b + 1) w).
  const int64_t w = bins.width_ns;
  const int64_t first = std::max<int64_t>(0, (iv.from_ns - bins.epoch_ns + w - 1) / w);
  const int64_t end = (iv.to_ns - bins.epoch_ns) / w;  // one past the last whole bin
  if (iv.from_ns - bins.epoch_ns < 0 || end <= first)
    return RGPU_ERROR(kInvalidArgument, bins.name + ": no whole bin lies in the interval");
  int64_t events = 0;
  for (int64_t b = first; b < end; ++b)
    if (static_cast<size_t>(b) < bins.counts.size()) events += bins.counts[b];
  return static_cast<double>(events) / (static_cast<double>((end - first) * w) / 1e9);
}

std::vector<double> normalised_targets(const std::vector<int>& shares) {
  const double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
  std::vector<double> targets;
  for (int s : shares) targets.push_back(sum > 0 ? 100.0 * s / sum : 0);
  return targets;
}

double share_tolerance_pp(double target_pct) { return target_pct <= 1.0 + 1e-9 ? 0.5 : kShareBarPp; }

PoolRow share_row(const std::string& run, const std::string& tenant, double target_pct, double solo_rate,
                  double together_rate) {
  PoolRow row{run, tenant, "%", target_pct, {}, {}, {}, Verdict::kNone,
              "solo " + rate_text(solo_rate) + ", together " + rate_text(together_rate)};
  const double tol = share_tolerance_pp(target_pct);
  row.bar = "|error| <= " + tolerance_text(tol) + " pp";
  if (solo_rate > 0) {
    row.achieved = 100.0 * together_rate / solo_rate;
    row.error = *row.achieved - target_pct;
    row.verdict = judge(std::fabs(*row.error) <= tol);
  }
  return row;
}

PoolRow cap_row(const std::string& run, const std::string& tenant, int cap_pct, double uncapped_rate,
                double capped_rate) {
  PoolRow row = share_row(run, tenant, cap_pct, uncapped_rate, capped_rate);
  row.bar = std::to_string(cap_pct) + " +- 3 % of solo";
  if (row.error) row.verdict = judge(std::fabs(*row.error) <= 3.0);
  row.detail = "uncapped " + rate_text(uncapped_rate) + ", capped " + rate_text(capped_rate);
  return row;
}

std::vector<WindowShare> window_shares(const Bins& bins, double solo_rate, const Interval& iv, int64_t window_ns) {
  std::vector<WindowShare> out;
  const int64_t w = bins.width_ns;
  if (solo_rate <= 0 || w <= 0) return out;
  const int64_t k = std::max<int64_t>(1, window_ns / w);
  for (int64_t j = std::max<int64_t>((iv.from_ns - bins.epoch_ns + w - 1) / w, 0);; ++j) {
    const int64_t start = bins.epoch_ns + j * w;
    if (start + k * w > iv.to_ns || j + k > static_cast<int64_t>(bins.counts.size())) break;
    int64_t events = 0;
    for (int64_t b = j; b < j + k; ++b) events += bins.counts[static_cast<size_t>(b)];
    out.push_back({start, 100.0 * static_cast<double>(events) / (static_cast<double>(k * w) / 1e9) / solo_rate});
  }
  return out;
}

std::string share_range_text(const std::vector<WindowShare>& windows) {
  if (windows.empty()) return "none";
  auto [low, high] = std::minmax_element(windows.begin(), windows.end(),
                                         [](const WindowShare& a, const WindowShare& b) { return a.share_pct < b.share_pct; });
  return printf_text("%.1f", low->share_pct) + "-" + printf_text("%.1f %%", high->share_pct);
}

std::optional<ChangeTiming> change_timing(const Bins& bins, double solo_rate, int64_t change_ns, const Interval& iv,
                                          int64_t horizon_ns) {
  const int64_t w = bins.width_ns;
  if (solo_rate <= 0 || w <= 0 || change_ns < bins.epoch_ns) return std::nullopt;
  // From the first whole bin after the change, `horizon_ns` in whole bins.
  const int64_t first = (change_ns - bins.epoch_ns + w - 1) / w;
  const int64_t k = std::max<int64_t>(1, horizon_ns / w);
  const int64_t start = bins.epoch_ns + first * w, end = start + k * w;
  if (first + k > static_cast<int64_t>(bins.counts.size())) return std::nullopt;
  auto before = rate_in(bins, Interval{iv.from_ns, change_ns});
  auto after = rate_in(bins, Interval{end, iv.to_ns});
  if (!before.is_ok() || !after.is_ok()) return std::nullopt;
  ChangeTiming t;
  t.before_pct = 100.0 * *before / solo_rate;
  t.after_pct = 100.0 * *after / solo_rate;
  if (std::fabs(t.after_pct - t.before_pct) < kMinStepPp) return std::nullopt;
  int64_t events = 0;
  for (int64_t b = first; b < first + k; ++b) events += bins.counts[static_cast<size_t>(b)];
  // The change showed `delay` into the horizon when the tenant ran at the old share until then and
  // at the new one after: its events fall short of the new share's by (new - old) x delay.
  const double horizon_s = static_cast<double>(k * w) / 1e9;
  const double short_s = horizon_s * t.after_pct / 100.0 - static_cast<double>(events) / solo_rate;
  const double delay_s = short_s / ((t.after_pct - t.before_pct) / 100.0);
  t.delay_ms = std::max(0.0, delay_s) * 1e3 + static_cast<double>(start - change_ns) / 1e6;
  return t;
}

PoolRow change_row(const std::string& run, const std::string& tenant, double new_target_pct,
                   const std::optional<ChangeTiming>& timing, const std::string& detail) {
  PoolRow row{run, tenant, "ms", {}, {}, {}, {}, Verdict::kMiss, detail};
  if (timing) {
    row.achieved = timing->delay_ms;
    row.verdict = judge(timing->delay_ms <= kChangeBarMs && std::fabs(timing->after_pct - new_target_pct) <= kShareBarPp);
  }
  row.bar = "shows within " + printf_text("%.0f", kChangeBarMs) + " ms, then " + printf_text("%.1f", new_target_pct) +
            " +- " + tolerance_text(kShareBarPp) + " %";
  return row;
}

PairedRatio paired_ratio(const std::vector<double>& sliced, const std::vector<double>& whole) {
  std::vector<double> ratios;
  for (size_t i = 0; i < std::min(sliced.size(), whole.size()); ++i)
    if (whole[i] > 0) ratios.push_back(sliced[i] / whole[i]);
  PairedRatio r;
  r.pairs = ratios.size();
  if (ratios.empty()) return r;
  std::sort(ratios.begin(), ratios.end());
  r.median = median(ratios);
  // [x(j), x(n-j+1)] (1-based) holds the median with probability 1 - 2 P(B <= j-1), B ~ Bin(n, 1/2):
  // the widest j whose coverage stays at 95 % or above, else the whole range.
  const size_t n = ratios.size();
  auto below = [n](size_t k) {  // P(B <= k)
    double p = 0;
    for (size_t i = 0; i <= k; ++i)
      p += std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(i) + 1) - std::lgamma(double(n - i) + 1) -
                    double(n) * std::log(2.0));
    return p;
  };
  size_t j = 1;
  while (j + 1 <= (n + 1) / 2 && 1 - 2 * below(j) >= 0.95) ++j;
  r.low = ratios[j - 1];
  r.high = ratios[n - j];
  r.confidence = 1 - 2 * below(j - 1);
  return r;
}

namespace {

// "median of 20 pairs; 95 % interval 0.970-1.031 x; sliced median 301234/s, whole GPU 300000/s".
std::string paired_detail(const PairedRatio& p, const std::string& sliced_median, const std::string& whole_median) {
  return "median of " + std::to_string(p.pairs) + (p.pairs == 1 ? " pair; " : " pairs; ") +
         printf_text("%.0f %% interval ", std::floor(p.confidence * 100)) + printf_text("%.3f", p.low) + "-" +
         printf_text("%.3f x; sliced median ", p.high) + sliced_median + ", whole GPU " + whole_median;
}

// A row of paired figures: achieved is the median pair's ratio, judged by `ok` when there are pairs.
PoolRow paired_row(std::string run, std::string bar, const PairedRatio& p, const std::string& sliced_median,
                   const std::string& whole_median, bool (*ok)(double)) {
  PoolRow row{std::move(run), "", "x", {}, {}, {}, std::move(bar), Verdict::kNone, "no pairs"};
  if (p.pairs == 0) return row;
  row.achieved = p.median;
  if (ok) row.verdict = judge(ok(p.median));
  row.detail = paired_detail(p, sliced_median, whole_median);
  return row;
}

}  // namespace

PoolRow overhead_row(const std::string& run, const std::vector<double>& sliced_rates,
                     const std::vector<double>& whole_rates) {
  return paired_row(run, ">= " + printf_text("%.2f", kOverheadBar) + " x whole-GPU session",
                    paired_ratio(sliced_rates, whole_rates), rate_text(median(sliced_rates)),
                    rate_text(median(whole_rates)), [](double x) { return x >= kOverheadBar; });
}

PoolRow latency_row(const std::string& run, const std::vector<double>& sliced_us, const std::vector<double>& whole_us) {
  return paired_row(run, "(measured, no bar)", paired_ratio(sliced_us, whole_us),
                    printf_text("%.1f us", median(sliced_us)), printf_text("%.1f us", median(whole_us)), nullptr);
}

std::vector<StepTime> parse_step_times(const std::string& text) {
  std::vector<StepTime> out;
  for (const std::string_view line : lines_of(text))
    if (std::optional<StepTime> t = step_time_of(line)) out.push_back(std::move(*t));
  return out;
}

std::vector<RoundSteps> parse_round_step_times(const std::string& text) {
  static constexpr std::string_view kMark = "rgpu-round ";
  std::vector<RoundSteps> out;
  for (const std::string_view line : lines_of(text)) {
    if (line.starts_with(kMark)) {
      const size_t colon = line.find(": ");
      const std::string number(line.substr(kMark.size(), colon == std::string_view::npos ? 0 : colon - kMark.size()));
      char* stop = nullptr;
      const long round = std::strtol(number.c_str(), &stop, 10);
      if (!number.empty() && !*stop && round > 0 && colon + 2 < line.size()) {
        out.push_back(RoundSteps{static_cast<int>(round), std::string(line.substr(colon + 2)), {}});
        continue;
      }
    }
    if (out.empty()) continue;
    if (std::optional<StepTime> t = step_time_of(line)) out.back().steps.push_back(std::move(*t));
  }
  return out;
}

std::map<std::string, PairedSteps> paired_step_times(const std::vector<RoundSteps>& rounds) {
  struct Pair {
    std::optional<double> sliced, whole;
    bool spoilt = false;  // a side printed twice
  };
  std::map<std::string, std::map<int, Pair>> pairs;  // workload -> pair number -> its two sides
  for (const RoundSteps& r : rounds) {
    if (r.side != "sliced" && r.side != "whole") continue;
    for (const StepTime& t : r.steps) {
      Pair& p = pairs[t.workload][(r.round + 1) / 2];
      std::optional<double>& side = r.side == "sliced" ? p.sliced : p.whole;
      p.spoilt |= side.has_value();
      side = t.ms;
    }
  }
  std::map<std::string, PairedSteps> out;
  for (const auto& [workload, numbered] : pairs)
    for (const auto& [number, p] : numbered) {
      if (p.spoilt || !p.sliced || !p.whole) continue;
      out[workload].sliced_ms.push_back(*p.sliced);
      out[workload].whole_ms.push_back(*p.whole);
    }
  return out;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

PoolRow step_time_row(const std::string& workload, const std::vector<double>& sliced_ms,
                      const std::vector<double>& whole_ms) {
  return paired_row("overhead: PyTorch step time, lone slice / whole GPU: " + workload,
                    "<= " + printf_text("%.2f", kStepTimeBar) + " x whole-GPU session", paired_ratio(sliced_ms, whole_ms),
                    printf_text("%.3f ms", median(sliced_ms)), printf_text("%.3f ms", median(whole_ms)),
                    [](double x) { return x <= kStepTimeBar; });
}

SwapRates parse_swap_log(const std::string& log) {
  SwapRates r;
  for (const std::string_view view : lines_of(log)) {
    const std::string line(view);  // sscanf needs its end
    double mib = 0, ms = 0;
    const size_t at = line.find("swapped ");
    if (at == std::string::npos) continue;
    const char* text = line.c_str() + at;
    bool out = std::sscanf(text, "swapped %lf MiB out to host memory in %lf ms", &mib, &ms) == 2;
    bool in = !out && std::sscanf(text, "swapped %lf MiB back in from host memory in %lf ms", &mib, &ms) == 2;
    if ((!out && !in) || ms <= 0) continue;
    (out ? r.out_gbps : r.in_gbps).push_back(mib * 1048576.0 / (ms * 1e6));
  }
  return r;
}

std::vector<PoolRow> overcommit_rows(const std::string& run, const SwapRates& swaps, double max_pause_ms, bool intact,
                                     int tenants_intact, int tenants) {
  std::vector<PoolRow> rows;
  auto rate = [&](const char* which, const std::vector<double>& gbps) {
    PoolRow row{run + ": " + which + " GB/s (median of " + std::to_string(gbps.size()) + ")", "", "GB/s", {}, {}, {},
                ">= " + printf_text("%.0f", kSwapRateBar) + " GB/s", Verdict::kNone, "no swap seen"};
    if (!gbps.empty()) {
      row.achieved = median(gbps);
      row.verdict = judge(*row.achieved >= kSwapRateBar);
      row.detail = "slowest " + printf_text("%.1f", *std::min_element(gbps.begin(), gbps.end())) + ", fastest " +
                   printf_text("%.1f", *std::max_element(gbps.begin(), gbps.end())) + " GB/s";
    }
    rows.push_back(std::move(row));
  };
  rate("swap-out", swaps.out_gbps);
  rate("swap-in", swaps.in_gbps);
  rows.push_back(PoolRow{run + ": pause at the first call after idling (longest)", "", "ms", {}, max_pause_ms, {},
                         "(measured, no bar)", Verdict::kNone, "its swap-in and any wait for another's swap-out"});
  rows.push_back(PoolRow{run + ": every tenant's data intact after its swaps", "", "", {}, {}, {}, "all tenants",
                         judge(intact), std::to_string(tenants_intact) + " of " + std::to_string(tenants) + " intact"});
  return rows;
}

std::vector<PoolRow> queue_rows(const std::string& run, const std::vector<double>& start_ms,
                                const std::vector<double>& waited_ms) {
  std::string detail = "rounds:";
  for (double ms : start_ms) detail += printf_text(" %.1f", ms);
  detail += " ms; each waited";
  for (double ms : waited_ms) detail += printf_text(" %.0f", ms);
  detail += " ms in all";
  const std::string bar = "<= " + printf_text("%.0f", kQueueStartBarMs) + " ms";
  PoolRow mid{run + ": start after the room frees (median)", "", "ms", {}, {}, {}, bar, Verdict::kNone, detail};
  PoolRow worst{run + ": start after the room frees (slowest)", "", "ms", {}, {}, {}, bar, Verdict::kNone, "no round"};
  if (!start_ms.empty()) {
    mid.achieved = median(start_ms);
    mid.verdict = judge(*mid.achieved <= kQueueStartBarMs);
    worst.achieved = *std::max_element(start_ms.begin(), start_ms.end());
    worst.verdict = judge(*worst.achieved <= kQueueStartBarMs);
    worst.detail = "of " + std::to_string(start_ms.size());
  }
  return {mid, worst};
}

std::vector<PoolRow> priority_rows(const std::string& run, const RequestFigures& alone, const RequestFigures& beside,
                                   double low_solo_rate, double low_beside_rate) {
  std::vector<PoolRow> rows;
  auto latency = [&](const char* which, double solo_us, double with_us, double bar) {
    std::string detail = "beside the low one ";
    detail.append(printf_text("%.1f us", with_us)).append(", alone ").append(printf_text("%.1f us", solo_us));
    PoolRow row{run, "high", "x", {}, {}, {}, std::string(which) + " <= " + printf_text("%.2f", bar) + " x alone",
                Verdict::kNone, std::move(detail)};
    if (solo_us > 0) {
      row.achieved = with_us / solo_us;
      row.verdict = judge(*row.achieved <= bar);
    }
    rows.push_back(std::move(row));
  };
  latency("request p50", alone.p50_us, beside.p50_us, kPriorityP50Bar);
  latency("request p99", alone.p99_us, beside.p99_us, kPriorityP99Bar);
  const double target = 100.0 * std::clamp(1.0 - beside.busy, 0.0, 1.0);
  PoolRow low{run, "low", "%", target, {}, {}, ">= " + printf_text("%.1f", kLowThroughputBar) + " x target (what high leaves)",
              Verdict::kNone, "together " + rate_text(low_beside_rate) + ", alone " + rate_text(low_solo_rate) +
                                  printf_text("; high busy %.1f %%", 100.0 * beside.busy)};
  if (low_solo_rate > 0) {
    low.achieved = 100.0 * low_beside_rate / low_solo_rate;
    low.error = *low.achieved - target;
    low.verdict = judge(*low.achieved >= kLowThroughputBar * target);
  }
  rows.push_back(std::move(low));
  return rows;
}

std::string format_pool_report(const PoolHeader& h, const std::vector<PoolRow>& rows, bool json) {
  if (json) {
    std::string out = "{\n";
    out += "  \"date\": " + json_string(h.date_utc) + ",\n";
    out += "  \"host\": " + json_string(h.host) + ",\n";
    out += "  \"backend\": " + json_string(h.backend) + ",\n";
    out += "  \"device\": " + json_string(h.device) + ",\n";
    out += std::string("  \"emulated\": ") + (h.emulated ? "true" : "false") + ",\n";
    out += "  \"duration_s\": " + json_number(h.duration_s) + ",\n";
    out += "  \"rows\": [";
    for (size_t i = 0; i < rows.size(); ++i) {
      const PoolRow& r = rows[i];
      const char* verdict = verdict_name(r.verdict);
      out += i ? ",\n    " : "\n    ";
      out += "{\"run\": " + json_string(r.run) + ", \"tenant\": " + json_string(r.tenant) +
             ", \"unit\": " + json_string(r.unit) + ", \"target\": " + json_number(r.target) +
             ", \"achieved\": " + json_number(r.achieved) + ", \"error\": " + json_number(r.error) +
             ", \"bar\": " + json_string(r.bar) + ", \"verdict\": " + (*verdict ? json_string(verdict) : "null") +
             ", \"detail\": " + json_string(r.detail) + "}";
    }
    out += rows.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return out;
  }
  std::string out = "rgpu bench pool  " + h.date_utc + "  host " + h.host + "\n";
  out += "rgpud: " + h.backend + " backend, " + h.device + "; " + printf_text("%g", h.duration_s) + " s per run" +
         (h.emulated ? "  (emulated: kernels do not run, the figures check the plumbing only)" : "") + "\n\n";
  std::vector<std::vector<std::string>> lines = {
      {"run", "tenant", "target", "achieved", "error", "bar", "verdict", "detail"}};
  for (const auto& r : rows)
    lines.push_back({r.run, r.tenant, value_text(r.target, r.unit), value_text(r.achieved, r.unit), error_text(r.error),
                     r.bar, verdict_name(r.verdict), r.detail});
  out += format_columns(lines, {false, false, true, true, true, false, false, false});
  return out;
}

}  // namespace rgpu::bench
