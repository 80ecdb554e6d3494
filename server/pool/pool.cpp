// The pool's books (see pool.h and README.md for the policy): admission and placement, release,
// live changes of a slice, and the view. The time sharing itself is the ComputeArbiter's.
#include "server/pool/pool.h"

#include <algorithm>
#include <charconv>

#include "common/memory_size.h"
#include "server/pool/pool_entry.h"

namespace rgpu::pool {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

uint64_t round_up_mib(uint64_t bytes) {
  const uint64_t rest = bytes % kMiB;
  return rest == 0 ? bytes : bytes + (kMiB - rest);
}

std::string mib_number(uint64_t bytes) { return std::to_string(bytes / kMiB); }
std::string limit_text(uint64_t bytes) { return bytes == 0 ? "no limit" : format_mib(bytes); }

Status refuse(Code code, std::string message) { return Status(code, std::move(message)); }

// A session's slice from its tenant's spec and what the client asked (0: all the tenant allows).
// `strict` (admission): a request above the tenant's slice is refused; otherwise (a live change of
// the tenant) it is lowered to the tenant's new slice.
Result<Slice> derive_slice(const TenantSpec& t, uint64_t asked_memory, uint32_t asked_compute, bool strict) {
  Slice s;
  s.priority = t.priority;
  s.memory_host_bytes = t.memory_host_bytes;
  if (asked_compute > 100)
    return refuse(Code::kInvalidArgument, "RGPU_COMPUTE asked " + std::to_string(asked_compute) +
                                              "%; it must be 1..100 (percent of one GPU), or 0 for all tenant '" +
                                              t.name + "' allows");
  asked_memory = round_up_mib(asked_memory);
  if (asked_memory == 0) {
    s.memory_bytes = t.memory_bytes;
  } else if (t.memory_bytes != 0 && asked_memory > t.memory_bytes) {
    if (strict)
      return refuse(Code::kInvalidArgument, "tenant " + t.name + " allows at most " + format_mib(t.memory_bytes) +
                                                "; RGPU_MEMORY asked " + format_mib(asked_memory) +
                                                " (ask for less, or have the admin raise the tenant's memory)");
    s.memory_bytes = t.memory_bytes;
  } else {
    s.memory_bytes = asked_memory;
  }
  if (asked_compute == 0) {
    s.compute = t.compute;
    s.compute_limit = t.compute_limit;
  } else if (t.whole_gpu()) {
    // A whole-GPU tenant allows everything: the client's figure is its guarantee and its cap.
    s.compute = asked_compute;
    s.compute_limit = asked_compute;
  } else if (asked_compute > t.compute_limit) {
    if (strict)
      return refuse(Code::kInvalidArgument, "tenant " + t.name + " allows at most " +
                                                std::to_string(t.compute_limit) + "% compute; RGPU_COMPUTE asked " +
                                                std::to_string(asked_compute) + "% (ask for less, or have the admin raise the tenant's compute_limit)");
    s.compute = t.compute;
    s.compute_limit = t.compute_limit;
  } else {
    s.compute = std::min(t.compute, asked_compute);
    s.compute_limit = std::min(t.compute_limit, asked_compute);
  }
  return s;
}

// "memory 4096 -> 8192 MiB, compute 30 -> 40%": the fields that differ, in that order.
std::string slice_diff(uint64_t old_memory, uint64_t new_memory, uint32_t old_compute, uint32_t new_compute,
                       uint32_t old_limit, uint32_t new_limit) {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (old_memory != new_memory)
    add("memory " + (old_memory && new_memory ? mib_number(old_memory) : limit_text(old_memory)) + " -> " +
        limit_text(new_memory));
  if (old_compute != new_compute)
    add("compute " + std::to_string(old_compute) + " -> " + std::to_string(new_compute) + "%");
  if (old_limit != new_limit)
    add("compute_limit " + std::to_string(old_limit) + " -> " + std::to_string(new_limit) + "%");
  return out;
}

bool is_session_id(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}


}  // namespace


