// Fixtures of the pool's unit tests: a clock origin, a configuration of five tenants, GPUs, and
// session requests.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "server/pool/pool.h"

namespace rgpu::pool::testing {

inline constexpr uint64_t kMiB = 1ull << 20;
inline constexpr uint64_t kGiB = 1ull << 30;
inline const TimePoint t0{std::chrono::seconds(1000)};

inline TenantSpec tenant(std::string name, uint64_t memory, uint32_t compute, uint32_t limit, int priority = kPriorityNormal) {
  TenantSpec t;
  t.name = name;
  t.token = "tok-" + name;
  t.memory_bytes = memory;
  t.compute = compute;
  t.compute_limit = limit;
  t.priority = priority;
  return t;
}

// Tenants: 0 inference (4 GiB, 30% / cap 60%, high), 1 training (8 GiB, 50%), 2 whole (whole GPUs),
// 3 batch (compute only: 25%, no memory slice), 4 mem (memory only: 2 GiB, best effort).
inline DaemonConfig config(Placement placement = Placement::kPack) {
  DaemonConfig c;
  c.admin_token = "admin";
  c.policy.placement = placement;
  c.tenants = {tenant("inference", 4 * kGiB, 30, 60, kPriorityHigh), tenant("training", 8 * kGiB, 50, 50),
               tenant("whole", 0, 0, 100), tenant("batch", 0, 25, 25, kPriorityLow), tenant("mem", 2 * kGiB, 0, 100)};
  return c;
}

inline std::vector<GpuInfo> gpus(size_t n, uint64_t total = 16 * kGiB) {
  std::vector<GpuInfo> out;
  for (size_t i = 0; i < n; ++i) out.push_back(GpuInfo{"H200-" + std::to_string(i), total});
  return out;
}

inline SessionRequest request(uint64_t id, size_t tenant, uint64_t memory = 0, uint32_t compute = 0) {
  SessionRequest r;
  r.session_id = id;
  r.tenant = tenant;
  r.memory_bytes = memory;
  r.compute = compute;
  r.host = "node" + std::to_string(id);
  r.program = "prog" + std::to_string(id);
  r.pid = static_cast<uint32_t>(1000 + id);
  r.queue_timeout = Duration::zero();  // refused rather than queued (the queue's tests wait)
  return r;
}

inline Slice admit_ok(Pool& pool, const SessionRequest& r, TimePoint now = t0) {
  auto s = pool.admit(r, now);
  INFO(s.status().message());
  REQUIRE(s.is_ok());
  REQUIRE(s->slice);
  return *s->slice;
}

inline std::string admit_refused(Pool& pool, const SessionRequest& r) {
  auto s = pool.admit(r, t0);
  REQUIRE_FALSE(s.is_ok());
  return s.status().message();
}

// The session's row in `v` (which must outlive the pointer: keep the view in a variable).
inline const SessionView* find_session(const PoolView& v, uint64_t id) {
  for (const auto& s : v.sessions)
    if (s.id == id) return &s;
  return nullptr;
}

inline bool contains(const std::vector<uint64_t>& v, uint64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }


}  // namespace rgpu::pool::testing
