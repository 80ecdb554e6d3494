// The figures of `rgpu bench pool`: rates from bins, the overlapped interval, shares, errors,
// bars, the timing of a compute change, and the report.
#include <catch2/catch.hpp>

#include "bench/cli/pool_report.h"
#include "bench/cli/pool_run.h"

using namespace rgpu::bench;

namespace {

constexpr int64_t kMs = 1'000'000;

// `n` bins of 10 ms from `epoch`, each with `per_bin` events; producing from `from_ms` to `to_ms`.
Bins series(int64_t epoch, int n, int64_t per_bin, int64_t from_ms, int64_t to_ms) {
  Bins b{"spin_completions", epoch, 10 * kMs, from_ms * kMs, to_ms * kMs, std::vector<int64_t>(n, per_bin)};
  return b;
}

}  // namespace

TEST_CASE("targets are shares normalised to 100") {
  CHECK(normalised_targets({10, 90}) == std::vector<double>{10, 90});
  auto t = normalised_targets({10, 40});
  CHECK(t[0] == Approx(20));
  CHECK(t[1] == Approx(80));
  auto four = normalised_targets({10, 20, 30, 40});
  CHECK(four[3] == Approx(40));
}

TEST_CASE("the steady interval is where all series overlap, start-up trimmed") {
  Bins a = series(1000 * kMs, 300, 10, 0, 3000);
  Bins b = series(1000 * kMs, 300, 10, 50, 2900);
  auto iv = steady_interval({&a, &b});
  REQUIRE(iv.is_ok());
  CHECK(iv->from_ns == 1000 * kMs + 50 * kMs + kStartupTrimNs);
  CHECK(iv->to_ns == 1000 * kMs + 2900 * kMs);

  Bins late = series(1000 * kMs, 300, 10, 2800, 3000);
  auto none = steady_interval({&a, &late});
  REQUIRE_FALSE(none.is_ok());
  CHECK(none.status().message().find("longer --duration") != std::string::npos);
}

TEST_CASE("a rate counts the whole bins inside the interval only") {
  Bins b = series(0, 100, 10, 0, 1000);  // 10 events per 10 ms: 1000/s
  b.counts[0] = 1000;                     // start-up burst, outside the interval
  auto r = rate_in(b, Interval{5 * kMs, 995 * kMs});  // whole bins 1..98
  REQUIRE(r.is_ok());
  CHECK(*r == Approx(1000));
  // Bins past the recorded ones count as empty (nothing completed there).
  Bins shorter = series(0, 50, 10, 0, 1000);
  CHECK(*rate_in(shorter, Interval{0, 1000 * kMs}) == Approx(500));
  CHECK_FALSE(rate_in(b, Interval{1 * kMs, 9 * kMs}).is_ok());
}

TEST_CASE("share rows: achieved = together / solo, error in pp, the 3 pp and 0.5 pp bars") {
  PoolRow r = share_row("10/90", "t0", 10, 1000, 112);
  REQUIRE(r.achieved);
  CHECK(*r.achieved == Approx(11.2));
  CHECK(*r.error == Approx(1.2));
  CHECK(r.verdict == Verdict::kOk);
  CHECK(r.bar == "|error| <= 3 pp");
  CHECK(share_row("10/90", "t1", 90, 1000, 860).verdict == Verdict::kMiss);  // -4 pp

  PoolRow one = share_row("1/99", "t0", 1, 1000, 16);  // 1.6 %: within 3 pp, not within 0.5
  CHECK(one.bar == "|error| <= 0.5 pp");
  CHECK(one.verdict == Verdict::kMiss);
  CHECK(share_row("1/99", "t0", 1, 1000, 13).verdict == Verdict::kOk);
  CHECK(share_tolerance_pp(1) == 0.5);
  CHECK(share_tolerance_pp(2) == 3);

  PoolRow nothing = share_row("x", "t0", 10, 0, 5);  // no solo rate: no figure, no verdict
  CHECK_FALSE(nothing.achieved);
  CHECK(nothing.verdict == Verdict::kNone);
}

TEST_CASE("cap rows: capped / uncapped against the cap, +- 3") {
  CHECK(cap_row("cap", "t0", 30, 1000, 320).verdict == Verdict::kOk);
  CHECK(cap_row("cap", "t0", 30, 1000, 340).verdict == Verdict::kMiss);
  CHECK(cap_row("cap", "t0", 30, 1000, 320).bar == "30 +- 3 % of solo");
}

