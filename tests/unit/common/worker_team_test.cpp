// The worker team: each job index runs once, on members running at the same time, run after run,
// a job for fewer members than the team leaves the others idle, and more jobs than members (or a
// team of none, where no thread could be made) still run each once.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "common/worker_team.h"

using rgpu::WorkerTeam;

TEST_CASE("worker team: every index runs once per run, on members that run at once") {
  WorkerTeam team(6);
  CHECK(team.size() == 6);
  for (int run = 0; run < 50; ++run) {
    std::vector<std::atomic<int>> ran(6);
    // Each job waits (bounded) until all six have started: members that ran one after another
    // would never all be in at once.
    std::mutex mu;
    std::condition_variable cv;
    int started = 0;
    bool all_in = true;
    auto job = [&](size_t k) {
      std::unique_lock lock(mu);
      ++started;
      cv.notify_all();
      if (!cv.wait_for(lock, std::chrono::seconds(10), [&] { return started == 6; })) all_in = false;
      ++ran[k];
    };
    team.run(6, job);
    CHECK(all_in);
    for (auto& r : ran) CHECK(r == 1);
  }
}

TEST_CASE("worker team: a job for fewer members uses only those, and start lets the caller work meanwhile") {
  WorkerTeam team(4);
  std::vector<std::atomic<int>> ran(4);
  auto job = [&](size_t k) { ++ran[k]; };
  team.start(2, job);
  std::this_thread::yield();  // the caller's own part of the work goes here
  team.wait();
  CHECK(ran[0] == 1);
  CHECK(ran[1] == 1);
  CHECK(ran[2] == 0);
  CHECK(ran[3] == 0);
  team.run(0, job);  // nothing to run: returns at once
  team.run(4, job);
  CHECK(ran[0] == 2);
  CHECK(ran[3] == 1);
}

TEST_CASE("worker team: more jobs than members run on the members in turn, and a team of none runs them on the caller") {
  WorkerTeam team(2);
  std::vector<std::atomic<int>> ran(5);
  auto job = [&](size_t k) { ++ran[k]; };
  team.run(5, job);
  for (auto& r : ran) CHECK(r == 1);

  WorkerTeam none(0);  // what a team is where no thread could be made
  CHECK(none.size() == 0);
  const auto caller = std::this_thread::get_id();
  std::vector<int> on_caller(3, 0);
  auto inline_job = [&](size_t k) { on_caller[k] = std::this_thread::get_id() == caller ? 1 : 0; };
  none.run(3, inline_job);
  CHECK(on_caller == std::vector<int>{1, 1, 1});
}
