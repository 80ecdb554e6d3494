// TCP address parsing, resolution and formatting.
#include "transports/tcp/tcp_address.h"

#include <charconv>

#include "transports/socket_context.h"

namespace rgpu::transport::tcp {

namespace asio = boost::asio;

Result<HostPort> parse_address(std::string_view address) {
  auto bad = [&](const char* why) {
    return RGPU_ERROR(kInvalidArgument, "bad TCP address \"" + std::string(address) + "\": " + why +
                                            " (expected host:port or [ipv6]:port)");
  };
  HostPort hp;
  std::string_view port;
  if (address.starts_with('[')) {
    size_t close = address.find(']');
    if (close == std::string_view::npos) return bad("unterminated '['");
    if (close + 1 >= address.size() || address[close + 1] != ':') return bad("no ':port' after ']'");
    hp.host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    size_t colon = address.rfind(':');
    if (colon == std::string_view::npos) return bad("no port");
    hp.host = address.substr(0, colon);
    if (hp.host.find(':') != std::string::npos) return bad("an IPv6 address needs brackets");
    port = address.substr(colon + 1);
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535)
    return bad("the port is not a number from 0 to 65535");
  hp.port = static_cast<uint16_t>(value);
  return hp;
}

Result<std::vector<asio::ip::tcp::endpoint>> resolve(const HostPort& hp, bool passive) {
  asio::ip::tcp::resolver resolver(sync_context());
  auto flags = asio::ip::resolver_base::numeric_service;
  if (passive) flags |= asio::ip::resolver_base::passive;
  boost::system::error_code ec;
  auto results = resolver.resolve(hp.host.empty() ? "0.0.0.0" : hp.host, std::to_string(hp.port), flags, ec);
  if (ec) return RGPU_ERROR(kUnavailable, "cannot resolve \"" + hp.host + "\": " + ec.message());
  std::vector<asio::ip::tcp::endpoint> endpoints;
  for (const auto& entry : results) endpoints.push_back(entry.endpoint());
  if (endpoints.empty()) return RGPU_ERROR(kUnavailable, "\"" + hp.host + "\" resolves to no address");
  return endpoints;
}

bool is_loopback(const asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6()).is_loopback();
  return address.is_loopback();
}

std::string format_endpoint(const asio::ip::tcp::endpoint& endpoint) {
  const auto address = endpoint.address();
  std::string host = address.to_string();
  if (address.is_v6()) host = "[" + host + "]";
  return host + ":" + std::to_string(endpoint.port());
}

}  // namespace rgpu::transport::tcp
