// The parent's pool service (see pool_service.h).
#include "server/daemon/pool_service.h"

#include <unistd.h>

#include <algorithm>

#include "common/log_event.h"
#include "server/daemon/fork_gate.h"
#include "server/pool/pool_admin.h"

namespace rgpu::server {
namespace {

pool::TimePoint now() { return pool::Clock::now(); }

LinkMessage slice_message(LinkKind kind, const pool::Slice& s) {
  LinkMessage m(kind);
  m.gpu = s.gpu;
  m.memory = s.memory_bytes;
  m.compute = s.compute;
  m.compute_limit = s.compute_limit;
  m.priority = s.priority;
  m.ok = s.movable;
  m.value = s.memory_host_bytes;
  return m;
}

pool::Traffic traffic_of(const LinkMessage& m) { return {m.calls, m.round_trips, m.bytes_in, m.bytes_out}; }

// A slice given, changed: "session N (tenant T) WHAT on GPU g: M MiB, compute c% (cap l%)", its
// figures as the event's fields.
void log_slice(const char* event, uint64_t session, const std::string& tenant, const char* what,
               const pool::Slice& s) {
  log_event(LogLevel::kInfo, event, session,
            {{"tenant", tenant}, {"gpu", s.gpu}, {"memory_bytes", s.memory_bytes}, {"compute_percent", s.compute},
             {"compute_limit_percent", s.compute_limit}, {"priority", s.priority}},
            "session %llu (tenant %s) %s on GPU %d: %llu MiB, compute %u%% (cap %u%%)",
            static_cast<unsigned long long>(session), tenant.c_str(), what, s.gpu,
            static_cast<unsigned long long>(s.memory_bytes >> 20), s.compute, s.compute_limit);
}

// "set inference memory=4G": a control request as its command line.
std::string request_text(const pool::AdminRequest& r) {
  std::string text = r.verb;
  for (const std::string& a : r.args) text += " " + a;
  return text;
}

}  // namespace

PoolService::PoolService(std::unique_ptr<pool::Pool> pool) : pool_(std::move(pool)), timer_(io_) {}

PoolService::~PoolService() { stop(); }

void PoolService::stop() {
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

Result<std::string> PoolService::serve_metrics(const std::string& address, HandshakeCounts handshakes) {
  RGPU_ASSIGN_OR_RETURN(metrics_, MetricsServer::open(io_, address, [this] { return metrics_page(); }));
  handshakes_ = std::move(handshakes);
  metrics_->start();  // before start(): nothing runs the io_context yet
  return metrics_->address();
}

std::string PoolService::metrics_page() {
  const pool::PoolView view = pool_->view(now());
  std::map<uint64_t, pool::Traffic> traffic;
  for (const auto& [id, w] : workers_) traffic[id] = w->traffic;
  if (handshakes_) counters_.handshakes = handshakes_();
  return pool::render_metrics({view, traffic, counters_});
}

void PoolService::start() {
  thread_ = std::thread([this] {
    auto guard = boost::asio::make_work_guard(io_);
    io_.run();
  });
}

void PoolService::add_worker(uint64_t session, int fd) {
  boost::asio::post(io_, [this, session, fd] {
    auto w = std::make_unique<Worker>(session, fd, io_);
    Worker& ref = *w;
    workers_[session] = std::move(w);
    wait_readable(ref);
  });
}

pid_t PoolService::fork_parked() {
  // One flag: only the parking task sets it, only this clears it, and the thread runs one task at a
  // time, so a task still waking from the last fork cannot take the next one's place.
  {
    std::unique_lock<std::mutex> lock(park_mu_);
    boost::asio::post(io_, [this] {
      std::unique_lock<std::mutex> task_lock(park_mu_);
      parked_ = true;
      park_cv_.notify_all();
      park_cv_.wait(task_lock, [this] { return !parked_; });
    });
    park_cv_.wait(lock, [this] { return parked_; });
  }
  const pid_t pid = parent_fork_gate().fork();
  if (pid == 0) return pid;
  {
    std::lock_guard<std::mutex> lock(park_mu_);
    parked_ = false;
  }
  park_cv_.notify_all();
  return pid;
}

void PoolService::wait_readable(Worker& w) {
  w.socket.async_wait(boost::asio::posix::descriptor::wait_read, [this, &w](const boost::system::error_code& ec) {
    if (ec == boost::asio::error::operation_aborted) return;
    Result<LinkMessage> m = w.link.receive(std::chrono::milliseconds(0));
    if (!m.is_ok()) {
      if (m.status().code() == Code::kUnavailable) return wait_readable(w);  // spurious wake-up
      if (m.status().code() != Code::kClosed)
        RGPU_LOG_WARN("session %llu: %s; its worker is treated as gone", static_cast<unsigned long long>(w.session),
                      m.status().message().c_str());
      return on_closed(w);
    }
    on_message(w, *m);
    wait_readable(w);
  });
}

void PoolService::on_message(Worker& w, const LinkMessage& m) {
  switch (m.kind) {
    case LinkKind::kAdmit: return admit(w, m);
    case LinkKind::kControl: return control(w, m);
    case LinkKind::kMemory: return apply(pool_->note_memory(w.session, m.value, now(), m.memory, m.host_bytes));
    case LinkKind::kSwapped: return apply(pool_->swapped(w.session, m.ok, m.value, now()));
    case LinkKind::kQueueQuery: return send_queue_status(w);
    case LinkKind::kWant: return apply(pool_->want(w.session, now()));
    case LinkKind::kReleased:
      return apply(pool_->released(w.session, std::chrono::nanoseconds(m.value), now()));
    case LinkKind::kTraffic:
      w.traffic = traffic_of(m);
      return;
    case LinkKind::kEnded:
      w.traffic = traffic_of(m);
      w.end_cause = pool::end_cause_label(m.text);
      return;
    default:
      RGPU_LOG_WARN("session %llu: unexpected %s from its worker", static_cast<unsigned long long>(w.session),
                    link_kind_name(m.kind));
  }
}

void PoolService::forget_removed_tenants(const Worker* ending) {
  for (auto it = counters_.ended_traffic.begin(); it != counters_.ended_traffic.end();) {
    const bool running = std::any_of(workers_.begin(), workers_.end(), [&](const auto& entry) {
      return entry.second.get() != ending && entry.second->tenant == it->first;
    });
    if (running || pool_->find_tenant(it->first)) ++it;
    else it = counters_.ended_traffic.erase(it);
  }
}

void PoolService::on_closed(Worker& w) {
  const uint64_t session = w.session;
  if (w.admitted) {
    counters_.sessions_ended[w.end_cause.empty() ? "worker_died" : w.end_cause]++;
    counters_.ended_traffic[w.tenant] += w.traffic;
    apply(pool_->end(session, now()));
    log_event(LogLevel::kInfo, "slice_released", session, {{"tenant", w.tenant}},
              "session %llu: its slice is back in the pool", static_cast<unsigned long long>(session));
  } else if (w.queued) {
    apply(pool_->end(session, now()));
    log_event(LogLevel::kInfo, "queue_left", session, {{"tenant", w.tenant}},
              "session %llu: its client left the admission queue", static_cast<unsigned long long>(session));
  }
  forget_removed_tenants(&w);
  // Destroying the descriptor object cancels nothing pending (this handler was the wait) and
  // closes the link.
  workers_.erase(session);
}

void PoolService::admit(Worker& w, const LinkMessage& m) {
  pool::SessionRequest request;
  request.session_id = w.session;
  request.tenant = m.tenant;
  request.memory_bytes = m.memory;
  request.compute = m.compute;
  request.host = m.host;
  request.program = m.program;
  request.pid = m.pid;
  if (m.timeout_ms >= 0) request.queue_timeout = std::chrono::milliseconds(m.timeout_ms);
  if (m.tenant < pool_->config().tenants.size()) w.tenant = pool_->config().tenants[m.tenant].name;
  Result<pool::Admission> admission = pool_->admit(request, now());
  if (!admission.is_ok()) {
    std::string why = admission.status().message().substr(0, admission.status().message().find('\n'));
    log_event(LogLevel::kWarn, "session_refused", w.session, {{"tenant", w.tenant}, {"reason", why}},
              "session %llu refused: %s", static_cast<unsigned long long>(w.session), why.c_str());
    counters_.admissions_refused++;
    LinkMessage refused(LinkKind::kRefused);
    refused.text = why;
    return send_to(w.session, refused);
  }
  if (admission->slice) return started(w, *admission->slice, "admitted");
  w.queued = true;
  log_event(LogLevel::kInfo, "session_queued", w.session, {{"tenant", w.tenant}, {"position", admission->position}},
            "session %llu (tenant %s) queued at place %zu: no GPU has room now",
            static_cast<unsigned long long>(w.session), w.tenant.c_str(), admission->position);
  send_queue_status(w);
  arm(admission->wake);
}

void PoolService::started(Worker& w, const pool::Slice& slice, const char* how) {
  w.admitted = true;
  w.queued = false;
  counters_.sessions_started++;
  if (slice.sliced())
    log_slice("slice_placed", w.session, w.tenant, how, slice);
  else
    log_event(LogLevel::kInfo, "slice_placed", w.session, {{"tenant", w.tenant}, {"gpu", "all"}},
              "session %llu (tenant %s) %s: whole GPUs", static_cast<unsigned long long>(w.session), w.tenant.c_str(),
              how);
  send_to(w.session, slice_message(LinkKind::kAdmitted, slice));
}

void PoolService::send_queue_status(Worker& w) {
  std::optional<pool::QueueStatus> st = pool_->queue_status(w.session, now());
  if (!st) return;  // no longer queued: its Admitted or Refused is on its way
  LinkMessage m(LinkKind::kQueued);
  m.position = static_cast<uint32_t>(st->position);
  m.text = st->waiting_for;
  m.value = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(st->waited).count());
  if (st->timeout) m.timeout_ms = std::chrono::duration_cast<std::chrono::milliseconds>(*st->timeout).count();
  m.ok = st->warm;
  if (st->position == 1) told_head_ = {w.session, st->warm};
  send_to(w.session, m);
}

void PoolService::tell_queue_head() {
  const std::optional<pool::Pool::QueueHead> head = pool_->queue_head();
  if (!head || (head->session == told_head_.session && (told_head_.warm || !head->warm))) return;
  if (auto it = workers_.find(head->session); it != workers_.end()) send_queue_status(*it->second);
}

void PoolService::control(Worker& w, const LinkMessage& m) {
  pool::AdminCaller caller;
  caller.admin = m.admin;
  if (m.tenant < pool_->config().tenants.size()) caller.tenant = pool_->config().tenants[m.tenant].name;
  pool::AdminRequest request{m.verb, m.args, m.json};
  pool::AdminReply reply = pool::handle_admin(*pool_, caller, request, now());
  if (!reply.actions.reslice.empty() || (reply.ok && request.verb == "set"))
    log_event(LogLevel::kInfo, "pool_set", 0,
              {{"by", caller.admin ? std::string("admin") : caller.tenant}, {"request", request_text(request)},
               {"ok", reply.ok ? "true" : "false"}},
              "pool set by %s: %s", caller.admin ? "the admin" : caller.tenant.c_str(), reply.text.c_str());
  if (reply.tenants_changed) {
    log_event(LogLevel::kInfo, "tenants_changed", 0, {{"summary", reply.text}}, "%s", reply.text.c_str());
    if (tenants_changed_) tenants_changed_(pool_->config());
    forget_removed_tenants(nullptr);
  }
  apply(reply.actions);
  LinkMessage answer(LinkKind::kControlReply);
  answer.ok = reply.ok;
  answer.text = std::move(reply.text);
  if (answer.text.size() > kMaxLinkMessage - 1024) {
    answer.text.resize(kMaxLinkMessage - 1024);
    answer.text += "\n... (cut: the view exceeds the control channel's limit)\n";
  }
  send_to(w.session, answer);
}

void PoolService::set_gpu_health(std::vector<bool> healthy) {
  boost::asio::post(io_, [this, healthy = std::move(healthy)] {
    std::vector<std::string> changes;
    pool::Actions actions = pool_->set_gpu_health(healthy, now(), &changes);
    for (const std::string& line : changes)
      log_event(line.find("unhealthy") != std::string::npos ? LogLevel::kWarn : LogLevel::kInfo, "gpu_health", 0, {},
                "%s", line.c_str());
    apply(actions);
  });
}

void PoolService::reload(pool::DaemonConfig next) {
  boost::asio::post(io_, [this, next = std::move(next)] {
    std::vector<std::string> log;
    pool::Actions actions = pool_->reload(next, now(), &log);
    for (const std::string& line : log) RGPU_LOG_INFO("reload of %s: %s", next.source.c_str(), line.c_str());
    if (log.empty()) RGPU_LOG_INFO("reload of %s: nothing changed", next.source.c_str());
    if (tenants_changed_) tenants_changed_(pool_->config());
    forget_removed_tenants(nullptr);
    apply(actions);
  });
}

void PoolService::apply(const pool::Actions& actions) {
  for (const auto& [s, slice] : actions.admitted)
    if (auto it = workers_.find(s); it != workers_.end()) started(*it->second, slice, "admitted from the queue");
  for (const auto& [s, why] : actions.refused) {
    log_event(LogLevel::kWarn, "queue_refused", s, {{"reason", why}}, "session %llu left the admission queue: %s",
              static_cast<unsigned long long>(s), why.c_str());
    counters_.admissions_refused++;
    if (auto it = workers_.find(s); it != workers_.end()) it->second->queued = false;
    LinkMessage refused(LinkKind::kRefused);
    refused.text = why;
    send_to(s, refused);
  }
  for (uint64_t s : actions.grant) send_to(s, LinkMessage(LinkKind::kGrant));
  for (uint64_t s : actions.revoke) send_to(s, LinkMessage(LinkKind::kRevoke));
  for (const pool::ComputeArbiter::Hint& h : actions.hints) {
    LinkMessage hint(LinkKind::kHint);
    hint.ok = h.hurry;
    hint.value = (h.bounded ? kHintBounded : 0) | (h.peer ? kHintPeer : 0);
    send_to(h.session, hint);
  }
  for (const auto& [s, on] : actions.sovereign) {
    LinkMessage sovereign(LinkKind::kSovereign);
    sovereign.ok = on;
    send_to(s, sovereign);
  }
  for (const auto& [s, slice] : actions.reslice) {
    auto it = workers_.find(s);
    log_slice("slice_changed", s, it == workers_.end() ? std::string() : it->second->tenant, "resliced", slice);
    send_to(s, slice_message(LinkKind::kReslice, slice));
  }
  for (uint64_t s : actions.swap_out) send_to(s, LinkMessage(LinkKind::kSwapOut));
  arm(actions.wake);
  tell_queue_head();
}

void PoolService::send_to(uint64_t session, const LinkMessage& m) {
  auto it = workers_.find(session);
  if (it == workers_.end()) return;  // gone: its end() already ran
  Status st = it->second->link.send(m);
  if (!st.is_ok() && st.code() != Code::kClosed)
    RGPU_LOG_WARN("session %llu: cannot send %s: %s", static_cast<unsigned long long>(session), link_kind_name(m.kind),
                  st.message().c_str());
}

void PoolService::arm(std::optional<pool::TimePoint> wake) {
  if (!wake || (armed_ && *armed_ <= *wake)) return;
  armed_ = wake;
  timer_.expires_at(*wake);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec == boost::asio::error::operation_aborted) return;
    armed_.reset();
    apply(pool_->tick(now()));
  });
}

}  // namespace rgpu::server
