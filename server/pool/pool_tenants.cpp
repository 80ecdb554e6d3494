// Tenants added and removed while rgpud runs (pool.h: add_tenant, remove_tenant): the control
// API's `tenant` request, which the Kubernetes device plugin uses for each container.
#include <algorithm>

#include "server/pool/pool.h"
#include "server/pool/pool_entry.h"

namespace rgpu::pool {

std::optional<size_t> Pool::find_tenant(std::string_view name) const {
  for (size_t i = 0; i < config_.tenants.size(); ++i)
    if (!tenant_removed(i) && config_.tenants[i].name == name) return i;
  return std::nullopt;
}

Status Pool::add_tenant(TenantSpec spec) {
  RGPU_TRY(check_tenant_name(spec.name));
  if (find_tenant(spec.name))
    return Status(Code::kInvalidArgument, "tenant '" + spec.name + "' exists already (remove it first, or pick another name)");
  std::vector<std::string> tokens = spec.aliases;
  tokens.push_back(spec.token);
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].empty()) return Status(Code::kInvalidArgument, "tenant '" + spec.name + "' needs non-empty tokens");
    if (std::count(tokens.begin(), tokens.end(), tokens[i]) > 1 || tokens[i] == config_.admin_token)
      return Status(Code::kInvalidArgument, "tenant '" + spec.name + "': each token must be its own (one is given twice, "
                                                                      "or is the admin token)");
    for (size_t t = 0; t < config_.tenants.size(); ++t) {
      const TenantSpec& other = config_.tenants[t];
      if (tenant_removed(t)) continue;
      if (other.token == tokens[i] || std::count(other.aliases.begin(), other.aliases.end(), tokens[i]))
        return Status(Code::kInvalidArgument, "tenant '" + spec.name + "': a token is tenant '" + other.name +
                                                  "''s already; the token says which tenant a client is, so mint a new one");
    }
  }
  if (spec.compute > 100 || spec.compute_limit > 100 || spec.compute_limit < spec.compute || spec.compute_limit == 0)
    return Status(Code::kInvalidArgument, "tenant '" + spec.name + "': compute must be 0..100 and compute_limit " +
                                              "compute..100 (1 at least)");
  if (spec.memory_bytes % (1ull << 20) != 0 || spec.memory_host_bytes % (1ull << 20) != 0)
    return Status(Code::kInvalidArgument, "tenant '" + spec.name + "': memory is counted in whole MiB");
  config_.tenants.push_back(std::move(spec));
  removed_.resize(config_.tenants.size(), false);
  return Status::ok();
}

Result<Actions> Pool::remove_tenant(std::string_view name, TimePoint now) {
  const std::optional<size_t> index = find_tenant(name);
  if (!index) return Status(Code::kInvalidArgument, "no tenant '" + std::string(name) + "' (`rgpu pool tenant list` lists them)");
  removed_.resize(config_.tenants.size(), false);
  removed_[*index] = true;
  TenantSpec& t = config_.tenants[*index];
  t.token.clear();  // what a removed tenant's sessions still show is its name and slices, no secret
  t.aliases.clear();
  Actions actions;
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (it->request.tenant != *index) {
      ++it;
      continue;
    }
    actions.refused.emplace_back(it->request.session_id, "tenant " + t.name + " was removed while this session waited "
                                                         "in the admission queue");
    it = queue_.erase(it);
  }
  // Sessions that waited behind the removed ones may fit now.
  drain_queue(now, &actions);
  return actions;
}

