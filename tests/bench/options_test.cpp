// `rgpu bench`'s command line.
#include <catch2/catch.hpp>

#include "bench/cli/options.h"

using namespace rgpu::bench;

TEST_CASE("no scenario means all, as a table") {
  auto o = parse_options({});
  REQUIRE(o.is_ok());
  CHECK((o->transport && o->copy && o->latency && o->launch));
  CHECK(o->format == Format::kTable);
  CHECK_FALSE(o->quick);
  CHECK_FALSE(o->stripes);
}

TEST_CASE("one scenario, with the transport where its bars need it") {
  auto launch = parse_options({"launch"});
  REQUIRE(launch.is_ok());
  CHECK((launch->launch && !launch->copy && !launch->latency && !launch->transport));
  auto copy = parse_options({"copy"});
  REQUIRE(copy.is_ok());
  CHECK((copy->copy && copy->transport && !copy->latency));
  auto transport = parse_options({"transport"});
  REQUIRE(transport.is_ok());
  CHECK((transport->transport && !transport->copy && !transport->latency && !transport->launch));
}

TEST_CASE("options in any order") {
  auto o = parse_options({"--quick", "all", "--format", "json", "--stripes", "8"});
  REQUIRE(o.is_ok());
  CHECK(o->quick);
  CHECK(o->format == Format::kJson);
  CHECK(*o->stripes == 8);
  CHECK(parse_options({"--format", "csv"})->format == Format::kCsv);
}

TEST_CASE("bad arguments say what is wrong") {
  auto message = [](std::vector<std::string> args) {
    auto o = parse_options(args);
    REQUIRE_FALSE(o.is_ok());
    return o.status().message();
  };
  CHECK(message({"--format"}).find("needs a value") != std::string::npos);
  CHECK(message({"--format", "xml"}).find("unknown format 'xml'") != std::string::npos);
  CHECK(message({"--stripes", "0"}).find("1 to 64") != std::string::npos);
  CHECK(message({"--stripes", "4x"}).find("1 to 64") != std::string::npos);
  CHECK(message({"copy", "launch"}).find("one scenario at a time") != std::string::npos);
  CHECK(message({"--fast"}).find("unknown argument '--fast'") != std::string::npos);
  CHECK(message({"--transport", "rdma"}).find("unknown transport 'rdma' (tcp, unix or ucx)") != std::string::npos);
}

TEST_CASE("bench: --transport picks the address every run uses") {
  CHECK_FALSE(parse_options({})->via);
  CHECK(*parse_options({"--transport", "unix"})->via == Via::kUnix);
  CHECK(*parse_options({"transport", "--transport", "tcp"})->via == Via::kTcp);
  CHECK(*parse_options({"--transport", "ucx"})->via == Via::kUcx);
  const std::string sock = "/run/rgpu/rgpud.sock";
  CHECK(server_for(std::nullopt, "gpu:7070", sock).value() == "gpu:7070");
  CHECK(server_for(std::nullopt, "unix:/tmp/r.sock", sock).value() == "unix:/tmp/r.sock");
  CHECK(server_for(Via::kTcp, "127.0.0.1:7070", sock).value() == "127.0.0.1:7070");
  CHECK(server_for(Via::kUnix, "127.0.0.1:7070", sock).value() == "unix:/run/rgpu/rgpud.sock");
  CHECK(server_for(Via::kUnix, "unix:/tmp/r.sock", sock).value() == "unix:/tmp/r.sock");
  CHECK(server_for(Via::kUcx, "127.0.0.1:7070", sock).value() == "127.0.0.1:7070");  // the handshake's address
  CHECK(server_for(Via::kUcx, "unix:/tmp/r.sock", sock).value() == "unix:/tmp/r.sock");
  auto refused = server_for(Via::kTcp, "unix:/tmp/r.sock", sock);
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().message().find("set it to rgpud's host:port") != std::string::npos);
}
