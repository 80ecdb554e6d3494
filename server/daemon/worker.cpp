// The session worker (see worker.h).
#include "server/daemon/worker.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <thread>

#include "common/log_event.h"
#include "common/wire/control.h"
#include "common/wire/frame.h"
#include "server/backends/backend.h"
#include "server/daemon/transport_probe.h"
#include "server/daemon/mps_daemon.h"
#include "server/session/stripe_set.h"
#include "server/session/compute_gate.h"
#include "server/session/output_capture.h"
#include "server/session/session.h"
#include "server/session/swap_space.h"
#include "transports/control_channel.h"
#include "transports/descriptor_passing.h"
#include "transports/handshake.h"
#include "transports/stream_connection.h"
#include "transports/ucx/ucx_selection.h"

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
  // The session's worker could take the socket but not this process's TLS state; clients do not
  // stripe over TLS (client/runtime/stripes.cpp).
  if (conn.encrypted()) {
    (void)transport::send_refused(conn, "stripes are not served over TLS");
    return 1;
  }
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

// Who the client proved to be: a tenant (by index) and whether it holds the admin token. A daemon
// that requires no token treats every client as its first tenant and as the admin.
struct Caller {
  uint32_t tenant = 0;
  bool admin = false;
};

Caller identify(const transport::ClientIdentity& client, const WorkerConfig& config) {
  Caller c;
  const auto index = static_cast<size_t>(client.token_index);
  if (client.token_index < 0 || index >= config.tokens.tenant.size() || config.tokens.tenant[index] < 0) {
    c.admin = true;
  } else {
    c.tenant = static_cast<uint32_t>(config.tokens.tenant[index]);
    c.admin = config.tokens.tokens[index] == config.admin_token;  // the built-in default tenant's token
  }
  return c;
}

// A control connection: each request goes to the parent, its answer back to the client.
int serve_control(transport::Connection& conn, const transport::ClientIdentity& client, const Caller& caller,
                  const PoolLink& link) {
  transport::Welcome welcome;
  welcome.backend = "control";
  welcome.server_proof = client.server_proof;
  if (!transport::send_welcome(conn, welcome).is_ok()) return 1;
  for (;;) {
    Result<transport::PoolRequestMsg> request = transport::recv_pool_request(conn);
    if (!request.is_ok()) {
      if (request.status().code() == Code::kClosed) return 0;
      (void)transport::send_control_error(conn, request.status().message().substr(0, request.status().message().find('\n')));
      return 2;
    }
    LinkMessage m(LinkKind::kControl);
    m.admin = caller.admin;
    m.tenant = caller.tenant;
    m.verb = request->verb;
    m.args = request->args;
    m.json = request->json;
    Result<LinkMessage> answer = link.send(m).is_ok() ? link.receive() : Result<LinkMessage>(RGPU_ERROR(kClosed, ""));
    if (!answer.is_ok() || answer->kind != LinkKind::kControlReply) {
      (void)transport::send_control_error(conn, "rgpud's pool service did not answer");
      return 2;
    }
    if (!transport::send_pool_reply(conn, {answer->ok, answer->text}).is_ok()) return 1;
  }
}

// Waits up to `timeout` for the parent's next message, or for the client to go: a client waiting
// for its Welcome sends nothing, so anything readable on its connection means it left (or broke
// the protocol). kUnavailable on timeout.
Result<LinkMessage> next_from_parent(const PoolLink& link, transport::Connection& conn, std::chrono::milliseconds timeout) {
  pollfd fds[2] = {{link.fd(), POLLIN, 0}, {conn.descriptor(), POLLIN | POLLRDHUP, 0}};
  const nfds_t n = conn.descriptor() >= 0 ? 2 : 1;
  int rc;
  do rc = ::poll(fds, n, static_cast<int>(timeout.count()));
  while (rc < 0 && errno == EINTR);
  if (rc < 0) return RGPU_ERROR(kIo, std::string("poll: ") + std::strerror(errno));
  if (n == 2 && fds[1].revents) return RGPU_ERROR(kClosed, "the client left while its session waited in the queue");
  if (rc == 0) return RGPU_ERROR(kUnavailable, "");
  return link.receive(std::chrono::milliseconds(0));
}

