// `rgpu pool` / `rgpu ls` against an in-process stand-in for rgpud's control connection: what is
// printed where, the exit status, the Hello the server sees, --watch, and an older rgpud.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <string>

#include "client/cli/pool_command.h"
#include "codegen/support/api_hash.h"
#include "common/wire/frame.h"
#include "transports/control_channel.h"
#include "transports/handshake.h"

using namespace rgpu;
using namespace rgpu::cli;
using namespace rgpu::transport;
using Catch::Contains;

namespace {

// What the command printed and returned.
struct Printed {
  int rc = -1;
  std::string out, err;
};

std::string slurp(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
  return s;
}

// Runs the command with stdout and stderr sent to files.
Printed run_captured(const PoolCommand& command) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  const int saved_out = dup(1), saved_err = dup(2);
  dup2(fileno(out), 1);
  dup2(fileno(err), 2);
  Printed p;
  p.rc = run_pool_command(command);
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  p.out = slurp(out);
  p.err = slurp(err);
  std::fclose(out);
  std::fclose(err);
  return p;
}

// A server that handshakes one control connection, then hands it to `serve`.
struct FakeRgpud {
  std::unique_ptr<Listener> listener;
  std::future<Status> done;
  ClientIdentity seen;

  explicit FakeRgpud(std::function<Status(Connection&, const ClientIdentity&)> serve,
                     std::vector<std::string> tokens = {}) {
    auto l = transport::listen("127.0.0.1:0");
    REQUIRE(l.is_ok());
    listener = std::move(*l);
    setenv("RGPU_SERVER", listener->address().c_str(), 1);
    done = std::async(std::launch::async, [this, serve, tokens]() -> Status {
      RGPU_ASSIGN_OR_RETURN(auto conn, listener->accept());
      ServerIdentity me{wire::kProtocolVersion, gen::kApiHash, "0.1.0", tokens};
      RGPU_TRY(server_authenticate(*conn, me, &seen));
      return serve(*conn, seen);
    });
  }
};

PoolCommand command(std::string verb, bool watch = false) {
  PoolCommand c;
  c.request.verb = std::move(verb);
  c.watch = watch;
  c.watch_seconds = 0.1;
  return c;
}

Status welcome(Connection& conn) { return send_welcome(conn, Welcome{5, "control", {}, {}, {}}); }

}  // namespace

TEST_CASE("pool command: an ok reply goes to stdout, with the caller's Hello as the server saw it") {
  setenv("RGPU_TOKEN", "tenant-a", 1);
  FakeRgpud server(
      [](Connection& conn, const ClientIdentity&) -> Status {
        RGPU_TRY(welcome(conn));
        RGPU_ASSIGN_OR_RETURN(PoolRequestMsg req, recv_pool_request(conn));
        RGPU_TRY(send_pool_reply(conn, PoolReplyMsg{true, "GPU 0  H200  " + req.verb + (req.json ? " json" : "")}));
        auto next = recv_pool_request(conn);  // the client's Goodbye
        return next.status().code() == Code::kClosed ? Status::ok() : next.status();
      },
      {"admin", "tenant-a"});
  PoolCommand c = command("ls");
  c.request.json = true;
  Printed p = run_captured(c);
  unsetenv("RGPU_TOKEN");
  CHECK(server.done.get().is_ok());
  CHECK(p.rc == 0);
  CHECK(p.out == "GPU 0  H200  ls json\n");
  CHECK(p.err.empty());
  CHECK(server.seen.role == Role::kControl);
  CHECK(server.seen.token_index == 1);
  CHECK(server.seen.program == "rgpu ls");
}

TEST_CASE("pool command: a reply that is not ok goes to stderr and exits 1") {
  FakeRgpud server([](Connection& conn, const ClientIdentity&) -> Status {
    RGPU_TRY(welcome(conn));
    RGPU_TRY(recv_pool_request(conn).status());
    return send_pool_reply(conn, PoolReplyMsg{false, "rgpu pool needs the admin token"});
  });
  Printed p = run_captured(command("pool"));
  CHECK(server.done.get().is_ok());
  CHECK(p.rc == 1);
  CHECK(p.out.empty());
  CHECK(p.err == "rgpu pool needs the admin token\n");
}

TEST_CASE("pool command: --watch asks again on the same connection, clearing the screen each time") {
  FakeRgpud server([](Connection& conn, const ClientIdentity&) -> Status {
    RGPU_TRY(welcome(conn));
    for (int i = 0; i < 3; ++i) {
      RGPU_TRY(recv_pool_request(conn).status());
      RGPU_TRY(send_pool_reply(conn, PoolReplyMsg{true, "round " + std::to_string(i)}));
    }
    RGPU_TRY(recv_pool_request(conn).status());
    return send_control_error(conn, "rgpud is shutting down");
  });
  Printed p = run_captured(command("pool", /*watch=*/true));
  CHECK(server.done.get().is_ok());
  CHECK(p.rc == 1);
  for (const char* round : {"round 0\n", "round 1\n", "round 2\n"}) CHECK_THAT(p.out, Contains(round));
  CHECK_THAT(p.out, Contains("\x1b[H\x1b[2J" "Every 0.1s: rgpu pool    rgpud at 127.0.0.1:"));
  CHECK_THAT(p.err, Contains("lost the control connection"));
  CHECK_THAT(p.err, Contains("rgpud is shutting down"));
}

TEST_CASE("pool command: an rgpud that refuses the control role is named as older") {
  // An rgpud from before the control role answers its Hello with this refusal.
  auto l = transport::listen("127.0.0.1:0");
  REQUIRE(l.is_ok());
  setenv("RGPU_SERVER", (*l)->address().c_str(), 1);
  auto older = std::async(std::launch::async, [&]() -> Status {
    RGPU_ASSIGN_OR_RETURN(auto conn, (*l)->accept());
    wire::FrameHeader h;
    RGPU_TRY(conn->recv_header(h));
    RGPU_TRY(conn->skip(h.payload_len));
    return send_refused(*conn, "unknown connection role 3");
  });
  Printed p = run_captured(command("ls"));
  CHECK(older.get().is_ok());
  CHECK(p.rc == 1);
  CHECK_THAT(p.err, Contains("is older than this rgpu: it has no pool control API, which `rgpu ls` needs"));
}

TEST_CASE("pool command: an rgpud that welcomes the connection but does not answer says so") {
  FakeRgpud server([](Connection& conn, const ClientIdentity&) -> Status {
    RGPU_TRY(welcome(conn));
    return recv_pool_request(conn).status();  // then closes without a reply
  });
  Printed p = run_captured(command("pool"));
  CHECK(server.done.get().is_ok());
  CHECK(p.rc == 1);
  CHECK_THAT(p.err, Contains("accepted the control connection but did not answer the `pool` request"));
  CHECK_THAT(p.err, Contains("older than this rgpu"));
}

TEST_CASE("pool command: a wrong token is refused with the server's reason naming RGPU_TOKEN") {
  setenv("RGPU_TOKEN", "guess", 1);
  FakeRgpud server([](Connection&, const ClientIdentity&) -> Status { return Status::ok(); }, {"admin"});
  Printed p = run_captured(command("ls"));
  unsetenv("RGPU_TOKEN");
  CHECK(server.done.get().code() == Code::kAuth);
  CHECK(p.rc == 1);
  CHECK_THAT(p.err, Contains("cannot reach rgpud at 127.0.0.1:"));
  CHECK_THAT(p.err, Contains("RGPU_TOKEN does not match"));
}