TEST_CASE("window shares: each 200 ms window wholly inside the interval, one bin apart, and their range") {
  // Solo 1000/s = 10 per bin: 2 per bin is 20 %; bins 50..59 at 4 lift the windows holding them.
  Bins b = series(0, 100, 2, 0, 1000);
  for (int i = 50; i < 60; ++i) b.counts[i] = 4;
  auto w = window_shares(b, 1000, Interval{100 * kMs, 1000 * kMs});
  REQUIRE(w.size() == 71);  // windows start at bins 10..80; the last ends at 1000 ms
  CHECK(w.front().start_ns == 100 * kMs);
  CHECK(w.front().share_pct == Approx(20));
  CHECK(w[40].share_pct == Approx(30));  // bins 50..69: ten at 4, ten at 2
  CHECK(share_range_text(w) == "20.0-30.0 %");
  CHECK(window_shares(b, 1000, Interval{100 * kMs, 250 * kMs}).empty());  // shorter than a window
  CHECK(share_range_text({}) == "none");
}

TEST_CASE("change timing: what the tenant's events fall short of the new share, over the step") {
  // Solo 1000/s = 10 per bin: 20 % (2 per bin) before, 60 % (6 per bin) once the change shows.
  auto stepped = [](int shows_at_bin) {
    Bins b = series(0, 300, 2, 0, 3000);
    for (int i = shows_at_bin; i < 300; ++i) b.counts[i] = 6;
    return b;
  };
  Interval iv{200 * kMs, 3000 * kMs};
  // Shows 30 ms after a change at 1500 ms: bins 150..179 hold 3 x 2 + 27 x 6 = 168 against 180.
  auto t = change_timing(stepped(153), 1000, 1500 * kMs, iv);
  REQUIRE(t);
  CHECK(t->delay_ms == Approx(30));
  CHECK(t->before_pct == Approx(20));
  CHECK(t->after_pct == Approx(60));
  // A change between bins: the span starts at the next whole bin, the part bin counted as delay.
  auto between = change_timing(stepped(153), 1000, 1505 * kMs, iv);
  REQUIRE(between);
  CHECK(between->delay_ms == Approx(25));
  // Shows 200 ms late: 20 bins at 2 and 10 at 6.
  auto late = change_timing(stepped(170), 1000, 1500 * kMs, iv);
  REQUIRE(late);
  CHECK(late->delay_ms == Approx(200));
  // A tenant ahead of the new share at once: no negative delay.
  Bins ahead = stepped(150);
  ahead.counts[150] = 10;
  CHECK(change_timing(ahead, 1000, 1500 * kMs, iv)->delay_ms == Approx(0));

  // No step, or no span after the change: nothing to time.
  CHECK_FALSE(change_timing(series(0, 300, 2, 0, 3000), 1000, 1500 * kMs, iv));
  CHECK_FALSE(change_timing(stepped(153), 1000, 2900 * kMs, iv));

  ChangeTiming on_time{30, 20, 60}, slow{150, 20, 60}, short_of{30, 20, 55};
  CHECK(change_row("change", "t0", 60, on_time, "").verdict == Verdict::kOk);
  CHECK(change_row("change", "t0", 60, slow, "").verdict == Verdict::kMiss);
  CHECK(change_row("change", "t0", 60, short_of, "").verdict == Verdict::kMiss);
  CHECK(change_row("change", "t0", 60, std::nullopt, "").verdict == Verdict::kMiss);
  CHECK(change_row("change", "t0", 60, on_time, "").bar == "shows within 100 ms, then 60.0 +- 3 %");
}

TEST_CASE("paired ratios: the median pair and a distribution-free interval of it") {
  // Pairs are taken index by index: the pairs' ratios 1.1, 0.9, 1.0, not the sides' medians.
  PairedRatio three = paired_ratio({110, 90, 200}, {100, 100, 200});
  CHECK(three.pairs == 3);
  CHECK(three.median == Approx(1.0));
  CHECK(three.low == Approx(0.9));  // below 6 pairs: the whole range, at less than 95 %
  CHECK(three.high == Approx(1.1));
  CHECK(three.confidence == Approx(0.75));
  // 20 pairs: the 6th and 15th of the sorted ratios bound the median at 95.9 %.
  std::vector<double> sliced, whole;
  for (int i = 1; i <= 20; ++i) {
    sliced.push_back(0.9 + 0.01 * i);
    whole.push_back(1);
  }
  PairedRatio twenty = paired_ratio(sliced, whole);
  CHECK(twenty.pairs == 20);
  CHECK(twenty.median == Approx(1.005));
  CHECK(twenty.low == Approx(0.96));
  CHECK(twenty.high == Approx(1.05));
  CHECK(twenty.confidence == Approx(0.9586).epsilon(0.001));
  // The shorter side counts; a whole figure of 0 makes no pair.
  CHECK(paired_ratio({1, 2, 3}, {1, 0}).pairs == 1);
  CHECK(paired_ratio({}, {1}).pairs == 0);
}

