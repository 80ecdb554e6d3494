// Runs the rgpu-codegen binary (or any command) from a test and captures what it prints.
#pragma once

#include <string>

namespace rgpu::test {

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

RunResult run_command(const std::string& command);

// A fresh empty directory under the system temp dir.
std::string make_temp_dir(const std::string& tag);

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& content);

}  // namespace rgpu::test