Actions Pool::reload(const DaemonConfig& next, TimePoint now, std::vector<std::string>* log) {
  Actions actions;
  auto note = [&](std::string line) { log->push_back(std::move(line)); };
  // File tenants that are gone first: their names and tokens may be reused by the new file.
  for (size_t i = 0; i < config_.tenants.size(); ++i) {
    const TenantSpec& t = config_.tenants[i];
    if (tenant_removed(i) || t.added_live) continue;
    const bool kept = std::any_of(next.tenants.begin(), next.tenants.end(), [&](const TenantSpec& n) { return n.name == t.name; });
    if (kept) continue;
    const std::string name = t.name;
    if (auto r = remove_tenant(name, now); r.is_ok()) {
      merge(&actions, std::move(*r));
      note("tenant removed: " + name + " (no longer in the file)");
    }
  }
  config_.admin_token = next.admin_token;
  for (const TenantSpec& n : next.tenants) {
    const std::optional<size_t> index = find_tenant(n.name);
    if (!index) {
      Status st = add_tenant(n);
      note(st.is_ok() ? "tenant added: " + n.name : "tenant " + n.name + " not added: " + st.message());
      continue;
    }
    TenantSpec& old = config_.tenants[*index];
    if (old.added_live) {
      note("tenant " + n.name + " of the file not applied: a tenant of that name was added through the control API");
      continue;
    }
    if (old.memory_bytes != n.memory_bytes || old.compute != n.compute || old.compute_limit != n.compute_limit) {
      SliceChange change;
      change.memory_bytes = n.memory_bytes;
      change.compute = n.compute;
      change.compute_limit = n.compute_limit;
      std::string summary;
      auto r = set(n.name, change, now, &summary);
      if (!r.is_ok()) {
        note("tenant " + n.name + " keeps its old spec: " + r.status().message());
        continue;
      }
      merge(&actions, std::move(*r));
      note(summary);
    }
    TenantSpec& now_spec = config_.tenants[*index];  // set() may have replaced it
    if (now_spec.token != n.token || now_spec.priority != n.priority || now_spec.memory_host_bytes != n.memory_host_bytes ||
        now_spec.queue_timeout_s != n.queue_timeout_s) {
      now_spec.token = n.token;
      now_spec.priority = n.priority;
      now_spec.memory_host_bytes = n.memory_host_bytes;
      now_spec.queue_timeout_s = n.queue_timeout_s;
      note("tenant " + n.name + ": token, priority, memory_host or queue_timeout changed (for its later sessions)");
    }
  }
  PoolPolicy& p = config_.policy;
  const PoolPolicy& q = next.policy;
  if (p.placement != q.placement || p.memory_overcommit != q.memory_overcommit || p.swap_idle_ms != q.swap_idle_ms) {
    p.placement = q.placement;
    p.memory_overcommit = q.memory_overcommit;
    p.swap_idle_ms = q.swap_idle_ms;
    note("policy: placement, memory_overcommit and swap_idle_ms as the file says now");
  }
  if (p.quantum_ms != q.quantum_ms || p.idle_release_ms != q.idle_release_ms || p.min_share_percent != q.min_share_percent ||
      p.mps != q.mps)
    note("policy: quantum_ms, idle_release_ms, min_share_percent and mps take effect when rgpud restarts");
  if (next.listen != config_.listen) note("listen: takes effect when rgpud restarts");
  drain_queue(now, &actions);  // a new or grown tenant's queued sessions, a larger over-commit
  return actions;
}

Actions Pool::set_gpu_health(const std::vector<bool>& healthy, TimePoint now, std::vector<std::string>* changes) {
  unhealthy_.resize(gpus_.size(), false);
  bool recovered = false;
  for (size_t g = 0; g < gpus_.size() && g < healthy.size(); ++g) {
    if (unhealthy_[g] == !healthy[g]) continue;
    unhealthy_[g] = !healthy[g];
    recovered = recovered || healthy[g];
    changes->push_back("GPU " + std::to_string(g) + " (" + gpus_[g].name + ") is " +
                       (healthy[g] ? "healthy again: it takes new sessions"
                                   : "unhealthy (rgpud's probe cannot reach it): it takes no new session"));
  }
  Actions actions;
  if (recovered) drain_queue(now, &actions);
  return actions;
}

}  // namespace rgpu::pool
