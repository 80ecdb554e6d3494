// Memory over-commit (see pool.h, Pool::want): which session may run on an over-promised GPU, and
// which idle ones are swapped out to make room.
#include <algorithm>
#include <cmath>
#include <vector>

#include "server/pool/pool.h"
#include "server/pool/pool_entry.h"

namespace rgpu::pool {

uint64_t Pool::capacity(size_t gpu) const {
  return static_cast<uint64_t>(std::floor(static_cast<double>(gpus_[gpu].total_bytes) * config_.policy.memory_overcommit));
}

uint64_t Pool::footprint(const SessionEntry& e, bool projected) const {
  using R = SessionEntry::Residence;
  if (e.residence == R::kSwapped) return e.used;  // what could not move
  if (e.residence == R::kSwappingOut) return projected ? e.used - std::min(e.used, e.movable) : e.used;
  const bool active = !arbiters_[static_cast<size_t>(e.slice.gpu)]->idle_since(e.request.session_id) && !e.waiting_room;
  return active ? e.reserved() : e.used;
}

bool Pool::has_room(const SessionEntry& e, bool projected) const {
  uint64_t sum = e.reserved();
  for (const auto& [id, o] : sessions_)
    if (o.get() != &e && o->slice.gpu == e.slice.gpu) sum += footprint(*o, projected);
  return sum <= gpus_[static_cast<size_t>(e.slice.gpu)].total_bytes;
}

void Pool::seat_waiting(int gpu, TimePoint now, Actions* into) {
  if (!overcommitted()) return;
  using R = SessionEntry::Residence;
  std::vector<SessionEntry*> waiting;
  for (auto& [id, e] : sessions_)
    if (e->slice.gpu == gpu && e->waiting_room) waiting.push_back(e.get());
  std::sort(waiting.begin(), waiting.end(), [](auto* a, auto* b) { return *a->waiting_room < *b->waiting_room; });
  ComputeArbiter& arbiter = *arbiters_[static_cast<size_t>(gpu)];
  SessionEntry* unseated = nullptr;  // the oldest want that does not fit
  for (SessionEntry* e : waiting) {
    // Every want that fits runs, in order (one that holds its memory already always fits beside a
    // waiting one, so the two never wait for each other).
    if (e->residence != R::kSwappingOut && has_room(*e)) {
      // Its memory comes back with its grant (the worker swaps in before the first call).
      if (e->residence == R::kSwapped) e->residence = R::kResident, e->host = 0, ++swaps_in_;
      e->waiting_room.reset();
      arbiter.want(e->request.session_id, now);
    } else if (!unseated) {
      unseated = e;
    }
  }
  if (!unseated) return;
  // Room is made for the oldest want that does not fit: the longest-idle sessions go first.
  std::optional<TimePoint> next;
  for (SessionEntry* victim : swap_candidates(gpu, now, unseated, &next)) {
    if (has_room(*unseated, true)) break;
    victim->residence = R::kSwappingOut;
    into->swap_out.push_back(victim->request.session_id);
  }
  if (!has_room(*unseated, true) && next && (!into->wake || *next < *into->wake)) into->wake = next;
}

std::vector<Pool::SessionEntry*> Pool::swap_candidates(int gpu, TimePoint now, const SessionEntry* except,
                                                       std::optional<TimePoint>* next) const {
  const Duration swap_after = std::chrono::milliseconds(config_.policy.swap_idle_ms);
  const ComputeArbiter& arbiter = *arbiters_[static_cast<size_t>(gpu)];
  std::vector<std::pair<TimePoint, SessionEntry*>> idle;
  for (const auto& [id, e] : sessions_) {
    if (e.get() == except || e->slice.gpu != gpu || e->residence != SessionEntry::Residence::kResident ||
        e->waiting_room || e->movable == 0)
      continue;
    const std::optional<TimePoint> since = arbiter.idle_since(id);
    if (!since) continue;
    if (now - *since >= swap_after) idle.emplace_back(*since, e.get());
    else if (!*next || *since + swap_after < **next) *next = *since + swap_after;
  }
  std::sort(idle.begin(), idle.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<SessionEntry*> out;
  for (const auto& [since, e] : idle) out.push_back(e);
  return out;
}

void Pool::swap_idle(int gpu, TimePoint now, Actions* into) {
  if (!overcommitted()) return;
  uint64_t promised = 0;
  for (const auto& [id, e] : sessions_)
    if (e->slice.gpu == gpu) promised += e->slice.memory_bytes;
  if (promised <= gpus_[static_cast<size_t>(gpu)].total_bytes) return;
  for (SessionEntry* e : swap_candidates(gpu, now, nullptr, &into->wake)) {
    e->residence = SessionEntry::Residence::kSwappingOut;
    into->swap_out.push_back(e->request.session_id);
  }
}

Actions Pool::swapped(uint64_t session, bool ok, uint64_t bytes, TimePoint now) {
  Actions actions;
  auto it = sessions_.find(session);
  if (it == sessions_.end() || !it->second->slice.sliced()) return actions;
  SessionEntry& e = *it->second;
  if (e.residence != SessionEntry::Residence::kSwappingOut) return actions;  // late or unasked: ignored
  e.residence = ok ? SessionEntry::Residence::kSwapped : SessionEntry::Residence::kResident;
  e.host = ok ? bytes : 0;
  if (ok) e.movable = 0, ++swaps_out_;
  seat_waiting(e.slice.gpu, now, &actions);
  merge(&actions, poll(e.slice.gpu, now));
  return actions;
}

}  // namespace rgpu::pool