// Asks the parent for the session's slice. While it waits in the pool's admission queue, the
// client hears its place when it joins and every transport::kQueueNoticeEvery. A refusal's reason goes to
// the client. `on_queued(warm)` runs at each notice: warm = the pool lets it make its context now.
Result<LinkMessage> admit(transport::Connection& conn, const transport::ClientIdentity& client, const Caller& caller,
                          const PoolLink& link, const std::function<void(bool)>& on_queued) {
  LinkMessage m(LinkKind::kAdmit);
  m.tenant = caller.tenant;
  m.memory = client.memory_request;
  m.compute = client.compute_request;
  m.host = client.host.substr(0, 256);
  m.program = client.program.substr(0, 256);
  m.pid = client.pid;
  m.timeout_ms = client.queue_timeout_ms;
  RGPU_TRY(link.send(m));
  for (;;) {
    Result<LinkMessage> answer = next_from_parent(link, conn, transport::kQueueNoticeEvery);
    if (!answer.is_ok() && answer.status().code() == Code::kUnavailable) {
      RGPU_TRY(link.send(LinkMessage(LinkKind::kQueueQuery)));
      continue;
    }
    if (!answer.is_ok()) return answer.status();
    if (answer->kind == LinkKind::kQueued) {
      RGPU_TRY(transport::send_queued(conn, {answer->position, answer->text, answer->value, answer->timeout_ms}));
      on_queued(answer->ok);
      continue;
    }
    if (answer->kind == LinkKind::kRefused) return RGPU_ERROR(kUnavailable, answer->text);
    if (answer->kind != LinkKind::kAdmitted)
      return RGPU_ERROR(kProtocol, std::string("rgpud answered the admission with ") + link_kind_name(answer->kind));
    return answer;
  }
}

// The session's counts for the parent (rgpud's metrics).
LinkMessage traffic_message(LinkKind kind, const SessionStats& s) {
  LinkMessage m(kind);
  m.calls = s.calls.get();
  m.round_trips = s.round_trips.get();
  m.bytes_in = s.bytes_in.get();
  m.bytes_out = s.bytes_out.get();
  return m;
}

// Tells the parent why an admitted session ends (server/pool/pool_metrics.h kEndCauses), with its
// last counts.
void report_end(const PoolLink& link, const char* cause, const SessionStats& stats = {}) {
  LinkMessage m = traffic_message(LinkKind::kEnded, stats);
  m.text = cause;
  (void)link.send(m);
}

// The cause of a session's end from what Session::run() returned.
const char* end_cause(const Status& end) {
  if (end.is_ok() || end.code() == Code::kClosed) return "client_closed";
  if (end.code() == Code::kUnavailable) return "client_unresponsive";  // its host stopped acknowledging
  return "error";
}

}  // namespace

TokenTable token_table(const pool::DaemonConfig& config) {
  TokenTable table;
  for (size_t i = 0; i < config.tenants.size(); ++i) {
    const pool::TenantSpec& t = config.tenants[i];
    table.tenant_priority.push_back(t.priority);
    auto add = [&](const std::string& token) {
      if (token.empty()) return;  // a removed tenant's (or a daemon without tokens)
      table.tokens.push_back(token);
      table.tenant.push_back(static_cast<int>(i));
    };
    add(t.token);
    for (const std::string& alias : t.aliases) add(alias);
  }
  table.tokens.push_back(config.admin_token);
  table.tenant.push_back(-1);
  return table;
}

