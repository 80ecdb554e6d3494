// Test helper: two ends of one connection, made through the abstract listen/connect entry points.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "transports/transport.h"

namespace rgpu::test {

struct ConnectedPair {
  std::unique_ptr<transport::Listener> listener;
  std::unique_ptr<transport::Connection> client;
  std::unique_ptr<transport::Connection> server;
};

// Listens on listen_address (port 0), connects to the address the listener reports, accepts.
// Fails the current test if any step fails.
ConnectedPair connect_pair(const std::string& listen_address);

// A plain IPv4 socket for sending a server bytes no rgpu client would send.
class RawSocket {
 public:
  explicit RawSocket(const std::string& address);  // "127.0.0.1:port"
  ~RawSocket();
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;
  void write_all(std::span<const uint8_t> bytes);
  void close_write();                  // the peer reads end-of-file after what was written
  std::vector<uint8_t> read_to_end();  // until the peer closes
  std::vector<uint8_t> read_exact(size_t n);
  bool open_now();  // the peer has not closed its end (nothing waits to be read but, maybe, data)

 private:
  int fd_ = -1;
};

// "unix:DIR/NAME", DIR a directory of this test process's own, made on first use and removed (with
// whatever is left in it) when the process exits.
std::string unix_address(const std::string& name);

// Deterministic bytes for payloads and bulk data; the seed makes segments tell apart.
void fill_pattern(uint8_t* dst, size_t n, uint32_t seed);

}  // namespace rgpu::test
