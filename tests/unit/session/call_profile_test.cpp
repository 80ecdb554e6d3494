// The call profile: calls are counted and timed by their id, the report names them by time spent,
// most first, and the gaps between calls count as waiting for input.
#include <catch2/catch.hpp>

#include <string>

#include "gen/cudart/cudart_ids.h"
#include "server/session/call_profile.h"

using rgpu::server::CallProfile;
using namespace std::chrono_literals;

TEST_CASE("call profile: calls by the time they took, most first, and the waits between them") {
  CallProfile profile;
  const CallProfile::Clock::time_point t0{};
  const auto launch = rgpu::gen::cudart::k_cudaLaunchKernel;
  const auto sync = rgpu::gen::cudart::k_cudaStreamSynchronize;
  // Launches of 2 us each, back to back, then a 50 us synchronisation 2 ms after the last.
  profile.add(launch, t0 + 1us, t0 + 3us);
  profile.add(launch, t0 + 3us, t0 + 5us);
  profile.add(launch, t0 + 5us, t0 + 7us);
  profile.add(sync, t0 + 2007us, t0 + 2057us);
  const std::string report = profile.report();
  INFO(report);
  CHECK(report.find("call profile: 4 calls, 0.1 ms handling them, 2.0 ms waiting for input") == 0);
  const size_t sync_row = report.find("cudaStreamSynchronize");
  const size_t launch_row = report.find("cudaLaunchKernel");
  REQUIRE(sync_row != std::string::npos);
  REQUIRE(launch_row != std::string::npos);
  CHECK(sync_row < launch_row);  // 50 us before 6 us
  CHECK(report.find("3 calls       0.01 ms     2.00 us each, median 1.92 us") != std::string::npos);
  CHECK(report.find("1 calls       0.05 ms    50.00 us each, median 49.15 us") != std::string::npos);
}

TEST_CASE("call profile: a call's median beside its mean, which one slow first call can dominate") {
  CallProfile profile;
  const CallProfile::Clock::time_point t0{};
  const auto gemm = rgpu::gen::cudart::k_cudaLaunchKernel;
  // A first call of 20 ms (a library loading its kernels), then nine of 8 us.
  profile.add(gemm, t0, t0 + 20ms);
  for (int i = 0; i < 9; ++i) profile.add(gemm, t0 + 20ms + i * 10us, t0 + 20ms + i * 10us + 8us);
  const std::string report = profile.report();
  INFO(report);
  // Mean (20000 + 72) / 10 us; the median's bucket is [7.68, 8.19) us: 8 us lies in it.
  CHECK(report.find("10 calls      20.07 ms  2007.20 us each, median 7.68 us") != std::string::npos);
}

TEST_CASE("call profile: the report keeps the top calls only") {
  CallProfile profile;
  const CallProfile::Clock::time_point t0{};
  profile.add(rgpu::gen::cudart::k_cudaLaunchKernel, t0 + 1us, t0 + 2us);
  profile.add(rgpu::gen::cudart::k_cudaStreamSynchronize, t0 + 2us, t0 + 10us);
  const std::string top = profile.report(1);
  CHECK(top.find("cudaStreamSynchronize") != std::string::npos);
  CHECK(top.find("cudaLaunchKernel") == std::string::npos);
}
