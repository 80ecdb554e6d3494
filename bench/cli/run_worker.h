// Runs rgpu-bench-worker as a child process with a chosen environment (native: the real
// libcudart first on LD_LIBRARY_PATH; remote: rgpu's shim first) and parses its stdout.
#pragma once

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

// Runs `exe args...` with the environment changed, waits for it, and parses its stdout. A
// failure (cannot start, non-zero exit, bad output) carries the end of the worker's stderr.
Result<WorkerOutput> run_worker(const std::string& exe, const std::vector<std::string>& args, const EnvChanges& env);

}  // namespace rgpu::bench
