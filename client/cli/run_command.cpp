// `rgpu run` (see run_command.h).
#include "client/cli/run_command.h"
#include "client/cli/cli_options.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "client/runtime/settings.h"
#include "common/shim_libraries.h"

namespace rgpu::cli {

namespace {

// The folder holding the shim libraries: <prefix>/lib/rgpu beside <prefix>/bin/rgpu.
std::string shim_dir() {
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe");
  return (exe.parent_path().parent_path() / "lib" / "rgpu").string();
}

void prepend_env(const char* name, const std::string& value, char sep) {
  const char* old = std::getenv(name);
  std::string v = old && *old ? value + sep + old : value;
  setenv(name, v.c_str(), 1);
}

}  // namespace

const char* run_usage() {
  return "  rgpu run [--memory SIZE] [--compute PCT] [--no-preload] -- CMD [ARGS...]\n"
         "                                         run CMD with rgpu's CUDA libraries (RGPU_SERVER picks the\n"
         "                                         server), asking the pool for SIZE of GPU memory (4096 = MiB,\n"
         "                                         4096M, 4G) and PCT % of a GPU's compute (1..100)\n";
}

Result<RunOptions> parse_run_args(std::span<const std::string> args) {
  RunOptions out;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--no-preload") {
      out.preload = false;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      out.help = true;
      return out;
    }
    RGPU_ASSIGN_OR_RETURN(OptionValue m, option_value(args, &i, "--memory", "rgpu run"));
    if (m.matched) {
      RGPU_ASSIGN_OR_RETURN(uint64_t bytes, client::parse_memory_request(m.value, "--memory"));
      out.memory = std::to_string(bytes >> 20) + "MiB";
      continue;
    }
    RGPU_ASSIGN_OR_RETURN(OptionValue c, option_value(args, &i, "--compute", "rgpu run"));
    if (c.matched) {
      RGPU_ASSIGN_OR_RETURN(uint32_t pct, client::parse_compute_percent(c.value, "--compute"));
      out.compute = std::to_string(pct);
      continue;
    }
    if (arg.starts_with("-"))
      return RGPU_ERROR(kInvalidArgument, "rgpu run: unknown option \"" + arg.substr(0, 64) +
                                              "\" (put CMD after --: rgpu run [OPTIONS] -- CMD)");
    break;  // CMD, without a --
  }
  if (i >= args.size()) return RGPU_ERROR(kInvalidArgument, "rgpu run: name the command to run (rgpu run -- CMD)");
  out.command_index = i;
  // What CMD would inherit: a bad value would leave it without a session, so say so now.
  if (!out.memory) RGPU_TRY(client::memory_request().status());
  if (!out.compute) RGPU_TRY(client::compute_request().status());
  return out;
}

int run_command(const RunOptions& options, char** argv) {
  std::string dir = shim_dir();
  std::string preload_list;
  for (const char* shim : kShimLibraries) {
    if (!std::filesystem::exists(dir + "/" + shim)) {
      std::fprintf(stderr, "rgpu: the client libraries are missing from %s: reinstall rgpu\n", dir.c_str());
      return 127;
    }
    preload_list += (preload_list.empty() ? "" : " ") + dir + "/" + shim;
  }
  if (options.memory) setenv(client::kMemory.name(), options.memory->c_str(), 1);
  if (options.compute) setenv(client::kCompute.name(), options.compute->c_str(), 1);
  // LD_LIBRARY_PATH serves programs that find the libraries by name; LD_PRELOAD also serves
  // programs that pin their library paths (DT_RPATH, absolute dlopen), as PyTorch does. The shims
  // go after whatever LD_PRELOAD already holds, so a sanitizer runtime that must load first still
  // does. execvp keeps the process: CMD's exit status is rgpu run's.
  prepend_env("LD_LIBRARY_PATH", dir, ':');
  if (options.preload) {
    const char* old = std::getenv("LD_PRELOAD");
    setenv("LD_PRELOAD", (old && *old ? std::string(old) + " " + preload_list : preload_list).c_str(), 1);
  }
  char** cmd = argv + options.command_index;
  execvp(cmd[0], cmd);
  std::fprintf(stderr, "rgpu: cannot run %s: %s\n", cmd[0], std::strerror(errno));
  return 127;
}

}  // namespace rgpu::cli
