// The pool's books: the GPUs, the tenants, the sessions and what each holds. Admission and
// placement (a session's guaranteed memory and compute are reserved on one GPU when it starts; the
// guarantees on a GPU never add up to more than it has), the admission queue of sessions that do
// not fit yet, live changes of a slice, release, and the view `rgpu pool` shows. One
// ComputeArbiter per GPU does the time sharing.
//
// Pure and single-threaded, on an injected clock: rgpud's parent process (server/daemon/
// pool_service) owns the one Pool, feeds it what workers report and carries out the Actions it
// returns. Tests drive it directly (tests/unit/pool).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "server/pool/compute_arbiter.h"
#include "server/pool/pool_config.h"

namespace rgpu::pool {

struct GpuInfo {
  std::string name;
  uint64_t total_bytes = 0;
};

// What a new session asks for once its tenant is known (from the token it proved).
struct SessionRequest {
  uint64_t session_id = 0;
  size_t tenant = 0;             // index into config().tenants
  uint64_t memory_bytes = 0;     // RGPU_MEMORY; 0: all its tenant allows
  uint32_t compute = 0;          // RGPU_COMPUTE (percent); 0: all its tenant allows
  std::string host;
  std::string program;
  uint32_t pid = 0;
  // How long it may wait in the admission queue (RGPU_QUEUE_TIMEOUT); nullopt: its tenant's
  // queue_timeout. Never longer than the tenant's.
  std::optional<Duration> queue_timeout;
};

// A session's slice. gpu < 0: a whole-GPU session (every GPU visible, nothing enforced).
struct Slice {
  int gpu = -1;
  uint64_t memory_bytes = 0;
  uint32_t compute = 0;
  uint32_t compute_limit = 100;
  int priority = kPriorityNormal;
  bool movable = false;  // on an over-committed GPU: its memory may be swapped out while idle
  uint64_t memory_host_bytes = 0;  // host memory beyond the slice (the tenant's memory_host)
  bool sliced() const { return gpu >= 0; }
};

// What the caller must tell the workers after a Pool operation.
struct Actions {
  std::vector<uint64_t> grant;                      // may now run work on its GPU
  std::vector<uint64_t> revoke;                     // must stop, drain, and report released()
  std::vector<ComputeArbiter::Hint> hints;          // how the holder should use its turn now
  std::vector<std::pair<uint64_t, bool>> sovereign;  // may take its turn unasked (compute_arbiter.h)
  std::vector<uint64_t> swap_out;                   // idle: move its memory to the host (then swapped())
  std::vector<std::pair<uint64_t, Slice>> reslice;  // a live change: the worker's new limits
  std::vector<std::pair<uint64_t, Slice>> admitted;        // left the queue: its session starts
  std::vector<std::pair<uint64_t, std::string>> refused;  // gave up waiting in the queue: why
  std::optional<TimePoint> wake;                           // call tick() again by then
};

// What admit() decided: the slice, or the session's place in the admission queue.
struct Admission {
  std::optional<Slice> slice;      // admitted now
  size_t position = 0;             // queued: 1 = next to start
  std::optional<TimePoint> wake;   // queued with a timeout: call tick() by then
};

// A queued session's place, for its client's progress lines and the pool view.
struct QueueStatus {
  size_t position = 0;      // 1 = next
  std::string waiting_for;  // "4096 MiB and 30% compute on one GPU (free: GPU 0 1024 MiB 20%)"
  Duration waited{};
  std::optional<Duration> timeout;
  // It may make its CUDA context while it waits, so that it starts within milliseconds of its room
  // freeing instead of after a context's creation (about 150 ms on an H200): it is next in line, its
  // GPU is known (the pool has one GPU), and that GPU has kWarmContextRoom that no slice holds. So
  // queued sessions hold GPU memory only for a context made by the head (and by a head that a
  // higher priority overtook since), never memory promised to a slice.
  bool warm = false;
};

// What a context made ahead may take of a GPU's unreserved memory (518 MiB on the H200, with room
// for the runtime's first module loads).
inline constexpr uint64_t kWarmContextRoom = 1ull << 30;

// A live change (`rgpu pool set`); absent fields stay as they are.
struct SliceChange {
  std::optional<uint64_t> memory_bytes;
  std::optional<uint32_t> compute;
  std::optional<uint32_t> compute_limit;
  bool when_free = false;  // a memory shrink below what is held applies as the session frees
};

struct GpuView {
  int index = 0;
  std::string name;
  uint64_t total_bytes = 0, reserved_bytes = 0, used_bytes = 0;
  uint32_t compute_reserved = 0;  // sum of guarantees, percent
  double busy = 0;                // fraction of its time used by sliced sessions (last window)
  size_t sessions = 0;
  bool healthy = true;            // rgpud's probe reaches it (server/daemon/gpu_health.h)
};

struct SessionView {
  uint64_t id = 0;
  std::string tenant, host, program;
  uint32_t pid = 0;
  Slice slice;
  uint64_t memory_used = 0;
  uint64_t memory_host = 0;       // in host memory: swapped out, or allocated past the slice (memory_host)
  double share = 0;               // achieved fraction of its GPU's time (last window)
  double age_s = 0;
};

struct QueuedView {
  uint64_t id = 0;
  std::string tenant, host, program;
  uint32_t pid = 0;
  Slice slice;  // what it waits for (gpu -1)
  QueueStatus status;
};

struct PoolView {
  std::vector<GpuView> gpus;
  std::vector<SessionView> sessions;  // by id
  std::vector<QueuedView> queue;      // in the order they will start
  // Memory over-commit since rgpud started: sessions swapped out to host memory, and back.
  uint64_t swaps_out = 0, swaps_in = 0;
};

class Pool {
 public:
  Pool(std::vector<GpuInfo> gpus, DaemonConfig config);
  ~Pool();

