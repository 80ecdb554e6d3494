// Runs rgpu-bench-worker as a child process with a chosen environment (native: the real
// libcudart first on LD_LIBRARY_PATH; remote: rgpu's shim first) and parses its stdout.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/cli/worker_output.h"
#include "common/status.h"

namespace rgpu::bench {

// Changes to the inherited environment: a value sets the variable, nullopt removes it.
using EnvChanges = std::vector<std::pair<std::string, std::optional<std::string>>>;

// `base` (a null-terminated "NAME=value" array, like environ) with `changes` applied.
std::vector<std::string> make_environment(const char* const* base, const EnvChanges& changes);

// "dir" followed by the old value of a ':'-separated path variable, if it had one.
std::string prepend_path(const std::string& dir, const char* old);

// Where a spawned child's stdout and stderr go (-1: inherited), whether it leads a process
// group of its own (so that it and its children can be signalled together: rgpud and its
// session workers), and the CPUs it (and what it starts) may run on (empty: this thread's).
struct ChildIo {
  int out_fd = -1;
  int err_fd = -1;
  bool own_process_group = false;
  std::vector<int> cpus;
};

// Starts `exe args...` with the environment changed and returns at once; the caller waits for it.
Result<pid_t> spawn_process(const std::string& exe, const std::vector<std::string>& args, const EnvChanges& env,
                            const ChildIo& io);

struct ProcessOutput {
  std::string out;
  std::string err;
};

// Runs `exe args...` with the environment changed and waits for it. A failure (cannot start,
// non-zero exit, killed) carries the end of its stderr.
Result<ProcessOutput> run_process(const std::string& exe, const std::vector<std::string>& args, const EnvChanges& env,
                                  const std::vector<int>& cpus = {});

// run_process, then parses the worker's stdout. A
// failure (cannot start, non-zero exit, bad output) carries the end of the worker's stderr.
// Safe to call from several threads at once (the pipes are close-on-exec, so each child holds
// only its own).
Result<WorkerOutput> run_worker(const std::string& exe, const std::vector<std::string>& args, const EnvChanges& env,
                                const std::vector<int>& cpus = {});

}  // namespace rgpu::bench
