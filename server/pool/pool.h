// The pool's books: the GPUs, the tenants, the sessions and what each holds. Admission and
// placement (a session's guaranteed memory and compute are reserved on one GPU when it starts; the
// guarantees on a GPU never add up to more than it has), live changes of a slice, release, and
// the view `rgpu pool` shows. One ComputeArbiter per GPU does the time sharing.
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
};

// A session's slice. gpu < 0: a whole-GPU session (every GPU visible, nothing enforced).
struct Slice {
  int gpu = -1;
  uint64_t memory_bytes = 0;
  uint32_t compute = 0;
  uint32_t compute_limit = 100;
  int priority = kPriorityNormal;
  bool sliced() const { return gpu >= 0; }
};

// What the caller must tell the workers after a Pool operation.
struct Actions {
  std::vector<uint64_t> grant;                      // may now run work on its GPU
  std::vector<uint64_t> revoke;                     // must stop, drain, and report released()
  std::vector<std::pair<uint64_t, Slice>> reslice;  // a live change: the worker's new limits
  std::optional<TimePoint> wake;                    // call tick() again by then
};

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
};

struct SessionView {
  uint64_t id = 0;
  std::string tenant, host, program;
  uint32_t pid = 0;
  Slice slice;
  uint64_t memory_used = 0;
  double share = 0;               // achieved fraction of its GPU's time (last window)
  double age_s = 0;
};

struct PoolView {
  std::vector<GpuView> gpus;
  std::vector<SessionView> sessions;  // by id
};

class Pool {
 public:
  Pool(std::vector<GpuInfo> gpus, DaemonConfig config);
  ~Pool();

  const DaemonConfig& config() const { return config_; }
  const std::vector<GpuInfo>& gpus() const { return gpus_; }

  // Reserves the session's slice on one GPU (by the placement policy), or refuses with a message
  // that says what it asked for and what each GPU has free. A request above what its tenant
  // allows is refused, naming the tenant's limit. Whole-GPU tenants are admitted without a
  // reservation.
  Result<Slice> admit(const SessionRequest& request, TimePoint now);
  // The session ended, however: its reservation and its turn return to the pool at once.
  Actions end(uint64_t session, TimePoint now);
  // Its worker's latest figure of the device memory it holds (what nvidia-smi shows for it).
  void note_memory(uint64_t session, uint64_t used_bytes);
  // The compute arbitration of a sliced session (ComputeArbiter's want/released).
  Actions want(uint64_t session, TimePoint now);
  Actions released(uint64_t session, Duration held, TimePoint now);
  Actions tick(TimePoint now);

  // `rgpu pool set TARGET`: TARGET is a session id or a tenant name (then the tenant's slice
  // changes, for its running sessions and for later ones). Refused, with the reason, when the
  // GPU cannot hold the new guarantees or when memory would shrink below what a session holds
  // (unless when_free). `summary` says what changed, for the log and the reply.
  Result<Actions> set(std::string_view target, const SliceChange& change, TimePoint now, std::string* summary);

  // tenant: only that tenant's sessions (rgpu ls); nullptr: all.
  PoolView view(TimePoint now, const std::string* tenant = nullptr) const;

 private:
  struct SessionEntry;
  struct GpuLoad;  // what the sliced sessions on one GPU hold (pool.cpp)
  std::vector<GpuLoad> loads() const;
  Actions poll(int gpu, TimePoint now);  // the arbiter's decisions as Actions

  std::vector<GpuInfo> gpus_;
  DaemonConfig config_;
  std::vector<std::unique_ptr<ComputeArbiter>> arbiters_;  // one per GPU
  std::map<uint64_t, std::unique_ptr<SessionEntry>> sessions_;
};

}  // namespace rgpu::pool