  const DaemonConfig& config() const { return config_; }
  const std::vector<GpuInfo>& gpus() const { return gpus_; }

  // Reserves the session's slice on one GPU (by the placement policy), or queues it when no GPU
  // has room now. The queue is in priority order, first come first served within a priority,
  // and strict: a session starts only when every session ahead of it has (so a large request is
  // never overtaken for ever by small ones). A newcomer waits behind queued sessions of its
  // priority or higher even when it would fit. Refused, with a message that says what it asked
  // for and what each GPU has free: a request above what its tenant allows (naming the limit),
  // one no GPU could ever hold, and one that may not wait (queue timeout 0). Whole-GPU tenants are
  // admitted without a reservation and never queue.
  Result<Admission> admit(const SessionRequest& request, TimePoint now);
  // The session ended, however (a queued one: its client gave up): its reservation and its turn
  // return to the pool at once, and queued sessions that now fit are admitted.
  Actions end(uint64_t session, TimePoint now);
  // Its worker's latest figure of the device memory it holds (what nvidia-smi shows for it), how
  // much of it is movable (what a swap-out would move), and the host memory it was given past its
  // slice (memory_host). A when_free shrink that this completes may
  // let queued sessions start.
  Actions note_memory(uint64_t session, uint64_t used_bytes, TimePoint now, uint64_t movable_bytes = 0,
                      uint64_t host_bytes = 0);
  // A queued session's place now; nullopt when it is not queued.
  std::optional<QueueStatus> queue_status(uint64_t session, TimePoint now) const;
  // The session next in line, and whether it may make its context now (QueueStatus::warm);
  // nullopt when none waits.
  struct QueueHead {
    uint64_t session = 0;
    bool warm = false;
  };
  std::optional<QueueHead> queue_head() const;
  // The compute arbitration of a sliced session (ComputeArbiter's want/released).
  //
  // Memory over-commit (policy.memory_overcommit > 1): the slices on a GPU may add up to that many
  // times its memory, so a session's turn also needs physical room: a session runs only while its
  // whole slice fits beside what the others hold (an active one: its slice; an idle one: what it
  // holds; a swapped-out one: what could not move). A want without room waits (first come first
  // served), and the longest-idle sessions idle for policy.swap_idle_ms or more are swapped out
  // (Actions::swap_out) until it fits; a swapped-out session's want brings it back the same way.
  // While the slices on a GPU add up to more than it has, its sessions idle that long are swapped
  // out anyway, so the next one to run finds its room.
  Actions want(uint64_t session, TimePoint now);
  Actions released(uint64_t session, Duration held, TimePoint now);
  // A worker's answer to swap_out: ok (its memory, `bytes`, is on the host now) or not (it became
  // busy, or the copy failed: it stays).
  Actions swapped(uint64_t session, bool ok, uint64_t bytes, TimePoint now);
  Actions tick(TimePoint now);

  // tick() also ends the wait of queued sessions whose queue timeout passed (Actions::refused).

  // `rgpu pool set TARGET`: TARGET is a session id or a tenant name (then the tenant's slice
  // changes, for its running sessions and for later ones). Refused, with the reason, when the
  // GPU cannot hold the new guarantees or when memory would shrink below what a session holds
  // (unless when_free). `summary` says what changed, for the log and the reply.
  Result<Actions> set(std::string_view target, const SliceChange& change, TimePoint now, std::string* summary);