Pool::Pool(std::vector<GpuInfo> gpus, DaemonConfig config) : gpus_(std::move(gpus)), config_(std::move(config)) {
  ComputeArbiter::Params params;
  params.quantum = std::chrono::milliseconds(config_.policy.quantum_ms);
  params.min_share = config_.policy.min_share_percent / 100.0;
  params.overlap_preemption = config_.policy.mps;
  for (size_t i = 0; i < gpus_.size(); ++i) arbiters_.push_back(std::make_unique<ComputeArbiter>(params));
}

Pool::~Pool() = default;

std::vector<Pool::GpuLoad> Pool::loads() const {
  std::vector<GpuLoad> out(gpus_.size());
  for (const auto& [id, e] : sessions_) {
    if (!e->slice.sliced()) continue;
    GpuLoad& l = out[static_cast<size_t>(e->slice.gpu)];
    l.reserved += e->reserved();
    l.used += e->used;
    l.compute += e->slice.compute;
    ++l.sessions;
  }
  return out;
}

Actions Pool::poll(int gpu, TimePoint now) {
  Actions a;
  ComputeArbiter::Decision d = arbiters_[static_cast<size_t>(gpu)]->poll(now);
  a.grant = std::move(d.grant);
  a.revoke = std::move(d.revoke);
  a.hints = std::move(d.hints);
  a.sovereign = std::move(d.sovereign);
  a.wake = d.wake;
  return a;
}

int Pool::place(const Slice& slice, const std::vector<GpuLoad>& load) const {
  int best = -1;
  uint64_t best_mem = 0;
  uint32_t best_compute = 0;
  for (size_t g = 0; g < gpus_.size(); ++g) {
    if (g < unhealthy_.size() && unhealthy_[g]) continue;
    const uint64_t free_mem = load[g].free_memory(capacity(g));
    const uint32_t free_compute = load[g].free_compute();
    // A session without a memory slice reserves none, but still needs some memory free.
    const bool fits = (slice.memory_bytes == 0 ? free_mem > 0 : slice.memory_bytes <= free_mem) &&
                      slice.compute <= free_compute;
    if (!fits) continue;
    bool better = best < 0;
    if (!better) {
      if (config_.policy.placement == Placement::kPack)
        better = free_mem < best_mem || (free_mem == best_mem && free_compute < best_compute);
      else
        better = free_mem > best_mem || (free_mem == best_mem && free_compute > best_compute);
    }
    if (better) best = static_cast<int>(g), best_mem = free_mem, best_compute = free_compute;
  }
  return best;
}

std::string Pool::free_text(const std::vector<GpuLoad>& load) const {
  if (gpus_.empty()) return "no GPUs";
  std::string out;
  for (size_t g = 0; g < gpus_.size(); ++g)
    out += std::string(g ? ", " : "") + "GPU " + std::to_string(g) + " " +
           format_mib(load[g].free_memory(capacity(g))) + " " + std::to_string(load[g].free_compute()) + "%";
  return out;
}

std::string Pool::asks_text(const Slice& slice) const {
  return (slice.memory_bytes ? format_mib(slice.memory_bytes) : std::string("no memory reservation")) + " and " +
         std::to_string(slice.compute) + "% compute";
}

void Pool::start(const SessionRequest& request, const Slice& slice, TimePoint now) {
  auto entry = std::make_unique<SessionEntry>();
  entry->request = request;
  entry->slice = slice;
  entry->started = now;
  sessions_.emplace(request.session_id, std::move(entry));
  if (slice.sliced()) {
    ComputeArbiter& arbiter = *arbiters_[static_cast<size_t>(slice.gpu)];
    arbiter.add(request.session_id, slice.compute, slice.compute_limit, now);
    arbiter.set_priority(request.session_id, slice.priority, now);
  }
}

