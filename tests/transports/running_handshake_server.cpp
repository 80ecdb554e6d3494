// Test helper: a HandshakeServer on a thread (running_handshake_server.h).
#include "tests/transports/running_handshake_server.h"

#include <catch2/catch.hpp>

#include <chrono>

namespace rgpu::test {

using namespace rgpu::transport;

void Running::welcome(Connection& conn, const ClientIdentity& client) {
  (void)send_welcome(conn, Welcome{77, "emulated", {}, {}, client.server_proof});
}

Running::Running(HandshakeServer::Limits limits, std::vector<std::string> tokens, Serve serve,
                 const std::vector<std::string>& listen) {
  std::vector<const Listener*> serving;
  for (const std::string& address : listen) {
    auto listener = transport::listen(address);
    REQUIRE(listener.is_ok());
    listeners_.push_back(std::move(*listener));
    serving.push_back(listeners_.back().get());
  }
  server_ = std::make_unique<HandshakeServer>(
      serving, ServerIdentity{1, kApi, "0.1.0", std::move(tokens)}, limits,
      [this, serve](AcceptedConnection&& accepted, const ClientIdentity& client, const std::string&) {
        {
          std::lock_guard lock(mu_);
          authenticated_.push_back(client);
        }
        auto conn = adopt(std::move(accepted));
        if (conn.is_ok()) serve(**conn, client);
      });
  thread_ = std::thread([this] { server_->run(); });
}

Running::~Running() {
  server_->stop();
  thread_.join();
}

std::vector<ClientIdentity> Running::authenticated() {
  std::lock_guard lock(mu_);
  return authenticated_;
}

bool Running::wait_for(const std::function<bool(const HandshakeServer::Counts&)>& done) const {
  for (int i = 0; i < 2000; ++i) {
    if (done(counts())) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done(counts());
}

}  // namespace rgpu::test
