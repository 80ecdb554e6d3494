// "ucx://ADDRESS": UCX, paired over a connection to ADDRESS, any address the socket families take
// ("host:port", "[::1]:port", "unix:PATH").
#pragma once

#include <string>
#include <string_view>

namespace rgpu::transport::ucx {

inline constexpr std::string_view kScheme = "ucx://";

inline bool is_ucx_address(std::string_view address) { return address.starts_with(kScheme); }
// The address of the lifeline connection.
inline std::string lifeline_address(std::string_view address) { return std::string(address.substr(kScheme.size())); }

}  // namespace rgpu::transport::ucx
