// TCP addresses: parsing "host:port" / "[v6]:port", resolving them, and formatting endpoints back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include "common/status.h"

namespace rgpu::transport::tcp {

struct HostPort {
  std::string host;  // without brackets; empty means "any address" for a listener
  uint16_t port = 0;
};

// Splits "host:port" or "[v6-address]:port"; a missing or out-of-range port is kInvalidArgument.
Result<HostPort> parse_address(std::string_view address);

// The endpoints a name stands for (numeric addresses resolve to themselves); an empty host is
// 0.0.0.0. `passive` asks for addresses to bind rather than to connect to.
Result<std::vector<boost::asio::ip::tcp::endpoint>> resolve(const HostPort& hp, bool passive);

// 127.0.0.0/8, ::1, or an IPv4-mapped loopback address: a peer on this host.
bool is_loopback(const boost::asio::ip::address& address);

// "127.0.0.1:7000" or "[::1]:7000".
std::string format_endpoint(const boost::asio::ip::tcp::endpoint& endpoint);

}  // namespace rgpu::transport::tcp
