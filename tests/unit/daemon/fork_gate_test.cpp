// rgpud's fork gate (server/daemon/fork_gate.h): a fork waits while a hold is held and goes on once
// it is let go, holds of several threads coexist, and a hold let go around a blocking call lets a
// fork through, comes back after it, and keeps the call's errno.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <cerrno>
#include <chrono>
#include <memory>
#include <thread>

#include "server/daemon/fork_gate.h"

using rgpu::server::ForkGate;

namespace {

// Forks through `gate`, the child ending at once; whether it ended well.
bool fork_through(ForkGate& gate) {
  const pid_t pid = gate.fork();
  if (pid == 0) _exit(0);
  if (pid < 0) return false;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A fork through `gate` from another thread is not through while `hold` is held, and is once it is
// let go. No timing is checked: however far the forker got, it cannot have passed a held gate.
void check_fork_waits_for(ForkGate& gate, std::unique_ptr<ForkGate::Hold>& hold) {
  std::atomic<bool> through{false};
  bool ok = false;
  std::thread forker([&] {
    ok = fork_through(gate);
    through = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // room for the forker to reach the gate
  CHECK_FALSE(through.load());
  hold.reset();
  forker.join();
  CHECK(through.load());
  CHECK(ok);
}

}  // namespace

TEST_CASE("a fork waits while a hold is held and goes on once it is let go") {
  ForkGate gate;
  auto hold = std::make_unique<ForkGate::Hold>(gate);
  check_fork_waits_for(gate, hold);
}

TEST_CASE("holds of several threads coexist, and a fork goes through once all are let go") {
  ForkGate gate;
  std::barrier<> all_holding(3);  // the three threads below
  auto helper = [&] {
    ForkGate::Hold hold(gate);
    all_holding.arrive_and_wait();  // passed only while every thread holds the gate at once
  };
  std::thread a(helper), b(helper), c(helper);
  a.join();
  b.join();
  c.join();
  CHECK(fork_through(gate));
}

TEST_CASE("a hold let go around a blocking call lets a fork through and is taken back after it") {
  ForkGate gate;
  auto hold = std::make_unique<ForkGate::Hold>(gate);
  bool ok = false;
  const int rc = hold->released([&] {
    ok = fork_through(gate);
    errno = EINTR;  // as a blocking call interrupted by a signal leaves it
    return -1;
  });
  const int after = errno;  // before Catch's own calls may change it
  CHECK(ok);
  CHECK(rc == -1);
  CHECK(after == EINTR);
  check_fork_waits_for(gate, hold);
}
