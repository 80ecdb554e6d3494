// Command-line options of the `rgpu` commands that take values (`rgpu run`, `rgpu pool set`).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "common/status.h"

namespace rgpu::cli {

// The value of `--name VALUE` or `--name=VALUE` at args[*i] (advancing *i past a separate value);
// matched is false when args[*i] is another word. `command` ("rgpu run") begins the error.
struct OptionValue {
  bool matched = false;
  std::string value;
};
Result<OptionValue> option_value(std::span<const std::string> args, size_t* i, std::string_view name,
                                 std::string_view command);

}  // namespace rgpu::cli
