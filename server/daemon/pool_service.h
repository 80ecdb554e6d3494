// rgpud's parent side of the pool: the one Pool (server/pool) and the links to every session's
// worker (server/session/pool_link.h), served on one thread of its own (Boost.Asio). It admits
// sessions, answers the control API, carries out the compute arbiter's grants and revocations on
// its timer, and ends a session's reservation the moment its worker's link closes, however the
// worker ended. The accept loop hands it each new worker's link; nothing else touches the Pool.
#pragma once

#include <sys/types.h>

#include <utility>  // before Boost.Asio: Boost 1.74 uses std::exchange without including it

#include <boost/asio.hpp>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "server/daemon/metrics_server.h"
#include "server/pool/pool.h"
#include "server/pool/pool_metrics.h"
#include "server/session/pool_link.h"

namespace rgpu::server {

class PoolService {
 public:
  explicit PoolService(std::unique_ptr<pool::Pool> pool);
  ~PoolService();

  // Called on the service's thread after a tenant was added or removed (the control API's
  // `tenant`), with the pool's configuration as it is now: rgpud's handshake takes the new tokens.
  using TenantsChanged = std::function<void(const pool::DaemonConfig&)>;
  void on_tenants_changed(TenantsChanged callback) { tenants_changed_ = std::move(callback); }  // before start()

  void start();
  // Thread-safe: the configuration file read anew (rgpud's SIGHUP), applied on the service's
  // thread (pool::Pool::reload); each change is logged, and the handshake takes the new tokens.
  void reload(pool::DaemonConfig next);
  // Thread-safe: the GPUs' health as rgpud's probe found it (gpu_health.h); changes are logged.
  void set_gpu_health(std::vector<bool> healthy);
  // Ends the service's thread (the destructor does too): before anything its metrics read goes.
  void stop();
  // Serves Prometheus's /metrics on `address` (HOST:PORT) from the service's thread
  // (metrics_server.h); `handshakes` gives the handshake server's counts by outcome, from that
  // thread. Returns the address bound (the real port if 0 was asked). Before start().
  using HandshakeCounts = std::function<std::map<std::string, uint64_t>()>;
  Result<std::string> serve_metrics(const std::string& address, HandshakeCounts handshakes);
  // Thread-safe: the parent's end of session `session`'s worker link (PoolService closes it).
  void add_worker(uint64_t session, int fd);

  // fork(), while the service's thread is parked between two tasks, holding no lock: a lock that
  // thread held at the fork would stay locked for ever in the child (the worker). glibc's malloc
  // guards fork itself; GCC 12's ASan allocator does not, and an ASan soak met workers stuck for
  // good in operator new. Costs two thread hand-offs per session start. Once the thread is parked,
  // the fork goes through the parent's fork gate (fork_gate.h), which waits for rgpud's other
  // threads to be blocked: neither the gate's holders nor the parked thread wait on each other, and
  // parking first keeps the gate shut for the fork alone. The child touches none of the parking's
  // state (a condition variable whose waiter is not in the child may block it).
  pid_t fork_parked();

 private:
  struct Worker {
    uint64_t session = 0;
    PoolLink link;
    boost::asio::posix::stream_descriptor socket;
    bool admitted = false;
    bool queued = false;  // waits in the pool's admission queue
    std::string tenant;
    pool::Traffic traffic;   // its latest Traffic or Ended
    std::string end_cause;   // from its Ended ("": it has not said)
    Worker(uint64_t id, int fd, boost::asio::io_context& io) : session(id), link(fd), socket(io, fd) {}
  };

  void wait_readable(Worker& w);
  void on_message(Worker& w, const LinkMessage& m);
  void on_closed(Worker& w);
  // A removed tenant's traffic counters go once its last session (but `ending`) has ended, so the
  // /metrics page does not keep a series for every pod that ever ran (each is a tenant).
  void forget_removed_tenants(const Worker* ending);
  void admit(Worker& w, const LinkMessage& m);
  void started(Worker& w, const pool::Slice& slice, const char* how);  // admitted: tell its worker
  void send_queue_status(Worker& w);
  // The session next in line hears its status when it becomes the head or room for a context
  // appears, since that lets it make its context while it waits (pool.h QueueStatus::warm).
  void tell_queue_head();
  void control(Worker& w, const LinkMessage& m);
  void apply(const pool::Actions& actions);
  void send_to(uint64_t session, const LinkMessage& m);
  void arm(std::optional<pool::TimePoint> wake);
  std::string metrics_page();

  std::unique_ptr<pool::Pool> pool_;
  TenantsChanged tenants_changed_;
  boost::asio::io_context io_;
  boost::asio::steady_timer timer_;
  std::optional<pool::TimePoint> armed_;
  std::map<uint64_t, std::unique_ptr<Worker>> workers_;
  pool::Pool::QueueHead told_head_;  // what the head last heard (tell_queue_head)
  pool::DaemonCounters counters_;
  HandshakeCounts handshakes_;
  std::unique_ptr<MetricsServer> metrics_;
  std::thread thread_;
  std::mutex park_mu_;
  std::condition_variable park_cv_;
  bool parked_ = false;  // the thread waits in its parking task, until fork_parked() clears it
};

}  // namespace rgpu::server
