// rgpu: the user's command. `rgpu run -- CMD` runs an unmodified CUDA program against rgpud,
// `rgpu ls` / `rgpu pool` ask the pool's control API, `rgpu config` prints every tunable,
// `rgpu bench` measures native and remote side by side. This file only dispatches: run_command and
// pool_command hold the commands.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "client/cli/pool_command.h"
#include "client/cli/run_command.h"
#include "common/config.h"

namespace {

int usage(int code) {
  FILE* to = code ? stderr : stdout;
  std::fputs("usage:\n", to);
  std::fputs(rgpu::cli::run_usage(), to);
  std::fputs(rgpu::cli::pool_usage(), to);
  std::fputs("  rgpu config                            print every tunable with its value and default\n"
             "  rgpu bench [SCENARIO] [OPTIONS]        native vs remote benchmark (rgpu bench --help)\n",
             to);
  return code;
}

// A bad argument: one line saying what is wrong, and where the usage is.
int bad_arguments(const rgpu::Status& st) {
  std::fprintf(stderr, "rgpu: %s (rgpu --help shows the usage)\n",
               st.message().substr(0, st.message().find('\n')).c_str());
  return 2;
}

// `rgpu bench` is its own program (bench/cli), in <prefix>/libexec/rgpu beside <prefix>/bin/rgpu.
// argv: "bench" and its arguments, null-terminated.
int bench(char** argv) {
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe");
  std::string program = (exe.parent_path().parent_path() / "libexec" / "rgpu" / "rgpu-bench").string();
  argv[0] = program.data();
  execv(program.c_str(), argv);
  std::fprintf(stderr, "rgpu: cannot run %s: %s\n", program.c_str(), std::strerror(errno));
  return 127;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage(2);
  const std::string cmd = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "run") {
    auto options = rgpu::cli::parse_run_args(args);
    if (!options.is_ok()) return bad_arguments(options.status());
    if (options->help) return usage(0);
    return rgpu::cli::run_command(*options, argv + 2);
  }
  if (cmd == "ls" || cmd == "pool") {
    auto command = rgpu::cli::parse_pool_args(cmd, args);
    if (!command.is_ok()) return bad_arguments(command.status());
    return rgpu::cli::run_pool_command(*command);
  }
  if (cmd == "bench") return bench(argv + 1);
  if (cmd == "config") {
    std::fputs(rgpu::describe_tunables().c_str(), stdout);
    return 0;
  }
  if (cmd == "--help" || cmd == "-h" || cmd == "help") return usage(0);
  return usage(2);
}