Result<Admission> Pool::admit(const SessionRequest& request, TimePoint now) {
  if (request.tenant >= config_.tenants.size())
    return refuse(Code::kInternal, "session " + std::to_string(request.session_id) + ": no tenant #" +
                                       std::to_string(request.tenant));
  const bool queued_already = std::any_of(queue_.begin(), queue_.end(), [&](const Queued& q) {
    return q.request.session_id == request.session_id;
  });
  if (sessions_.count(request.session_id) || queued_already)
    return refuse(Code::kInternal, "session " + std::to_string(request.session_id) + " is already admitted");
  if (tenant_removed(request.tenant))
    return refuse(Code::kUnavailable, "tenant " + config_.tenants[request.tenant].name +
                                          " was removed from this rgpud (ask its admin for a token of a tenant it has)");
  const TenantSpec& t = config_.tenants[request.tenant];
  RGPU_ASSIGN_OR_RETURN(Slice slice, derive_slice(t, request.memory_bytes, request.compute, true));

  const bool sliced = !t.whole_gpu() || request.memory_bytes != 0 || request.compute != 0;
  if (!sliced) {
    slice = Slice{};
    slice.priority = t.priority;
    start(request, slice, now);
    return Admission{slice, 0, std::nullopt};
  }

  if (gpus_.empty())
    return refuse(Code::kUnavailable, "this rgpud has no GPUs: no session of tenant " + t.name + " can start here");
  // Waiting makes sense only for what an empty GPU could hold.
  const bool ever = std::any_of(gpus_.begin(), gpus_.end(), [&](const GpuInfo& g) {
    return slice.memory_bytes == 0 ? g.total_bytes > 0 : slice.memory_bytes <= g.total_bytes;
  });
  if (!ever)
    return refuse(Code::kUnavailable, "no GPU of this pool can ever take a session of tenant " + t.name + ": it asks " +
                                          asks_text(slice) + "; the GPUs have " + free_text(std::vector<GpuLoad>(gpus_.size())) +
                                          " when empty (ask for less with RGPU_MEMORY, or have the admin lower the tenant's memory)");
  const std::vector<GpuLoad> load = loads();
  // Its place: behind every queued session of its priority or higher.
  auto pos = std::find_if(queue_.begin(), queue_.end(), [&](const Queued& q) { return q.slice.priority < slice.priority; });
  if (pos == queue_.begin()) {
    const int gpu = place(slice, load);
    if (gpu >= 0) {
      slice.gpu = gpu;
      slice.movable = overcommitted();
      start(request, slice, now);
      return Admission{slice, 0, std::nullopt};
    }
  }

  std::optional<Duration> timeout;
  if (t.queue_timeout_s) timeout = std::chrono::seconds(*t.queue_timeout_s);
  if (request.queue_timeout && (!timeout || *request.queue_timeout < *timeout)) timeout = request.queue_timeout;
  if (timeout && timeout->count() <= 0)
    return refuse(Code::kUnavailable, "no GPU can take a session of tenant " + t.name + ": it asks " + asks_text(slice) +
                                          "; free: " + free_text(load) +
                                          (queue_.empty() ? std::string()
                                                          : "; " + std::to_string(queue_.size()) + " session(s) waiting") +
                                          " (it may not wait: RGPU_QUEUE_TIMEOUT or the tenant's queue_timeout is 0; "
                                          "wait for sessions to end, or ask for less with RGPU_MEMORY / RGPU_COMPUTE)");
  Queued q;
  q.request = request;
  q.slice = slice;
  q.since = now;
  if (timeout) q.deadline = now + *timeout;
  const size_t position = static_cast<size_t>(pos - queue_.begin()) + 1;
  queue_.insert(pos, std::move(q));
  return Admission{std::nullopt, position, next_deadline()};
}