TEST_CASE("overhead row: the median pair of launch rates against 0.95") {
  // One lucky sliced round (130k) would set a best-of; the pairs' median is 0.96.
  PoolRow r = overhead_row("overhead", {96000, 130000, 95000, 97000, 96000}, {100000, 100000, 99000, 101000, 100000});
  CHECK(*r.achieved == Approx(0.96));
  CHECK(r.verdict == Verdict::kOk);
  CHECK(r.detail.find("median of 5 pairs; 93 % interval") == 0);
  CHECK(r.detail.find("sliced median 96000/s, whole GPU 100000/s") != std::string::npos);
  CHECK(overhead_row("overhead", {94000, 95000, 93000}, {100000, 100000, 100000}).verdict == Verdict::kMiss);
  PoolRow none = overhead_row("overhead", {}, {});
  CHECK_FALSE(none.achieved);
  CHECK(none.verdict == Verdict::kNone);
}

TEST_CASE("PyTorch step times: parsed from the suite's stderr, judged sliced / whole against 1.02") {
  const std::string err =
      "a warning: 3 ms/step mentioned mid-line is not a step time\n"
      "ResNet-18 training step, batch 64, fp32: 13.516 ms/step\n"
      "noise: abc ms/step\n"
      "20-layer MLP (width 64) inference with .item() each iteration: 0.652 ms/step";
  auto steps = parse_step_times(err);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].workload == "ResNet-18 training step, batch 64, fp32");
  CHECK(steps[0].ms == Approx(13.516));
  CHECK(steps[1].workload == "20-layer MLP (width 64) inference with .item() each iteration");
  CHECK(steps[1].ms == Approx(0.652));
  CHECK(parse_step_times("").empty());
  CHECK(parse_step_times("x: -1 ms/step\nx: 0 ms/step\n").empty());

  // torch_rounds.py's output: what comes before the first marker belongs to no round; a marker
  // that is not one is a line like any other.
  auto rounds = parse_round_step_times(
      "w: 9 ms/step\n"
      "rgpu-round 1: whole\n"
      "mlp: 0.612 ms/step\n"
      "resnet: 13.5 ms/step\n"
      "rgpu-round 2: sliced\n"
      "rgpu-round x: whole\n"
      "mlp: 0.650 ms/step\n"
      "rgpu-round 3: whole\n");
  REQUIRE(rounds.size() == 3);
  CHECK(rounds[0].round == 1);
  CHECK(rounds[0].side == "whole");
  REQUIRE(rounds[0].steps.size() == 2);
  CHECK(rounds[0].steps[1].workload == "resnet");
  CHECK(rounds[0].steps[1].ms == Approx(13.5));
  CHECK(rounds[1].side == "sliced");
  REQUIRE(rounds[1].steps.size() == 1);
  CHECK(rounds[1].steps[0].ms == Approx(0.650));
  CHECK(rounds[2].round == 3);
  CHECK(rounds[2].steps.empty());
  CHECK(parse_round_step_times("mlp: 0.6 ms/step\n").empty());

  CHECK(median({}) == 0);
  CHECK(median({0.7, 0.5, 0.9}) == Approx(0.7));
  CHECK(median({0.9, 0.5, 0.7, 0.6}) == Approx(0.65));

  // Rounds 2i+1 and 2i+2 pair up, in either order; a pair missing a side, or with a side twice, is
  // left out, and so is a side that is neither.
  auto paired = paired_step_times(parse_round_step_times("rgpu-round 1: whole\nmlp: 0.60 ms/step\nres: 13.5 ms/step\n"
                                                         "rgpu-round 2: sliced\nmlp: 0.66 ms/step\n"
                                                         "rgpu-round 3: sliced\nmlp: 0.70 ms/step\nres: 13.6 ms/step\n"
                                                         "rgpu-round 4: whole\nmlp: 0.70 ms/step\nres: 13.4 ms/step\n"
                                                         "rgpu-round 5: whole\nmlp: 0.5 ms/step\n"
                                                         "rgpu-round 6: whole\nmlp: 0.5 ms/step\n"
                                                         "rgpu-round 7: native\nmlp: 0.5 ms/step\n"
                                                         "rgpu-round 8: sliced\nmlp: 0.4 ms/step\n"));
  REQUIRE(paired.size() == 2);
  CHECK(paired["mlp"].sliced_ms == std::vector<double>{0.66, 0.70});
  CHECK(paired["mlp"].whole_ms == std::vector<double>{0.60, 0.70});
  CHECK(paired["res"].sliced_ms == std::vector<double>{13.6});
  CHECK(paired["res"].whole_ms == std::vector<double>{13.4});

  PoolRow ok = step_time_row("ResNet-18", {13.6, 13.5, 14.0}, {13.5, 13.5, 13.5});
  CHECK(*ok.achieved == Approx(13.6 / 13.5));
  CHECK(ok.verdict == Verdict::kOk);
  CHECK(ok.run.find("ResNet-18") != std::string::npos);
  CHECK(step_time_row("ResNet-18", {13.9}, {13.5}).verdict == Verdict::kMiss);
}

