// The figures of `rgpu bench pool` and their bars: from the spin workers' completion bins
// (bench/cli/worker_output.h) to shares of solo throughput, errors against the targets, the time a
// compute change takes to show, and the table (or JSON) that reports them. Pure functions, so the
// arithmetic is tested without a GPU or a daemon (tests/bench/pool_report_test.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/cli/report.h"
#include "bench/cli/worker_output.h"
#include "common/status.h"

namespace rgpu::bench {

// A time span on CLOCK_MONOTONIC, in ns.
struct Interval {
  int64_t from_ns = 0;
  int64_t to_ns = 0;
  int64_t length_ns() const { return to_ns - from_ns; }
};

// Start-up left out of every measured interval: connections, first turns, a cap's initial burst.
inline constexpr int64_t kStartupTrimNs = 200'000'000;
// The shortest interval a rate is taken over.
inline constexpr int64_t kMinIntervalNs = 100'000'000;

// Where all the series were producing at once (each one's [from, to]), with `trim_ns` cut from
// the start. An error when that is shorter than kMinIntervalNs.
Result<Interval> steady_interval(const std::vector<const Bins*>& series, int64_t trim_ns = kStartupTrimNs);

// Events per second over the bins that lie wholly inside `iv`. An error when no bin does.
Result<double> rate_in(const Bins& bins, const Interval& iv);

// Each share as a percent of their sum: shares summing to 100 are their own targets.
std::vector<double> normalised_targets(const std::vector<int>& shares);

// The share bar, in pp: 3, or 0.5 for a tenant whose target is at most 1 %.
double share_tolerance_pp(double target_pct);
inline constexpr double kShareBarPp = 3;
// A compute change must show within this long, and the new share then hold within kShareBarPp.
inline constexpr double kChangeBarMs = 100;
// The span after a change whose events time it (change_timing): longer than the bar, short of the run.
inline constexpr int64_t kChangeHorizonNs = 300'000'000;
// A step smaller than this (pp) is too small to time against the turns' phase.
inline constexpr double kMinStepPp = 5;
// The windows the report shows a share's spread over (window_shares).
inline constexpr int64_t kWindowNs = 200'000'000;
// Scheduler overhead: a lone sliced tenant's launch rate against a whole-GPU session's.
inline constexpr double kOverheadBar = 0.95;
// ... and its PyTorch step times against the whole-GPU session's.
inline constexpr double kStepTimeBar = 1.02;

// One line of the report.
struct PoolRow {
  std::string run;     // "shares 10/90, 1000 us kernels, sync every 8"
  std::string tenant;  // "t0"; empty for a figure of the whole run
  std::string unit;    // "%" (target and achieved in percent, error in pp), "ms" or "x"
  std::optional<double> target;
  std::optional<double> achieved;
  std::optional<double> error;  // achieved - target, pp (unit "%")
  std::string bar;              // "|error| <= 3 pp"
  Verdict verdict = Verdict::kNone;
  std::string detail;  // the raw numbers behind the figure
};

// achieved = together / solo in percent, against `target_pct`, with the share bar.
PoolRow share_row(const std::string& run, const std::string& tenant, double target_pct, double solo_rate,
                  double together_rate);
// The same figure for a lone capped tenant: capped / uncapped against the cap, bar +- 3.
PoolRow cap_row(const std::string& run, const std::string& tenant, int cap_pct, double uncapped_rate,
                double capped_rate);

// The share of `solo_rate` (percent) in each window of `window_ns` (whole bins) lying wholly in
// `iv`, the windows one bin apart: how much a share moves over short spans.
struct WindowShare {
  int64_t start_ns = 0;
  double share_pct = 0;
};
std::vector<WindowShare> window_shares(const Bins& bins, double solo_rate, const Interval& iv,
                                       int64_t window_ns = kWindowNs);

// "17.5-22.0 %": the lowest and highest of the windows' shares; "none" when there are none.
std::string share_range_text(const std::vector<WindowShare>& windows);

// When a compute change showed, from the tenant's GPU time rather than from windows of it: a share
// holds only over many turns (200 ms windows of a steady 20 % tenant span 12.5-30.8 % on the H200,
// the turns being 10 ms and more), while the GPU time a tenant is short of its new share, summed
// over a span, does not depend on where the turns fall but at its two ends. The old share is the
// rate before the change; the new one, the rate after `horizon_ns` past the first whole bin after
// the change; the delay is what the tenant's events in that span fall short of the new share's,
// over the step (new - old), plus the part bin the span starts after the change (no credit).
// nullopt when an interval holds no whole bin, or the step is under kMinStepPp.
struct ChangeTiming {
  double delay_ms = 0;
  double before_pct = 0;  // the share before the change
  double after_pct = 0;   // the share from the horizon on
};
std::optional<ChangeTiming> change_timing(const Bins& bins, double solo_rate, int64_t change_ns, const Interval& iv,
                                          int64_t horizon_ns = kChangeHorizonNs);
// The change's row: the delay against kChangeBarMs and the new share against `new_target_pct`.
PoolRow change_row(const std::string& run, const std::string& tenant, double new_target_pct,
                   const std::optional<ChangeTiming>& timing, const std::string& detail);

// The overhead run's figures come in pairs: round i's sliced figure over round i's whole-GPU one,
// the two measured one right after the other, so what drifts over a run (the H200's launch rate
// moves by 20 % within one) falls on both halves of a pair and cancels in its ratio.
struct PairedRatio {
  size_t pairs = 0;
  double median = 0;      // of the pairs' ratios sliced / whole
  double low = 0;         // a distribution-free interval of that median: order statistics of the
  double high = 0;        // sorted ratios, chosen by the binomial(pairs, 1/2) law
  double confidence = 0;  // its coverage: at least 0.95 from 6 pairs on, less below
};
// Pairs sliced[i] / whole[i] (the shorter length counts; a pair with a whole figure <= 0 is left
// out). No pairs: pairs == 0 and nothing else set.
PairedRatio paired_ratio(const std::vector<double>& sliced, const std::vector<double>& whole);

// Launch rates per round: the median pair against kOverheadBar.
PoolRow overhead_row(const std::string& run, const std::vector<double>& sliced_rates,
                     const std::vector<double>& whole_rates);
// Launch + sync latency of the same rounds (us): the median pair, measured and shown, no bar.
PoolRow latency_row(const std::string& run, const std::vector<double>& sliced_us, const std::vector<double>& whole_us);

// A PyTorch step time as the GPU suite's scripts print it on stderr (tests/gpu/torch/suite.py):
// "WORKLOAD: 13.516 ms/step".
struct StepTime {
  std::string workload;
  double ms = 0;
};
std::vector<StepTime> parse_step_times(const std::string& text);
// One round of bench/worker/torch_rounds.py: its "rgpu-round N: SIDE" line and the step times the
// child printed after it.
struct RoundSteps {
  int round = 0;
  std::string side;  // "whole", "sliced"
  std::vector<StepTime> steps;
};
// The rounds in the order printed; lines before the first round's are ignored.
std::vector<RoundSteps> parse_round_step_times(const std::string& text);
// One workload's step times, paired: sliced[i] and whole[i] come from rounds 2i+1 and 2i+2, which
// the bench runs one right after the other (in either order). A pair that lacks a side, or a
// round printed twice, is left out.
struct PairedSteps {
  std::vector<double> sliced_ms, whole_ms;
};
std::map<std::string, PairedSteps> paired_step_times(const std::vector<RoundSteps>& rounds);
// The middle value (the mean of the two middle ones for an even count); 0 for none.
double median(std::vector<double> values);
// ms per step per round: the median pair against kStepTimeBar.
PoolRow step_time_row(const std::string& workload, const std::vector<double>& sliced_ms,
                      const std::vector<double>& whole_ms);

// What the requests worker reports (bench/worker: `requests`).
struct RequestFigures {
  double p50_us = 0;
  double p99_us = 0;
  double busy = 0;  // fraction of wall time its kernels kept the GPU
};
inline constexpr double kPriorityP50Bar = 1.05;
inline constexpr double kPriorityP99Bar = 1.10;
inline constexpr double kLowThroughputBar = 0.9;
// The priority run's rows: the high tenant's p50 and p99 beside the low one against alone (bars
// 1.05 and 1.10), and the low one's throughput against alone, whose target is what the high one
// leaves (1 - its busy fraction), bar >= 0.9 x that.
std::vector<PoolRow> priority_rows(const std::string& run, const RequestFigures& alone, const RequestFigures& beside,
                                   double low_solo_rate, double low_beside_rate);

// The over-commit run's swaps, from rgpud's log: the gate's lines "swapped N MiB out to host
// memory in T ms" and "swapped N MiB back in from host memory in T ms" (server/session/
// compute_gate.cpp), as GB/s each.
struct SwapRates {
  std::vector<double> out_gbps, in_gbps;
};
SwapRates parse_swap_log(const std::string& log);
inline constexpr double kSwapRateBar = 20.0;  // GB/s, each way (a 40 GiB session on the H200)
// The over-commit run's rows: swap-out and swap-in GB/s (median, bar >= kSwapRateBar, the slowest
// in the detail), the longest pause a tenant saw at its first call after idling, and whether every
// tenant found its data intact.
std::vector<PoolRow> overcommit_rows(const std::string& run, const SwapRates& swaps, double max_pause_ms, bool intact,
                                     int tenants_intact, int tenants);

inline constexpr double kQueueStartBarMs = 100;
// The queue run's rows: per round, the time from the end of the program that held the room to the
// start of the session that waited for it (ms); the median and the slowest against
// kQueueStartBarMs. `waited_ms`: how long each waiting session waited in all (it must have queued).
std::vector<PoolRow> queue_rows(const std::string& run, const std::vector<double>& start_ms,
                                const std::vector<double>& waited_ms);

struct PoolHeader {
  std::string date_utc;
  std::string host;
  std::string backend;  // from rgpud's Welcome
  std::string device;
  bool emulated = false;
  double duration_s = 0;
};

// The report: an aligned table with a header, or JSON.
std::string format_pool_report(const PoolHeader& header, const std::vector<PoolRow>& rows, bool json);

}  // namespace rgpu::bench