void Pool::drain_queue(TimePoint now, Actions* into) {
  // Given-up sessions leave first: one at the head may be what blocks the others.
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (it->deadline && now >= *it->deadline) {
      const TenantSpec& t = config_.tenants[it->request.tenant];
      const auto waited = std::chrono::duration_cast<std::chrono::seconds>(now - it->since).count();
      into->refused.emplace_back(it->request.session_id,
                                 "waited " + std::to_string(waited) + " s in the admission queue for " + asks_text(it->slice) +
                                     " (tenant " + t.name + ") and gave up (RGPU_QUEUE_TIMEOUT or the tenant's queue_timeout); free: " +
                                     free_text(loads()) + " (try later, or ask for less with RGPU_MEMORY / RGPU_COMPUTE)");
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
  while (!queue_.empty()) {
    const int gpu = place(queue_.front().slice, loads());
    if (gpu < 0) break;
    Queued q = std::move(queue_.front());
    queue_.erase(queue_.begin());
    q.slice.gpu = gpu;
    q.slice.movable = overcommitted();
    start(q.request, q.slice, now);
    into->admitted.emplace_back(q.request.session_id, q.slice);
  }
  if (auto d = next_deadline(); d && (!into->wake || *d < *into->wake)) into->wake = d;
}

std::optional<TimePoint> Pool::next_deadline() const {
  std::optional<TimePoint> out;
  for (const Queued& q : queue_)
    if (q.deadline && (!out || *q.deadline < *out)) out = q.deadline;
  return out;
}

QueueStatus Pool::status_at(size_t index, TimePoint now, const std::string& free) const {
  const Queued& q = queue_[index];
  QueueStatus st;
  st.position = index + 1;
  st.waiting_for = asks_text(q.slice) + " on one GPU (free: " + free + ")";
  if (index > 0) st.waiting_for += ", behind " + std::to_string(index) + " session" + (index == 1 ? "" : "s");
  st.waited = now - q.since;
  if (q.deadline) st.timeout = *q.deadline - q.since;
  st.warm = index == 0 && warm_room(loads());
  return st;
}

bool Pool::warm_room(const std::vector<GpuLoad>& load) const {
  if (gpus_.size() != 1 || (!unhealthy_.empty() && unhealthy_[0])) return false;
  return gpus_[0].total_bytes >= load[0].reserved + kWarmContextRoom;
}

std::optional<Pool::QueueHead> Pool::queue_head() const {
  if (queue_.empty()) return std::nullopt;
  return QueueHead{queue_.front().request.session_id, warm_room(loads())};
}

std::optional<QueueStatus> Pool::queue_status(uint64_t session, TimePoint now) const {
  for (size_t i = 0; i < queue_.size(); ++i)
    if (queue_[i].request.session_id == session) return status_at(i, now, free_text(loads()));
  return std::nullopt;
}

Actions Pool::end(uint64_t session, TimePoint now) {
  Actions actions;
  auto it = sessions_.find(session);
  if (it == sessions_.end()) {
    auto q = std::find_if(queue_.begin(), queue_.end(), [&](const Queued& e) { return e.request.session_id == session; });
    if (q == queue_.end()) return actions;
    queue_.erase(q);  // the ones behind it may fit now
    drain_queue(now, &actions);
    return actions;
  }
  const int gpu = it->second->slice.gpu;
  sessions_.erase(it);
  if (gpu < 0) return actions;
  arbiters_[static_cast<size_t>(gpu)]->remove(session, now);
  seat_waiting(gpu, now, &actions);
  merge(&actions, poll(gpu, now));
  drain_queue(now, &actions);
  return actions;
}

Actions Pool::note_memory(uint64_t session, uint64_t used_bytes, TimePoint now, uint64_t movable_bytes,
                          uint64_t host_bytes) {
  Actions actions;
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return actions;
  SessionEntry& e = *it->second;
  const bool freed = used_bytes < e.used;
  e.used = used_bytes;
  e.movable = movable_bytes;
  e.extension = host_bytes;
  if (freed && e.slice.sliced()) {
    seat_waiting(e.slice.gpu, now, &actions);
    merge(&actions, poll(e.slice.gpu, now));
  }
  if (freed && !queue_.empty()) drain_queue(now, &actions);
  return actions;
}

Actions Pool::want(uint64_t session, TimePoint now) {
  auto it = sessions_.find(session);
  if (it == sessions_.end() || !it->second->slice.sliced()) return {};
  SessionEntry& e = *it->second;
  const int gpu = e.slice.gpu;
  if (!overcommitted()) {
    arbiters_[static_cast<size_t>(gpu)]->want(session, now);
    return poll(gpu, now);
  }
  Actions actions;
  if (!e.waiting_room) e.waiting_room = now;
  seat_waiting(gpu, now, &actions);
  merge(&actions, poll(gpu, now));
  return actions;
}

Actions Pool::released(uint64_t session, Duration held, TimePoint now) {
  auto it = sessions_.find(session);
  if (it == sessions_.end() || !it->second->slice.sliced()) return {};
  const int gpu = it->second->slice.gpu;
  arbiters_[static_cast<size_t>(gpu)]->released(session, held, now);
  Actions actions = poll(gpu, now);
  // Idle now: on an over-committed GPU it may be swapped out after swap_idle (the wake says when).
  swap_idle(gpu, now, &actions);
  seat_waiting(gpu, now, &actions);
  merge(&actions, poll(gpu, now));
  return actions;
}

Actions Pool::tick(TimePoint now) {
  Actions all;
  for (size_t g = 0; g < arbiters_.size(); ++g) {
    swap_idle(static_cast<int>(g), now, &all);
    seat_waiting(static_cast<int>(g), now, &all);
    merge(&all, poll(static_cast<int>(g), now));
  }
  drain_queue(now, &all);
  return all;
}

Result<Actions> Pool::set(std::string_view target, const SliceChange& change, TimePoint now, std::string* summary) {
  if (!change.memory_bytes && !change.compute && !change.compute_limit)
    return refuse(Code::kInvalidArgument, "nothing to change: give memory=SIZE, compute=PERCENT or compute_limit=PERCENT");
  if (change.compute && *change.compute > 100)
    return refuse(Code::kInvalidArgument, "compute must be 0..100 (percent of one GPU), not " + std::to_string(*change.compute));
  if (change.compute_limit && (*change.compute_limit < 1 || *change.compute_limit > 100))
    return refuse(Code::kInvalidArgument, "compute_limit must be 1..100 (percent of one GPU), not " +
                                              std::to_string(*change.compute_limit));
  // (A plain flag and value, not an optional: GCC 12 at -O2 warns maybe-uninitialized on a copy.)
  const bool has_memory = change.memory_bytes.has_value();
  const uint64_t memory = has_memory ? round_up_mib(change.memory_bytes.value()) : 0;

  // New compute and cap from old ones: an unspecified cap stays, raised to the guarantee if below.
  auto apply_compute = [&](uint32_t* compute, uint32_t* limit) -> Status {
    if (change.compute) *compute = *change.compute;
    if (change.compute_limit) *limit = *change.compute_limit;
    else if (*limit < *compute) *limit = *compute;
    if (*limit < *compute)
      return refuse(Code::kInvalidArgument, "compute_limit " + std::to_string(*limit) + "% would be below compute " +
                                                std::to_string(*compute) + "%: the cap must be at least the guarantee");
    return Status::ok();
  };

  std::vector<std::pair<SessionEntry*, Slice>> changes;  // sessions whose slice changes, and how
  std::string what;                                      // "tenant X" or "session N (tenant X)"
  std::string spec_diff;                                 // a tenant target's change of spec
  std::optional<size_t> tenant_index;
  TenantSpec new_spec;

  if (is_session_id(target)) {
    uint64_t id = 0;
    auto [p, ec] = std::from_chars(target.data(), target.data() + target.size(), id);
    auto it = ec == std::errc() && p == target.data() + target.size() ? sessions_.find(id) : sessions_.end();
    if (it == sessions_.end())
      return refuse(Code::kInvalidArgument, "no session " + std::string(target) + " (`rgpu pool` lists the sessions)");
    SessionEntry& e = *it->second;
    what = "session " + std::to_string(id) + " (tenant " + config_.tenants[e.request.tenant].name + ")";
    if (!e.slice.sliced())
      return refuse(Code::kInvalidArgument, what + " has whole GPUs and no slice, so it cannot be resliced while it runs; "
                                                   "set its tenant's slice for later sessions, or restart it with RGPU_MEMORY / RGPU_COMPUTE");
    Slice s = e.slice;
    if (has_memory) s.memory_bytes = memory;
    RGPU_TRY(apply_compute(&s.compute, &s.compute_limit));
    changes.emplace_back(&e, s);
  } else {
    tenant_index = find_tenant(target);
    if (!tenant_index) {
      std::string names;
      for (size_t i = 0; i < config_.tenants.size(); ++i)
        if (!tenant_removed(i)) names += (names.empty() ? "" : ", ") + config_.tenants[i].name;
      return refuse(Code::kInvalidArgument, "no tenant '" + std::string(target) + "' and it is not a session id (tenants: " +
                                                names + "; `rgpu pool` lists the sessions)");
    }
    const TenantSpec* t = &config_.tenants[*tenant_index];
    what = "tenant " + t->name;
    new_spec = *t;
    if (has_memory) new_spec.memory_bytes = memory;
    RGPU_TRY(apply_compute(&new_spec.compute, &new_spec.compute_limit));
    if (new_spec.memory_bytes != 0 && !gpus_.empty()) {
      uint64_t largest = 0;
      for (const auto& g : gpus_) largest = std::max(largest, g.total_bytes);
      if (new_spec.memory_bytes > largest)
        return refuse(Code::kUnavailable, what + ": memory " + format_mib(new_spec.memory_bytes) +
                                              " is more than any GPU has (the largest has " + format_mib(largest) + ")");
    }
    spec_diff = slice_diff(t->memory_bytes, new_spec.memory_bytes, t->compute, new_spec.compute, t->compute_limit,
                           new_spec.compute_limit);
    for (auto& [id, e] : sessions_) {
      if (e->request.tenant != *tenant_index || !e->slice.sliced()) continue;
      RGPU_ASSIGN_OR_RETURN(Slice s, derive_slice(new_spec, e->request.memory_bytes, e->request.compute, false));
      s.gpu = e->slice.gpu;
      changes.emplace_back(e.get(), s);
    }
  }

  // Memory below what a session holds: refused, or (when_free) applied as it frees.
  std::string held_note;
  for (const auto& [e, s] : changes) {
    const bool below = s.memory_bytes != 0 && s.memory_bytes < e->used && s.memory_bytes < e->slice.memory_bytes;
    if (!below) continue;
    const std::string id = std::to_string(e->request.session_id);
    if (!change.when_free)
      return refuse(Code::kInvalidArgument, "session " + id + " holds " + format_mib(e->used) + "; memory " +
                                                format_mib(s.memory_bytes) +
                                                " would be below it: have it free memory first, or add when_free=1 to "
                                                "apply the limit as it frees (what it holds stays reserved until then)");
    held_note += "; session " + id + " keeps " + format_mib(e->used) + " reserved until it frees it (when_free)";
  }

  // Capacity: on each GPU the change touches, the new reservations and guarantees must fit
  // (a GPU already over because of a when_free shrink may shrink further, never grow).
  const std::vector<GpuLoad> before = loads();
  std::vector<GpuLoad> after = before;
  for (const auto& [e, s] : changes) {
    GpuLoad& l = after[static_cast<size_t>(s.gpu)];
    l.reserved = l.reserved - e->reserved() + std::max(s.memory_bytes, e->used);
    l.compute = l.compute - e->slice.compute + s.compute;
  }
  for (size_t g = 0; g < gpus_.size(); ++g) {
    const uint64_t total = capacity(g);
    if (after[g].reserved > total && after[g].reserved > before[g].reserved)
      return refuse(Code::kUnavailable, what + ": GPU " + std::to_string(g) + " cannot hold it: its reservations would add up to " +
                                            format_mib(after[g].reserved) + " of " + format_mib(total) + " (" +
                                            format_mib(before[g].free_memory(total)) +
                                            " free now); ask for less, or end sessions on that GPU first");
    if (after[g].compute > 100 && after[g].compute > before[g].compute)
      return refuse(Code::kUnavailable, what + ": GPU " + std::to_string(g) + " cannot hold it: its compute guarantees would add up to " +
                                            std::to_string(after[g].compute) + "% (" +
                                            std::to_string(before[g].free_compute()) +
                                            "% free now); ask for less, or end sessions on that GPU first");
  }

  // Apply.
  Actions actions;
  std::vector<bool> touched(gpus_.size(), false);
  std::string session_diff;
  size_t resliced = 0;
  if (tenant_index) {
    config_.tenants[*tenant_index] = new_spec;
    // Its queued sessions wait for the new slice.
    for (Queued& q : queue_)
      if (q.request.tenant == *tenant_index)
        if (auto s = derive_slice(new_spec, q.request.memory_bytes, q.request.compute, false); s.is_ok()) q.slice = *s;
  }
  for (auto& [e, s] : changes) {
    const Slice old = e->slice;
    if (!tenant_index)
      session_diff = slice_diff(old.memory_bytes, s.memory_bytes, old.compute, s.compute, old.compute_limit, s.compute_limit);
    if (old.memory_bytes == s.memory_bytes && old.compute == s.compute && old.compute_limit == s.compute_limit) continue;
    e->slice = s;
    ++resliced;
    actions.reslice.emplace_back(e->request.session_id, s);
    if (old.compute != s.compute || old.compute_limit != s.compute_limit) {
      arbiters_[static_cast<size_t>(s.gpu)]->update(e->request.session_id, s.compute, s.compute_limit, now);
      touched[static_cast<size_t>(s.gpu)] = true;
    }
  }
  for (size_t g = 0; g < gpus_.size(); ++g)
    if (touched[g]) merge(&actions, poll(static_cast<int>(g), now));
  drain_queue(now, &actions);  // a shrink may make room for queued sessions

  if (summary) {
    const std::string& d = tenant_index ? spec_diff : session_diff;
    *summary = what + ": " + (d.empty() ? "no change" : d);
    if (tenant_index) {
      *summary += resliced == 0 ? "; no running session changed"
                                : "; " + std::to_string(resliced) + " running session" + (resliced == 1 ? "" : "s") + " resliced";
    }
    *summary += held_note;
  }
  return actions;
}

PoolView Pool::view(TimePoint now, const std::string* tenant) const {
  PoolView v;
  v.swaps_out = swaps_out_;
  v.swaps_in = swaps_in_;
  const std::vector<GpuLoad> load = loads();
  for (size_t g = 0; g < gpus_.size(); ++g) {
    GpuView gv;
    gv.index = static_cast<int>(g);
    gv.name = gpus_[g].name;
    gv.total_bytes = gpus_[g].total_bytes;
    gv.reserved_bytes = load[g].reserved;
    gv.used_bytes = load[g].used;
    gv.compute_reserved = load[g].compute;
    gv.busy = arbiters_[g]->busy(now);
    gv.sessions = load[g].sessions;
    gv.healthy = g >= unhealthy_.size() || !unhealthy_[g];
    v.gpus.push_back(std::move(gv));
  }
  for (const auto& [id, e] : sessions_) {
    const std::string& name = config_.tenants[e->request.tenant].name;
    if (tenant && *tenant != name) continue;
    SessionView sv;
    sv.id = id;
    sv.tenant = name;
    sv.host = e->request.host;
    sv.program = e->request.program;
    sv.pid = e->request.pid;
    sv.slice = e->slice;
    sv.memory_used = e->used;
    sv.memory_host = (e->residence == SessionEntry::Residence::kSwapped ? e->host : 0) + e->extension;
    sv.share = e->slice.sliced() ? arbiters_[static_cast<size_t>(e->slice.gpu)]->share(id, now) : 0.0;
    sv.age_s = std::chrono::duration<double>(now - e->started).count();
    v.sessions.push_back(std::move(sv));
  }
  const std::string free = free_text(load);
  for (size_t i = 0; i < queue_.size(); ++i) {
    const Queued& q = queue_[i];
    const std::string& name = config_.tenants[q.request.tenant].name;
    if (tenant && *tenant != name) continue;
    QueuedView qv;
    qv.id = q.request.session_id;
    qv.tenant = name;
    qv.host = q.request.host;
    qv.program = q.request.program;
    qv.pid = q.request.pid;
    qv.slice = q.slice;
    qv.status = status_at(i, now, free);
    v.queue.push_back(std::move(qv));
  }
  return v;
}

}  // namespace rgpu::pool