TEST_CASE("the report: a table with every row, or JSON") {
  PoolHeader h{"2026-12-01 10:00:00 UTC", "gpu1", "cuda", "NVIDIA H200", false, 3};
  std::vector<PoolRow> rows = {share_row("10/90 (1000 us kernels, sync every 8)", "t0", 10, 1000, 101),
                               overhead_row("overhead", {96000}, {100000})};
  std::string table = format_pool_report(h, rows, false);
  CHECK(table.find("rgpu bench pool  2026-12-01 10:00:00 UTC  host gpu1") != std::string::npos);
  CHECK(table.find("rgpud: cuda backend, NVIDIA H200; 3 s per run") != std::string::npos);
  CHECK(table.find("10.00 %") != std::string::npos);
  CHECK(table.find("10.10 %") != std::string::npos);
  CHECK(table.find("+0.10 pp") != std::string::npos);
  CHECK(table.find("0.960x") != std::string::npos);
  CHECK(table.find(" ok ") != std::string::npos);

  std::string json = format_pool_report(h, rows, true);
  CHECK(json.find("\"backend\": \"cuda\"") != std::string::npos);
  CHECK(json.find("\"tenant\": \"t0\", \"unit\": \"%\", \"target\": 10,") != std::string::npos);
  CHECK(json.find("\"verdict\": \"ok\"") != std::string::npos);
}

