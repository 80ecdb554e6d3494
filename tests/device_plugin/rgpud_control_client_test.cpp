// The real RgpudControl client against a stand-in rgpud control endpoint on a Unix socket: the
// handshake (control role, the admin token), the exact requests, rgpud's own pool view JSON, and
// the errors when rgpud refuses, is away, or does not know the token.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <future>
#include <mutex>

#include "codegen/support/api_hash.h"
#include "common/wire/frame.h"
#include "server/device_plugin/rgpud_control_client.h"
#include "server/pool/pool_admin.h"
#include "transports/control_channel.h"
#include "transports/handshake.h"
#include "transports/transport.h"

namespace dp = rgpu::device_plugin;
namespace transport = rgpu::transport;
using rgpu::Status;

namespace {

// Answers control connections as rgpud's parent does, one at a time, until `connections` were
// served: `pool` from a real Pool's control API, `tenant add|remove` recorded.
class ControlEndpoint {
 public:
  ControlEndpoint(const std::string& address, std::string admin_token, int connections)
      : pool_({{"NVIDIA H200", 143771ull << 20}}, rgpu::pool::DaemonConfig{}) {
    auto l = transport::listen(address);
    REQUIRE(l.is_ok());
    listener_ = std::move(*l);
    done_ = std::async(std::launch::async, [this, admin_token, connections]() -> Status {
      for (int i = 0; i < connections; ++i) RGPU_TRY(serve_one(admin_token));
      return Status::ok();
    });
  }
  Status finish() { return done_.get(); }
  std::vector<transport::PoolRequestMsg> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  Status serve_one(const std::string& admin_token) {
    RGPU_ASSIGN_OR_RETURN(auto conn, listener_->accept());
    transport::ClientIdentity client;
    transport::ServerIdentity me{rgpu::wire::kProtocolVersion, rgpu::gen::kApiHash, "0.1.0", {admin_token}};
    if (!transport::server_authenticate(*conn, me, &client).is_ok()) return Status::ok();  // refused: counted
    if (client.role != transport::Role::kControl) return RGPU_ERROR(kProtocol, "not a control connection");
    RGPU_TRY(transport::send_welcome(*conn, transport::Welcome{1, "control", {}, {}, {}}));
    RGPU_ASSIGN_OR_RETURN(transport::PoolRequestMsg request, transport::recv_pool_request(*conn));
    {
      std::lock_guard lock(mu_);
      requests_.push_back(request);
    }
    transport::PoolReplyMsg reply{true, "ok"};
    if (request.verb == "pool") {
      auto answer = rgpu::pool::handle_admin(pool_, {true, ""}, {request.verb, request.args, request.json},
                                             rgpu::pool::Clock::now());
      reply = {answer.ok, answer.text};
    } else if (request.args.size() >= 2 && request.args[0] == "remove" && request.args[1] == "nobody") {
      reply = {false, "no tenant nobody"};
    }
    RGPU_TRY(transport::send_pool_reply(*conn, reply));
    auto next = transport::recv_pool_request(*conn);  // the client's Goodbye
    return next.status().code() == rgpu::Code::kClosed ? Status::ok() : next.status();
  }

  rgpu::pool::Pool pool_;
  std::unique_ptr<transport::Listener> listener_;
  std::future<Status> done_;
  std::mutex mu_;
  std::vector<transport::PoolRequestMsg> requests_;
};

}  // namespace

TEST_CASE("device plugin: the rgpud client speaks rgpud's control API with the admin token", "[device_plugin]") {
  char dir_template[] = "/tmp/rgpu-dp-ctl-XXXXXX";
  REQUIRE(mkdtemp(dir_template));
  const std::string dir = dir_template;
  const std::string address = "unix:" + dir + "/rgpud.sock";

  SECTION("the GPUs, a tenant added and removed, a refusal passed on") {
    ControlEndpoint rgpud(address, "s3cret-admin", 4);
    dp::RgpudControlClient client(address, "s3cret-admin");
    auto gpus = client.gpus();
    REQUIRE(gpus.is_ok());
    CHECK(*gpus == std::vector<dp::GpuInventory>{{0, 143771ull << 20}});
    CHECK(client.add_tenant({"ns/pod/c", {"t1", "t2"}, 4096, 10}).is_ok());
    CHECK(client.remove_tenant("ns/pod/c").is_ok());
    const Status refused = client.remove_tenant("nobody");
    CHECK_THAT(refused.message(), Catch::Contains("rgpud refused `tenant remove`: no tenant nobody"));
    REQUIRE(rgpud.finish().is_ok());
    auto requests = rgpud.requests();
    REQUIRE(requests.size() == 4);
    CHECK(requests[0].verb == "pool");
    CHECK(requests[0].json);
    CHECK(requests[1].verb == "tenant");
    CHECK(requests[1].args == std::vector<std::string>{"add", "ns/pod/c", "token=t1", "token=t2", "memory=4096",
                                                       "compute=10", "compute_limit=10"});
    CHECK(requests[2].args == std::vector<std::string>{"remove", "ns/pod/c"});
  }
  SECTION("a wrong admin token is an error naming rgpud") {
    ControlEndpoint rgpud(address, "s3cret-admin", 1);
    dp::RgpudControlClient client(address, "wrong");
    auto gpus = client.gpus();
    REQUIRE_FALSE(gpus.is_ok());
    CHECK_THAT(gpus.status().message(), Catch::Contains("cannot reach rgpud at " + address));
    REQUIRE(rgpud.finish().is_ok());
    CHECK(rgpud.requests().empty());
  }
  SECTION("no rgpud: an error, not a hang") {
    dp::RgpudControlClient client(address, "s3cret-admin");
    auto gpus = client.gpus();
    REQUIRE_FALSE(gpus.is_ok());
    CHECK(gpus.status().code() == rgpu::Code::kUnavailable);
  }
  std::filesystem::remove_all(dir);
}
