// `rgpu pool` and `rgpu ls`: requests to the pool's control API over a control connection
// (Role::kControl) to rgpud at RGPU_SERVER, proving RGPU_TOKEN; the reply's text is printed.
//
//   rgpu pool [--json] [--watch [SECONDS]]          verb "pool": every GPU and session (admin)
//   rgpu pool set TARGET [--memory SIZE] [--compute PCT] [--compute-limit PCT] [--when-free]
//                                                   verb "set": TARGET, then memory=<N>MiB,
//                                                   compute=PCT, compute_limit=PCT, when_free=1
//   rgpu pool help [REQUEST]                        verb "help": the server's list of requests
//   rgpu ls [--json] [--watch [SECONDS]]            verb "ls": the GPUs and the caller's sessions
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "common/status.h"
#include "transports/control_channel.h"

namespace rgpu::cli {

struct PoolCommand {
  transport::PoolRequestMsg request;
  bool watch = false;             // re-request every watch_seconds on the same connection
  double watch_seconds = 2.0;
  bool help = false;              // print the local usage instead (--help)
};

// Parses the words after `rgpu pool` (command "pool") or `rgpu ls` (command "ls"). Sizes and
// percents are checked here, so a typo never reaches the server; the error says what is wrong.
Result<PoolCommand> parse_pool_args(std::string_view command, std::span<const std::string> args);

// The usage lines of `rgpu pool` and `rgpu ls`, for the command's help.
const char* pool_usage();

// Connects, sends the request (again every watch_seconds with --watch), prints the reply: its text
// on stdout when ok, on stderr when not. Returns the exit status: 0, or 1 when the reply is not ok
// or rgpud cannot be reached or does not speak the control API.
int run_pool_command(const PoolCommand& command);

}  // namespace rgpu::cli