  // Tenants added and removed while rgpud runs (`rgpu pool tenant`, the Kubernetes device plugin's
  // containers; pool_tenants.cpp). A tenant keeps its index for good, since sessions refer to it
  // by index. A new tenant's name and tokens must differ from every live tenant's and from the
  // admin token. A removed tenant's tokens admit no new session and its queued sessions are
  // refused; its running sessions keep their slices until they end (when the device plugin
  // removes a deleted pod's tenant, the pod's processes are gone or going).
  Status add_tenant(TenantSpec spec);
  Result<Actions> remove_tenant(std::string_view name, TimePoint now);
  // rgpud's SIGHUP: the configuration file read anew. Tenants added through the control API stay;
  // a file tenant no longer in the file is removed, a new one added, a changed one takes its new
  // spec: its slice as `set` would change it (refused as set refuses: it then keeps its old spec),
  // the rest (tokens, priority, memory_host, queue_timeout) for its later sessions. Of the policy,
  // placement, memory_overcommit and swap_idle_ms change at once; the others need a restart.
  // `log` gets a line per change, refusal or setting left as it was.
  Actions reload(const DaemonConfig& next, TimePoint now, std::vector<std::string>* log);
  bool tenant_removed(size_t index) const { return index < removed_.size() && removed_[index]; }
  std::optional<size_t> find_tenant(std::string_view name) const;  // a live tenant's index

  // rgpud's GPU health probe (server/daemon/gpu_health.h), a flag per GPU: an unhealthy GPU takes
  // no new session (its running ones go on, or fail on their own); one healthy again may start
  // queued sessions. `changes` gets a line per GPU whose health changed.
  Actions set_gpu_health(const std::vector<bool>& healthy, TimePoint now, std::vector<std::string>* changes);

  // tenant: only that tenant's sessions (rgpu ls); nullptr: all.
  PoolView view(TimePoint now, const std::string* tenant = nullptr) const;

 private:
  struct SessionEntry;
  struct Queued;
  struct GpuLoad;  // what the sliced sessions on one GPU hold (pool.cpp)
  std::vector<GpuLoad> loads() const;
  Actions poll(int gpu, TimePoint now);  // the arbiter's decisions as Actions
  // The GPU the placement policy picks for `slice` now; -1 when none has room.
  int place(const Slice& slice, const std::vector<GpuLoad>& load) const;
  std::string free_text(const std::vector<GpuLoad>& load) const;  // "GPU 0 1024 MiB 20%, GPU 1 ..."
  std::string asks_text(const Slice& slice) const;                // "4096 MiB and 30% compute"
  void start(const SessionRequest& request, const Slice& slice, TimePoint now);
  // Admits queued sessions from the head while they fit; their Actions go into `into`.
  void drain_queue(TimePoint now, Actions* into);
  std::optional<TimePoint> next_deadline() const;
  // The one GPU has room for a context beside every slice's reservation (QueueStatus::warm).
  bool warm_room(const std::vector<GpuLoad>& load) const;
  // Over-commit (pool_swap.cpp).
  uint64_t capacity(size_t gpu) const;  // what the slices on it may add up to
  bool overcommitted() const { return config_.policy.memory_overcommit > 1.0; }
  // Device memory it holds or may take now; `projected`: as it will be once the swap-outs under
  // way have completed.
  uint64_t footprint(const SessionEntry& e, bool projected = false) const;
  bool has_room(const SessionEntry& e, bool projected = false) const;  // its whole slice fits beside the others
  // Passes the waiting wants on a GPU that now fit to its arbiter (the caller polls it after), and
  // swaps idle sessions out for the first that does not.
  void seat_waiting(int gpu, TimePoint now, Actions* into);
  void swap_idle(int gpu, TimePoint now, Actions* into);  // idle long enough on an over-promised GPU
  // The resident sessions on `gpu` (but `except`) with movable memory, idle for swap_idle_ms or
  // more, longest idle first; *next: when the next idle one will be (unchanged if none).
  std::vector<SessionEntry*> swap_candidates(int gpu, TimePoint now, const SessionEntry* except,
                                             std::optional<TimePoint>* next) const;
  // queue_[index]'s place, with `free` (free_text of the loads now) in what it waits for.
  QueueStatus status_at(size_t index, TimePoint now, const std::string& free) const;

  std::vector<GpuInfo> gpus_;
  DaemonConfig config_;
  std::vector<std::unique_ptr<ComputeArbiter>> arbiters_;  // one per GPU
  std::map<uint64_t, std::unique_ptr<SessionEntry>> sessions_;
  std::vector<Queued> queue_;  // in start order
  std::vector<bool> removed_;  // by tenant index: removed while rgpud ran
  std::vector<bool> unhealthy_;  // by GPU (set_gpu_health)
  uint64_t swaps_out_ = 0, swaps_in_ = 0;  // the view's counts (pool_swap.cpp)
};

}  // namespace rgpu::pool