// A session continues over UCX only where this rgpud serves it (RGPU_TRANSPORT=ucx), and never from
// an encrypted connection (UCX carries bytes in the clear): said before its Welcome, as a refusal
// the client shows.
Status check_transport(const transport::ClientIdentity& client, const transport::Connection& conn) {
  if (client.transport.empty()) return Status::ok();
  // Shared memory is offered after the Welcome and may be declined then (RGPU_SHM_PIPE=0 here):
  // only a client on another host (or not on a Unix socket) cannot ask for it.
  if (client.transport == "shm") {
    if (conn.encrypted() || conn.descriptor() < 0 || transport::socket_family(conn.descriptor()) != AF_UNIX)
      return RGPU_ERROR(kNotSupported, "a shared-memory call pipe is for clients on rgpud's Unix socket");
    return Status::ok();
  }
  if (client.transport != "ucx") return RGPU_ERROR(kInvalidArgument, "unknown transport '" + client.transport + "'");
  Result<std::string> served = transport::session_transport();
  if (!served.is_ok() || *served != "ucx")
    return RGPU_ERROR(kNotSupported, "this rgpud serves no UCX sessions (start it with RGPU_TRANSPORT=ucx)");
  if (conn.encrypted())
    return RGPU_ERROR(kNotSupported, "UCX carries bytes unencrypted: a TLS connection does not continue over it "
                                     "(RGPU_TLS=off, on a trusted network)");
  return Status::ok();
}

// After the Welcome: the connection the session goes on with (its own, or it continued over UCX).
Status continue_over_transport(std::unique_ptr<transport::Connection>& conn, const transport::ClientIdentity& client,
                        uint64_t session_id) {
  auto continued = transport::continue_session(std::move(conn), client.transport, /*serving=*/true);
  if (!continued.is_ok()) {
    RGPU_LOG_ERROR("session %llu: cannot continue over %s: %s", static_cast<unsigned long long>(session_id),
                   client.transport.c_str(), continued.status().message().c_str());
    return continued.status();
  }
  conn = std::move(*continued);
  return Status::ok();
}

