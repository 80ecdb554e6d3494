// Options with values (see cli_options.h).
#include "client/cli/cli_options.h"

namespace rgpu::cli {

Result<OptionValue> option_value(std::span<const std::string> args, size_t* i, std::string_view name,
                                 std::string_view command) {
  const std::string& arg = args[*i];
  if (arg == name) {
    if (*i + 1 >= args.size() || args[*i + 1].empty()) {
      std::string why(command);
      why.append(": ").append(name).append(" needs a value");
      return RGPU_ERROR(kInvalidArgument, why);
    }
    *i += 1;
    return OptionValue{true, args[*i]};
  }
  if (arg.size() > name.size() && arg.starts_with(name) && arg[name.size()] == '=')
    return OptionValue{true, arg.substr(name.size() + 1)};
  return OptionValue{};
}

}  // namespace rgpu::cli
