// The stripe set: a connection handed over with the session's secret is welcomed and kept; one
// with another secret is refused and dropped.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <string>

#include "common/auth.h"
#include "common/wire/control.h"
#include "server/session/stripe_set.h"
#include "transports/descriptor_passing.h"

using namespace rgpu;

namespace {

// Makes a loopback TCP connection, hands its server end to the set with `secret`, returns the client end.
std::unique_ptr<transport::Connection> hand_over(const std::string& name, const transport::SessionSecret& secret) {
  auto listener = transport::listen("127.0.0.1:0");
  REQUIRE(listener.is_ok());
  auto client = transport::connect((*listener)->address());
  REQUIRE(client.is_ok());
  auto server = (*listener)->accept();
  REQUIRE(server.is_ok());
  auto via = transport::connect_local(name);
  REQUIRE(via.is_ok());
  REQUIRE(transport::send_descriptor(*via, (*server)->descriptor(), secret).is_ok());
  close(*via);
  return std::move(*client);
}

uint32_t next_control(transport::Connection& c) {
  wire::FrameHeader h;
  REQUIRE(c.recv_header(h).is_ok());
  CHECK(h.kind == static_cast<uint16_t>(wire::FrameKind::kControl));
  REQUIRE(c.skip(h.payload_len + h.bulk_len).is_ok());
  return h.method;
}

}  // namespace

TEST_CASE("stripe set: the session's secret joins a stripe, another secret is refused") {
  server::StripeSet set;
  transport::Welcome welcome;
  welcome.session_id = 77;
  welcome.backend = "emulated";
  welcome.session_secret = auth::random_nonce();
  const std::string name = "rgpu-test." + std::to_string(getpid()) + ".stripes";
  REQUIRE(set.listen(name, welcome).is_ok());

  auto good = hand_over(name, welcome.session_secret);
  CHECK(next_control(*good) == static_cast<uint32_t>(wire::fb::ControlType::Welcome));
  CHECK(set.first(4).size() == 1);

  transport::SessionSecret wrong = welcome.session_secret;
  wrong[0] ^= 1;
  auto bad = hand_over(name, wrong);
  CHECK(next_control(*bad) == static_cast<uint32_t>(wire::fb::ControlType::Refused));
  CHECK(set.first(4).size() == 1);
}

TEST_CASE("stripe set: a second set cannot take a name in use") {
  server::StripeSet a, b;
  transport::Welcome w;
  const std::string name = "rgpu-test." + std::to_string(getpid()) + ".taken";
  REQUIRE(a.listen(name, w).is_ok());
  CHECK(!b.listen(name, w).is_ok());
}
