// Test helper: a HandshakeServer on a loopback port (or the listen addresses given, in one loop),
// run on a thread of its own. Each
// authenticated connection is adopted and served by `serve` (by default: welcomed as session 77,
// with the server's proof, so that the client's side of the handshake completes).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "transports/handshake.h"
#include "transports/handshake_server.h"

namespace rgpu::test {

inline constexpr uint64_t kApi = 0x1234abcd5678ef00ull;
inline transport::ClientIdentity client_identity() { return transport::ClientIdentity{1, kApi, "0.1.0", "laptop", 4242}; }

class Running {
 public:
  using Serve = std::function<void(transport::Connection&, const transport::ClientIdentity&)>;
  static void welcome(transport::Connection& conn, const transport::ClientIdentity& client);

  explicit Running(transport::HandshakeServer::Limits limits, std::vector<std::string> tokens = {"other", "s3cret"},
                   Serve serve = welcome, const std::vector<std::string>& listen = {"127.0.0.1:0"});
  ~Running();

  std::string address(size_t i = 0) const { return listeners_.at(i)->address(); }
  transport::HandshakeServer::Counts counts() const { return server_->counts(); }
  std::vector<transport::ClientIdentity> authenticated();
  // Waits (bounded) until the server's counts satisfy `done`.
  bool wait_for(const std::function<bool(const transport::HandshakeServer::Counts&)>& done) const;

 private:
  std::vector<std::unique_ptr<transport::Listener>> listeners_;
  std::unique_ptr<transport::HandshakeServer> server_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<transport::ClientIdentity> authenticated_;
};

}  // namespace rgpu::test