TEST_CASE("the plan: one run from the options, or the whole bar table with --suite") {
  PoolOptions o;
  o.shares = {30, 70};
  o.change = ComputeChange{1, 50, 1};
  auto one = plan_pool_runs(o);
  REQUIRE(one.size() == 1);
  REQUIRE(std::holds_alternative<ShareRun>(one[0]));
  CHECK(std::get<ShareRun>(one[0]).shares == std::vector<int>{30, 70});
  CHECK(run_label(one[0]) == "change t1 70 -> 50 % at 1 s, 30/70 (1000 us kernels, sync every 8)");

  PoolOptions cap;
  cap.cap = 30;
  auto c = plan_pool_runs(cap);
  REQUIRE(c.size() == 1);
  CHECK(std::get<CapRun>(c[0]).cap == 30);

  PoolOptions suite;
  suite.suite = true;
  auto plan = plan_pool_runs(suite);
  std::vector<std::string> labels;
  for (const auto& r : plan) labels.push_back(run_label(r));
  CHECK(labels == std::vector<std::string>{
                      "10/90 (1000 us kernels, sync every 8)",
                      "30/70 (1000 us kernels, sync every 8)",
                      "50/50 (1000 us kernels, sync every 8)",
                      "1/99 (1000 us kernels, sync every 8)",
                      "10/20/30/40 (1000 us kernels, sync every 8)",
                      "10/20/30/40 (1000 us kernels, sync every 8; t0 every launch)",
                      "10/20/30/40 (10 us kernels, sync every 8)",
                      "10/20/30/40 (5000 us kernels, sync every 8)",
                      "cap 30 %, lone tenant (1000 us kernels, sync every 8)",
                      "change t0 10 -> 60 % at 1.5 s, 10/40 (1000 us kernels, sync every 8)",
                      "priority: high's 200 us requests, 2000 us apart on average, beside a saturating low (1000 us kernels, sync every 8)",
                      "priority, MPS: high's 200 us requests, 2000 us apart on average, beside a saturating low (1000 us kernels, sync every 8)",
                      "priority, MPS: high's 200 us requests, 2000 us apart on average, beside a saturating low (1000 us kernels, sync every 8, blocks of 20 us filling every SM)",
                      "overhead: launch rate, lone slice (compute 100, 16G) / whole GPU",
                  });
  CHECK(std::get<ShareRun>(plan[3]).duration_s == 9);  // the 1 % tenant's run is longer

  PoolOptions overhead;
  overhead.overhead = true;
  auto only = plan_pool_runs(overhead);
  REQUIRE(only.size() == 1);
  REQUIRE(std::holds_alternative<OverheadRun>(only[0]));
  CHECK(std::get<OverheadRun>(only[0]).rounds == 30);
  CHECK(std::get<OverheadRun>(only[0]).torch_rounds == 10);
  overhead.rounds = 12;
  overhead.torch_rounds = 40;
  only = plan_pool_runs(overhead);
  CHECK(std::get<OverheadRun>(only[0]).rounds == 12);
  CHECK(std::get<OverheadRun>(only[0]).torch_rounds == 40);

  PoolOptions priority;
  priority.priority = true;
  priority.kernel_us = 500;
  auto pr = plan_pool_runs(priority);
  // Time-sliced, then through MPS, then through MPS beside a trainer filling every SM.
  REQUIRE(pr.size() == 3);
  REQUIRE(std::holds_alternative<PriorityRun>(pr[0]));
  REQUIRE(std::holds_alternative<PriorityRun>(pr[1]));
  CHECK(std::get<PriorityRun>(pr[0]).kernel_us == 500);
  CHECK(std::get<PriorityRun>(pr[0]).request_us == 200);
  CHECK_FALSE(std::get<PriorityRun>(pr[0]).mps);
  CHECK(std::get<PriorityRun>(pr[1]).mps);
  CHECK(std::get<PriorityRun>(pr[1]).kernel_us == 500);
  CHECK(std::get<PriorityRun>(pr[1]).block_us == 0);
  CHECK(std::get<PriorityRun>(pr[2]).mps);
  CHECK(std::get<PriorityRun>(pr[2]).block_us == 20);

  PoolOptions overcommit;
  overcommit.overcommit = true;
  overcommit.tenants = 2;
  overcommit.hold_mib = 40960;
  auto oc = plan_pool_runs(overcommit);
  REQUIRE(oc.size() == 1);
  CHECK(std::get<OvercommitRun>(oc[0]).tenants == 2);
  CHECK(std::get<OvercommitRun>(oc[0]).hold_mib == 40960);
  overcommit.tenants.reset();
  CHECK(std::get<OvercommitRun>(plan_pool_runs(overcommit)[0]).tenants == 3);

  PoolOptions queue;
  queue.queue = true;
  auto q = plan_pool_runs(queue);
  REQUIRE(q.size() == 1);
  REQUIRE(std::holds_alternative<QueueRun>(q[0]));
  CHECK(std::get<QueueRun>(q[0]).queued_after_ms < std::get<QueueRun>(q[0]).hold_ms);  // the second one must wait
}

TEST_CASE("queue rows: the start after the room frees, median and slowest, against 100 ms") {
  auto rows = queue_rows("queue", {12.5, 140.0, 8.0}, {1600, 1580, 1620});
  REQUIRE(rows.size() == 2);
  CHECK(*rows[0].achieved == 12.5);
  CHECK(rows[0].verdict == Verdict::kOk);
  CHECK(rows[0].detail == "rounds: 12.5 140.0 8.0 ms; each waited 1600 1580 1620 ms in all");
  CHECK(*rows[1].achieved == 140.0);
  CHECK(rows[1].verdict == Verdict::kMiss);
  auto none = queue_rows("queue", {}, {});
  CHECK(none[0].verdict == Verdict::kNone);
  CHECK_FALSE(none[1].achieved);
}

