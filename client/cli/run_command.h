// `rgpu run [--memory SIZE] [--compute PCT] [--no-preload] [--] CMD [ARGS...]`: runs CMD with
// rgpu's CUDA libraries; the session's requests travel to CMD as RGPU_MEMORY / RGPU_COMPUTE.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "common/status.h"

namespace rgpu::cli {

struct RunOptions {
  bool preload = true;
  std::optional<std::string> memory;   // RGPU_MEMORY for CMD, normalised ("4096MiB")
  std::optional<std::string> compute;  // RGPU_COMPUTE for CMD ("25")
  size_t command_index = 0;            // where CMD starts in the arguments
  bool help = false;
};

// Parses the words after `rgpu run`. Every request is checked here, and so are RGPU_MEMORY and
// RGPU_COMPUTE inherited from the environment when no option replaces them, so that a typo stops
// rgpu run before CMD starts rather than leaving CMD without a GPU.
Result<RunOptions> parse_run_args(std::span<const std::string> args);

// The usage line of `rgpu run`.
const char* run_usage();

// Sets up CMD's environment and executes it (argv: the words after `rgpu run`, null-terminated);
// returns only when it cannot, with the exit status.
int run_command(const RunOptions& options, char** argv);

}  // namespace rgpu::cli
