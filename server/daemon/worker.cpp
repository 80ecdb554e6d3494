// The session worker (see worker.h).
#include "server/daemon/worker.h"

#include <unistd.h>

#include <chrono>

#include "common/log.h"
#include "common/wire/control.h"
#include "common/wire/frame.h"
#include "codegen/support/api_hash.h"
#include "server/backends/backend.h"
#include "server/daemon/transport_probe.h"
#include "server/session/stripe_set.h"
#include "transports/descriptor_passing.h"
#include "server/session/output_capture.h"
#include "server/session/session.h"
#include "transports/handshake.h"

namespace rgpu::server {
namespace {

std::string mib(uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

// A stripe joins its session: its descriptor and the secret it claims go to the session's worker,
// which checks the secret and welcomes it. This worker's part ends there.
int hand_over_stripe(transport::Connection& conn, const transport::ClientIdentity& client, const WorkerConfig& config) {
  auto via = transport::connect_local(stripe_socket_name(config.daemon_pid, client.session_id));
  Status st = via.status();
  if (st.is_ok()) {
    st = transport::send_descriptor(*via, conn.descriptor(), client.session_secret);
    close(*via);
  }
  if (!st.is_ok()) {
    RGPU_LOG_WARN("stripe for session %llu from %s refused: %s", static_cast<unsigned long long>(client.session_id),
                  conn.peer().c_str(), st.message().c_str());
    (void)transport::send_refused(conn, "no session " + std::to_string(client.session_id) + " to join");
    return 1;
  }
  return 0;
}

}  // namespace

int run_worker(std::unique_ptr<transport::Connection> conn, uint64_t session_id, const WorkerConfig& config) {
  auto started = std::chrono::steady_clock::now();
  transport::ServerIdentity me;
  me.protocol_version = wire::kProtocolVersion;
  me.api_hash = gen::kApiHash;  // cudart's and cuBLAS's
  me.server_version = "0.1.0";
  me.token = config.token;
  transport::ClientIdentity client;
  Status st = transport::server_authenticate(*conn, me, &client, std::chrono::milliseconds(10000));
  if (!st.is_ok()) {
    RGPU_LOG_WARN("session %llu from %s refused: %s", static_cast<unsigned long long>(session_id), conn->peer().c_str(),
                  st.message().substr(0, st.message().find('\n')).c_str());
    return 1;
  }
  if (client.role == transport::Role::kStripe) return hand_over_stripe(*conn, client, config);
  if (client.role == transport::Role::kTransportProbe) {
    transport::Welcome welcome;
    welcome.session_id = session_id;
    welcome.backend = "transport probe";
    st = transport::send_welcome(*conn, welcome);
    if (st.is_ok()) st = serve_transport_probe(*conn);
    RGPU_LOG_DEBUG("transport probe %llu from %s ends: %s", static_cast<unsigned long long>(session_id),
                   conn->peer().c_str(), st.to_string().c_str());
    return st.is_ok() ? 0 : 2;
  }
  std::unique_ptr<Backend> backend = config.backend == "emulated" ? make_emulated_backend() : make_cuda_backend();
  st = backend->init();
  if (!st.is_ok()) {
    std::string why = st.message().substr(0, st.message().find('\n'));
    RGPU_LOG_ERROR("session %llu: the %s backend failed to start: %s", static_cast<unsigned long long>(session_id),
                   config.backend.c_str(), why.c_str());
    (void)transport::send_refused(*conn, "the server's GPU backend failed to start: " + why);
    return 1;
  }
  transport::Welcome welcome;
  welcome.session_id = session_id;
  welcome.session_secret = auth::random_nonce();
  welcome.backend = backend->name();
  int ordinal = 0;
  for (const DeviceSummary& d : backend->devices())
    welcome.devices.push_back({ordinal++, d.name, d.total_memory, d.major, d.minor});
  st = transport::send_welcome(*conn, welcome);
  if (!st.is_ok()) return 1;
  RGPU_LOG_INFO("session %llu start: %s pid %u on %s (%s backend, %zu devices)", static_cast<unsigned long long>(session_id),
                client.host.c_str(), client.pid, conn->peer().c_str(), backend->name(), welcome.devices.size());

  auto output = OutputCapture::start();
  if (!output.is_ok()) RGPU_LOG_WARN("device printf output will not reach the client: %s", output.status().message().c_str());
  Session session(session_id, *conn, *backend, output.is_ok() ? output->get() : nullptr);
  st = session.stripes().listen(stripe_socket_name(config.daemon_pid, session_id), welcome);
  if (!st.is_ok()) RGPU_LOG_WARN("session %llu: large copies will not be striped: %s",
                                 static_cast<unsigned long long>(session_id), st.message().c_str());
  Status end = session.run();
  if (!end.is_ok() && end.code() != Code::kClosed) {
    // Tell the client why its session ends (best effort: it may be gone already).
    flatbuffers::FlatBufferBuilder fbb;
    wire::build_error(fbb, end.message().substr(0, end.message().find('\n')));
    (void)session.send(wire::FrameKind::kControl, static_cast<uint32_t>(wire::fb::ControlType::Error), 0,
                       wire::control_bytes(fbb));
  }
  const SessionStats& s = session.stats();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::string how = end.is_ok() ? "client disconnected" : end.message().substr(0, end.message().find('\n'));
  RGPU_LOG_INFO("session %llu end (%s): %.1f s, %llu calls, %s in, %s out, peak %s device memory, freed %s in %llu "
                "allocations left by the client",
                static_cast<unsigned long long>(session_id), how.c_str(), secs, static_cast<unsigned long long>(s.calls),
                mib(s.bytes_in).c_str(), mib(s.bytes_out).c_str(), mib(s.peak_bytes).c_str(), mib(s.live_bytes).c_str(),
                static_cast<unsigned long long>(s.live_allocations));
  return end.is_ok() ? 0 : 2;
}

}  // namespace rgpu::server
