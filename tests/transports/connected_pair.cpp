// Test helper: connected pairs and pattern bytes.
#include "tests/transports/connected_pair.h"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <future>

namespace rgpu::test {

ConnectedPair connect_pair(const std::string& listen_address) {
  ConnectedPair pair;
  auto listener = transport::listen(listen_address);
  REQUIRE(listener.is_ok());
  pair.listener = std::move(listener.value());
  auto accepted = std::async(std::launch::async, [&] { return pair.listener->accept(); });
  auto client = transport::connect(pair.listener->address());
  if (!client.is_ok()) {
    ::shutdown(pair.listener->native_handle(), SHUT_RDWR);  // wakes the blocked accept
    accepted.wait();
  }
  REQUIRE(client.is_ok());
  auto server = accepted.get();
  REQUIRE(server.is_ok());
  pair.client = std::move(client.value());
  pair.server = std::move(server.value());
  return pair;
}

RawSocket::RawSocket(const std::string& address) {
  const size_t colon = address.rfind(':');
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(std::stoi(address.substr(colon + 1))));
  REQUIRE(inet_pton(AF_INET, address.substr(0, colon).c_str(), &sa.sin_addr) == 1);
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd_ >= 0);
  REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
}

RawSocket::~RawSocket() { ::close(fd_); }

void RawSocket::write_all(std::span<const uint8_t> bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    REQUIRE(n > 0);
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
}

void RawSocket::close_write() { ::shutdown(fd_, SHUT_WR); }

std::vector<uint8_t> RawSocket::read_to_end() {
  std::vector<uint8_t> all;
  uint8_t buf[4096];
  for (ssize_t n; (n = ::recv(fd_, buf, sizeof buf, 0)) > 0;) all.insert(all.end(), buf, buf + n);
  return all;
}

std::vector<uint8_t> RawSocket::read_exact(size_t n) {
  std::vector<uint8_t> out(n);
  for (size_t got = 0; got < n;) {
    ssize_t r = ::recv(fd_, out.data() + got, n - got, 0);
    REQUIRE(r > 0);
    got += static_cast<size_t>(r);
  }
  return out;
}

bool RawSocket::open_now() {
  uint8_t byte;
  const ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

std::string unix_address(const std::string& name) {
  struct TempDir {
    TempDir() {
      char pattern[] = "/tmp/rgpu-transport-test-XXXXXX";
      REQUIRE(::mkdtemp(pattern) != nullptr);
      path = pattern;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string path;
  };
  static const TempDir dir;
  return "unix:" + dir.path + "/" + name;
}

void fill_pattern(uint8_t* dst, size_t n, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    dst[i] = static_cast<uint8_t>(x >> 24);
  }
}

}  // namespace rgpu::test
