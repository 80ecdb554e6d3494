// rgpud's control API over the control channel (see rgpud_control_client.h).
#include "server/device_plugin/rgpud_control_client.h"

#include <unistd.h>

#include <chrono>

#include "codegen/support/api_hash.h"
#include "common/wire/frame.h"
#include "server/device_plugin/rgpud_requests.h"
#include "server/device_plugin/status_text.h"
#include "transports/handshake.h"

namespace rgpu::device_plugin {

namespace {

// A control request is small and rgpud answers it at once: a silent rgpud is an unhealthy one.
constexpr std::chrono::seconds kHandshakeTimeout{5};

}  // namespace

RgpudControlClient::RgpudControlClient(std::string address, std::string admin_token)
    : address_(std::move(address)), admin_token_(std::move(admin_token)) {}

Result<std::string> RgpudControlClient::call(const transport::PoolRequestMsg& request) {
  transport::ClientIdentity id;
  id.protocol_version = wire::kProtocolVersion;
  id.api_hash = gen::kApiHash;
  id.client_version = "0.1.0";
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  id.host = host;
  id.pid = static_cast<uint32_t>(getpid());
  id.role = transport::Role::kControl;
  id.program = "rgpu-device-plugin";
  transport::Welcome welcome;
  auto conn = transport::connect_and_handshake(address_, id, admin_token_, &welcome, kHandshakeTimeout);
  if (!conn.is_ok())
    return RGPU_ERROR(kUnavailable, "cannot reach rgpud at " + address_ + ": " + first_line(conn.status().message()));
  transport::Connection& connection = **conn;
  auto reply = transport::pool_call(connection, request);
  (void)transport::end_control(connection);
  if (!reply.is_ok())
    return RGPU_ERROR(kUnavailable, "rgpud at " + address_ + " did not answer `" + request.verb + "`: " +
                                        first_line(reply.status().message()));
  if (!reply->ok)
    return RGPU_ERROR(kInvalidArgument, "rgpud refused `" + request.verb + (request.args.empty() ? "" : " " + request.args[0]) +
                                            "`: " + reply->text);
  return reply->text;
}

Result<std::vector<GpuInventory>> RgpudControlClient::gpus() {
  RGPU_ASSIGN_OR_RETURN(std::string json, call(pool_view_request()));
  return parse_pool_view(json);
}

Status RgpudControlClient::add_tenant(const TenantSpec& tenant) { return call(tenant_add_request(tenant)).status(); }

Status RgpudControlClient::remove_tenant(const std::string& name) {
  return call(tenant_remove_request(name)).status();
}

}  // namespace rgpu::device_plugin
