// Unix socket addresses: "unix:PATH", the path of a socket file (absolute, or relative to the
// working directory).
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace rgpu::transport::unix_socket {

inline constexpr std::string_view kScheme = "unix:";

inline bool is_unix_address(std::string_view address) { return address.starts_with(kScheme); }

// The socket file's path in "unix:PATH"; kInvalidArgument when empty or longer than a sockaddr_un
// holds (107 bytes on Linux), or
// holding a NUL byte.
Result<std::string> parse_address(std::string_view address);

}  // namespace rgpu::transport::unix_socket