TEST_CASE("priority rows: the high tenant's latency against alone, the low one's throughput against what is left") {
  auto rows = priority_rows("priority", RequestFigures{200, 250, 0.1}, RequestFigures{208, 270, 0.1}, 1000, 850);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].tenant == "high");
  CHECK(*rows[0].achieved == Approx(1.04));
  CHECK(rows[0].verdict == Verdict::kOk);  // p50 <= 1.05
  CHECK(*rows[1].achieved == Approx(1.08));
  CHECK(rows[1].verdict == Verdict::kOk);  // p99 <= 1.10
  CHECK(rows[2].tenant == "low");
  CHECK(*rows[2].target == Approx(90));    // what high leaves
  CHECK(*rows[2].achieved == Approx(85));
  CHECK(*rows[2].error == Approx(-5));
  CHECK(rows[2].verdict == Verdict::kOk);  // >= 0.9 x 90

  auto worse = priority_rows("priority", RequestFigures{200, 250, 0.1}, RequestFigures{220, 290, 0.1}, 1000, 700);
  CHECK(worse[0].verdict == Verdict::kMiss);
  CHECK(worse[1].verdict == Verdict::kMiss);
  CHECK(worse[2].verdict == Verdict::kMiss);
  // No reference: nothing judged.
  CHECK(priority_rows("p", {}, {}, 0, 0)[2].verdict == Verdict::kNone);
}

TEST_CASE("over-commit rows: swap rates from rgpud's log against 20 GB/s, the longest pause, data intact") {
  const std::string log =
      "rgpud[1] info: session 1 start: ...\n"
      "rgpud[7] info: swapped 40960.0 MiB out to host memory in 2000.0 ms\n"
      "rgpud[8] info: swapped 40960.0 MiB out to host memory in 1000.0 ms\n"
      "rgpud[7] info: swapped 40960.0 MiB back in from host memory in 4000.0 ms\n"
      "rgpud[7] warn: swap-out failed, the session stays on the GPU: no host memory\n";
  SwapRates r = parse_swap_log(log);
  REQUIRE(r.out_gbps.size() == 2);
  REQUIRE(r.in_gbps.size() == 1);
  CHECK(r.out_gbps[0] == Approx(21.47).epsilon(0.01));  // 40 GiB in 2 s
  CHECK(r.in_gbps[0] == Approx(10.74).epsilon(0.01));
  auto rows = overcommit_rows("oc", r, 1234, true, 3, 3);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].verdict == Verdict::kOk);  // median of 21.5 and 42.9
  CHECK(rows[1].verdict == Verdict::kMiss);
  CHECK(*rows[2].achieved == 1234);
  CHECK(rows[2].verdict == Verdict::kNone);
  CHECK(rows[3].verdict == Verdict::kOk);
  auto none = overcommit_rows("oc", SwapRates{}, 0, false, 2, 3);
  CHECK(none[0].verdict == Verdict::kNone);  // no swap seen: nothing judged
  CHECK(none[3].verdict == Verdict::kMiss);
  CHECK(none[3].detail == "2 of 3 intact");
}

TEST_CASE("the spin worker's arguments") {
  CHECK(spin_args(1000, 8, 3, std::nullopt) ==
        std::vector<std::string>{"spin", "--kernel-us", "1000", "--sync-every", "8", "--duration", "3", "--bin-ms", "10"});
  CHECK(spin_args(10, 1, 2.5, int64_t{123456789}) ==
        std::vector<std::string>{"spin", "--kernel-us", "10", "--sync-every", "1", "--duration", "2.5", "--bin-ms", "10",
                                 "--epoch", "123456789"});
  CHECK(spin_args(1000, 8, 3, std::nullopt, 20) ==
        std::vector<std::string>{"spin", "--kernel-us", "1000", "--sync-every", "8", "--duration", "3", "--bin-ms", "10",
                                 "--block-us", "20"});
}

TEST_CASE("latency rows: sliced / whole launch + sync latency, shown without a verdict") {
  PoolRow row = latency_row("overhead", {27.5}, {25});
  REQUIRE(row.achieved);
  CHECK(*row.achieved == Approx(1.1));
  CHECK(row.verdict == Verdict::kNone);
  CHECK(row.detail == "median of 1 pair; 0 % interval 1.100-1.100 x; sliced median 27.5 us, whole GPU 25.0 us");
  CHECK_FALSE(latency_row("overhead", {27.5}, {0}).achieved);
}
