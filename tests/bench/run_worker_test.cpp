// Running the worker: environments, and a child's output and failures (with /bin/sh standing in
// for the worker).
#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/wait.h>

#include "bench/cli/run_worker.h"

using namespace rgpu::bench;

TEST_CASE("the environment keeps what is not changed, replaces and removes what is") {
  const char* base[] = {"A=1", "LD_LIBRARY_PATH=/old", "RGPU_STRIPES=4", "B=x=y", nullptr};
  auto env = make_environment(base, {{"LD_LIBRARY_PATH", "/shim:/old"}, {"RGPU_STRIPES", std::nullopt}, {"C", "3"}});
  CHECK(env == std::vector<std::string>{"A=1", "B=x=y", "LD_LIBRARY_PATH=/shim:/old", "C=3"});
}

TEST_CASE("a folder goes in front of a path list") {
  CHECK(prepend_path("/shim", "/a:/b") == "/shim:/a:/b");
  CHECK(prepend_path("/shim", "") == "/shim");
  CHECK(prepend_path("/shim", nullptr) == "/shim");
}

TEST_CASE("a child's stdout is parsed, its stderr does not get in the way") {
  // More stderr than a pipe holds, before stdout: both pipes must be drained together.
  auto out = run_worker("/bin/sh", {"-c", "head -c 200000 /dev/zero >&2; echo \"info device $DEV\"; echo 'metric m 2 us'"},
                        {{"DEV", "emulated"}});
  REQUIRE(out.is_ok());
  CHECK(out->device == "emulated");
  REQUIRE(out->metrics.size() == 1);
  CHECK(out->metrics[0].value == 2);
}

TEST_CASE("a failing child is an error carrying its stderr") {
  auto out = run_worker("/bin/sh", {"-c", "echo 'cudaMalloc failed: out of memory' >&2; exit 3"}, {});
  REQUIRE_FALSE(out.is_ok());
  CHECK(out.status().message().find("exited with status 3") != std::string::npos);
  CHECK(out.status().message().find("out of memory") != std::string::npos);
}

TEST_CASE("a program that cannot start is an error") {
  auto out = run_worker("/nonexistent/rgpu-bench-worker", {}, {});
  REQUIRE_FALSE(out.is_ok());
}

TEST_CASE("run_process returns both outputs, spawn_process returns at once with the child's pid") {
  auto out = run_process("/bin/sh", {"-c", "echo out; echo err >&2"}, {});
  REQUIRE(out.is_ok());
  CHECK(out->out == "out\n");
  CHECK(out->err == "err\n");

  auto pid = spawn_process("/bin/sh", {"-c", "exit 7"}, {}, ChildIo{-1, -1, true, {}});
  REQUIRE(pid.is_ok());
  int status = 0;
  REQUIRE(waitpid(*pid, &status, 0) == *pid);
  CHECK(WEXITSTATUS(status) == 7);
}

TEST_CASE("a child runs on the CPUs it is given, the spawning thread keeps its own") {
  cpu_set_t before;
  REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
  int first = 0;
  while (!CPU_ISSET(first, &before)) ++first;
  auto out = run_process("/bin/sh", {"-c", "grep Cpus_allowed_list /proc/self/status"}, {}, {first});
  REQUIRE(out.is_ok());
  CHECK(out->out == "Cpus_allowed_list:\t" + std::to_string(first) + "\n");
  cpu_set_t after;
  REQUIRE(sched_getaffinity(0, sizeof after, &after) == 0);
  CHECK(CPU_EQUAL(&before, &after));
}

TEST_CASE("a failed child's long stderr keeps its end and the first line naming an error") {
  std::string script = "echo 'terminate called after throwing: what():  CUDA error: bad thing' >&2; i=0; "
                       "while [ $i -lt 300 ]; do echo \"frame #$i: some long stack frame text\" >&2; i=$((i+1)); done; exit 1";
  auto out = run_process("/bin/sh", {"-c", script}, {});
  REQUIRE_FALSE(out.is_ok());
  const std::string& m = out.status().message();
  CHECK(m.find("what():  CUDA error: bad thing") != std::string::npos);
  CHECK(m.find("frame #299") != std::string::npos);
  CHECK(m.find("frame #0:") == std::string::npos);
}