int run_worker(std::unique_ptr<transport::Connection> conn, uint64_t session_id, const transport::ClientIdentity& client,
               const WorkerConfig& config, const PoolLink& link) {
  auto started = std::chrono::steady_clock::now();
  Status st;
  if (client.role == transport::Role::kStripe) return hand_over_stripe(*conn, client, config);
  if (client.role != transport::Role::kControl) {
    if (Status refused = check_transport(client, *conn); !refused.is_ok()) {
      (void)transport::send_refused(*conn, refused.message());
      return 1;
    }
  }
  if (client.role == transport::Role::kTransportProbe) {
    transport::Welcome welcome;
    welcome.session_id = session_id;
    welcome.backend = "transport probe";
    welcome.server_proof = client.server_proof;
    st = transport::send_welcome(*conn, welcome);
    if (st.is_ok()) st = continue_over_transport(conn, client, session_id);
    if (st.is_ok()) st = serve_transport_probe(*conn);
    RGPU_LOG_DEBUG("transport probe %llu from %s ends: %s", static_cast<unsigned long long>(session_id),
                   conn->peer().c_str(), st.to_string().c_str());
    return st.is_ok() ? 0 : 2;
  }
  const Caller caller = identify(client, config);
  if (client.role == transport::Role::kControl) return serve_control(*conn, client, caller, link);

  // The backend, for the GPU the session sees as its device 0 (-1: every GPU, a whole-GPU session).
  std::unique_ptr<Backend> backend;
  auto make_backend = [&](int gpu) {
    if (config.mps && caller.tenant < config.tokens.tenant_priority.size())
      set_mps_client_priority(config.tokens.tenant_priority[caller.tenant]);
    if (gpu >= 0) {
      if (config.backend == "emulated") setenv("RGPU_EMULATED_DEVICES", "1", 1);
      else setenv("CUDA_VISIBLE_DEVICES", std::to_string(gpu).c_str(), 1);
    }
    backend = config.backend == "emulated" ? make_emulated_backend() : make_cuda_backend();
  };
  // Waiting in the queue on a one-GPU host: the GPU is known, so the driver loads meanwhile, and
  // the context too once the pool says so (next in line, and the GPU has memory no slice holds:
  // Pool::QueueStatus::warm), so that the session starts as soon as its room frees.
  bool ready = false;
  auto prepare_while_queued = [&](bool warm) {
    if (ready || config.gpus != 1) return;
    if (!backend) {
      make_backend(0);
      if (Status st = backend->prepare(); !st.is_ok()) {
        RGPU_LOG_WARN("session %llu: loading the driver while queued failed (it is tried again at the start): %s",
                      static_cast<unsigned long long>(session_id), st.message().c_str());
        backend.reset();
        return;
      }
    }
    if (!warm) return;
    const auto begun = std::chrono::steady_clock::now();
    Status st = backend->init();
    if (!st.is_ok()) {
      RGPU_LOG_WARN("session %llu: making the context while queued failed (it is tried again at the start): %s",
                    static_cast<unsigned long long>(session_id), st.message().c_str());
      backend.reset();
      return;
    }
    ready = true;
    log_event(LogLevel::kInfo, "context_while_queued", session_id,
              {{"ms", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begun).count()}},
              "session %llu: next in the queue, made its context while it waits", static_cast<unsigned long long>(session_id));
  };
  Result<LinkMessage> slice = admit(*conn, client, caller, link, prepare_while_queued);
  if (!slice.is_ok()) {
    std::string why = slice.status().message().substr(0, slice.status().message().find('\n'));
    (void)transport::send_refused(*conn, why);
    return 1;
  }
  const bool sliced = slice->gpu >= 0;
  const auto admitted = std::chrono::steady_clock::now();
  // A sliced session sees the one GPU it was placed on, as its device 0.
  if (!backend) make_backend(slice->gpu);
  if (!ready) st = backend->init();
  const auto backend_ready = std::chrono::steady_clock::now();
  if (!st.is_ok()) {
    std::string why = st.message().substr(0, st.message().find('\n'));
    log_event(LogLevel::kError, "backend_failed", session_id, {{"backend", config.backend}, {"reason", why}},
              "session %llu: the %s backend failed to start: %s", static_cast<unsigned long long>(session_id),
              config.backend.c_str(), why.c_str());
    (void)transport::send_refused(*conn, "the server's GPU backend failed to start: " + why);
    report_end(link, "backend_failed");
    return 1;
  }
  transport::Welcome welcome;
  welcome.session_id = session_id;
  welcome.session_secret = auth::random_nonce();
  welcome.server_proof = client.server_proof;
  welcome.backend = backend->name();
  int ordinal = 0;
  for (const DeviceSummary& d : backend->devices())
    welcome.devices.push_back({ordinal++, d.name, sliced && slice->memory ? slice->memory : d.total_memory, d.major,
                               d.minor});
  st = transport::send_welcome(*conn, welcome);
  if (!st.is_ok()) {
    report_end(link, "client_closed");
    return 1;
  }
  if (!continue_over_transport(conn, client, session_id).is_ok()) {
    report_end(link, "client_closed");
    return 1;
  }
  auto ms = [](auto d) { return static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); };
  const std::string resources =
      sliced ? "GPU " + std::to_string(slice->gpu) + ", " +
                   (slice->memory ? mib(slice->memory) : std::string("no memory limit")) + ", compute " +
                   std::to_string(slice->compute) + "% (cap " + std::to_string(slice->compute_limit) + "%)"
             : std::string("whole GPUs");
  log_event(LogLevel::kInfo, "session_start", session_id,
            {{"host", client.host}, {"pid", client.pid}, {"program", client.program}, {"peer", conn->peer()},
             {"backend", backend->name()}, {"devices", welcome.devices.size()},
             sliced ? LogField("gpu", slice->gpu) : LogField("gpu", "all"), {"memory_bytes", sliced ? slice->memory : 0},
             {"compute_percent", sliced ? slice->compute : 0}, {"compute_limit_percent", sliced ? slice->compute_limit : 100},
             {"admitted_ms", ms(admitted - started)}, {"backend_ms", ms(backend_ready - admitted)}},
            "session %llu start: %s pid %u on %s (%s backend, %zu devices; admitted after %lld ms, backend "
            "started in %lld ms); slice: %s",
            static_cast<unsigned long long>(session_id), client.host.c_str(), client.pid, conn->peer().c_str(),
            backend->name(), welcome.devices.size(), ms(admitted - started), ms(backend_ready - admitted),
            resources.c_str());

  auto output = OutputCapture::start();
  if (!output.is_ok()) RGPU_LOG_WARN("device printf output will not reach the client: %s", output.status().message().c_str());
  std::unique_ptr<ComputeGate> gate;
  if (sliced) gate = std::make_unique<ComputeGate>(link, *backend, config.idle_release);
  // An over-committed GPU (the Admitted's flag): the session's memory may be swapped out while idle.
  std::unique_ptr<SwapSpace> swap;
  if (sliced && slice->ok) swap = std::make_unique<SwapSpace>(*backend);
  Session session(session_id, *conn, *backend, output.is_ok() ? output->get() : nullptr,
                  {sliced ? slice->memory : 0, gate.get(), swap.get(), sliced ? slice->value : 0});
  if (gate) {
    auto report = [&link, &swap, &session](uint64_t used) {
      LinkMessage m(LinkKind::kMemory);
      m.value = used;
      m.memory = swap ? swap->movable_bytes() : 0;
      m.host_bytes = session.host_extension().used();
      (void)link.send(m);
    };
    session.memory().on_change(report);
    report(session.memory().used());
    if (swap)
      gate->set_swap(swap.get(), [&] { session.memory().refresh(); }, [&](const Status& why) { session.abort(why); });
    // The gate's thread runs until the worker exits (below, without unwinding).
    std::thread([&] {
      gate->serve([&](const LinkMessage& m) { session.memory().set_limit(m.memory); },
                  [&] { session.memory().refresh(); });
    }).detach();
  }
  // Only when they changed: an idle session sends nothing.
  session.report_every_second([&link, &session, last = LinkMessage()]() mutable {
    LinkMessage m = traffic_message(LinkKind::kTraffic, session.stats());
    if (m.calls == last.calls && m.bytes_in == last.bytes_in && m.bytes_out == last.bytes_out) return;
    (void)link.send(m);
    last = std::move(m);
  });
  session.pool_shares().place(config.daemon_pid, session_id);
  st = session.stripes().listen(stripe_socket_name(config.daemon_pid, session_id), welcome);
  if (!st.is_ok()) RGPU_LOG_WARN("session %llu: large copies will not be striped: %s",
                                 static_cast<unsigned long long>(session_id), st.message().c_str());
  Status end = session.run();
  if (gate) gate->stop();
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
  log_event(LogLevel::kInfo, "session_end", session_id,
            {{"cause", how}, {"seconds", secs}, {"calls", s.calls.get()}, {"bytes_in", s.bytes_in.get()}, {"bytes_out", s.bytes_out.get()},
             {"peak_bytes", s.peak_bytes}, {"freed_bytes", s.live_bytes}, {"freed_allocations", s.live_allocations}},
            "session %llu end (%s): %.1f s, %llu calls, %s in, %s out, peak %s device memory, freed %s in %llu "
            "allocations left by the client",
            static_cast<unsigned long long>(session_id), how.c_str(), secs, static_cast<unsigned long long>(s.calls.get()),
            mib(s.bytes_in.get()).c_str(), mib(s.bytes_out.get()).c_str(), mib(s.peak_bytes).c_str(), mib(s.live_bytes).c_str(),
            static_cast<unsigned long long>(s.live_allocations));
  if (const CallProfile* profile = session.call_profile())
    RGPU_LOG_INFO("session %llu %s", static_cast<unsigned long long>(session_id), profile->report().c_str());
  // The worker ends here, without unwinding: its exit frees everything the session held (the CUDA
  // context, with any work still queued in it), and waiting for the gate's drain or for helper
  // threads stuck behind that work would only delay the end. Closing the link first returns the
  // slice to the pool now.
  report_end(link, end_cause(end), s);
  ::close(link.fd());
  std::fflush(nullptr);
  _exit(end.is_ok() ? 0 : 2);
}

}  // namespace rgpu::server
