// Process-wide state of the emulated CUDA Runtime: configuration, device memory, and the streams,
// events and graphs that the cudaStream_t / cudaEvent_t / cudaGraph_t handles point at.
//
// Every handle is validated against its table before use (an unknown handle is
// cudaErrorInvalidResourceHandle, never a dereference). Work is done eagerly when issued, except
// on a capturing stream, where it is appended to the capture's graph instead, and behind a host
// function deferred while its device was busy (enqueue_async), where it waits its turn on the
// device's callback thread. `mu` guards the tables and is never held while an operation or a user
// callback runs.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "server/backends/emulated/device_memory.h"
#include "server/backends/emulated/device_spec.h"

namespace rgpu::server::emulated {

// One unit of device work (a copy, a memset, a kernel launch record, a host function).
using Operation = std::function<cudaError_t()>;

// A captured or added operation; its address is the cudaGraphNode_t handle. An executable graph
// holds copies of its graph's nodes, so setting a node's parameters in one leaves the other as it
// was (CUDA's rule); a copy names the node it was made from.
struct GraphNode {
  cudaGraphNodeType type;
  Operation run;
  cudaHostNodeParams host{};  // a host node added by hand: its function (cudaGraphHostNodeGetParams)
  const GraphNode* origin = nullptr;  // in an executable graph: the graph's node
  const void* memory = nullptr;       // a memory node added by hand: the allocation it makes or frees
  // A kernel node's launch attributes as set (cudaGraphKernelNodeSetAttribute), by id; an attribute
  // never set reads as zero, CUDA's default.
  std::map<int, cudaLaunchAttributeValue> attributes{};
};

using GraphNodes = std::vector<std::shared_ptr<GraphNode>>;

// Memory a capture allocated (cudaMallocAsync on a capturing stream): it belongs to the graph
// and its executable graphs, and is freed when the last of them is destroyed.
class GraphAllocation {
 public:
  explicit GraphAllocation(DeviceRange memory) : memory_(std::move(memory)) {}
  ~GraphAllocation();
  GraphAllocation(const GraphAllocation&) = delete;
  GraphAllocation& operator=(const GraphAllocation&) = delete;
  const void* address() const { return memory_.data; }

 private:
  DeviceRange memory_;
};

using GraphAllocations = std::vector<std::shared_ptr<GraphAllocation>>;

struct Graph {
  int device = 0;
  GraphNodes nodes;  // in issue order: a valid serialisation of the captured work
  GraphAllocations allocations;
};

struct GraphExec {
  int device = 0;
  GraphNodes nodes;
  GraphAllocations allocations;
};

struct Capture {
  uint64_t id = 0;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  std::shared_ptr<Graph> graph;
  void* origin = nullptr;  // the stream that began it (only it may end it)
  bool invalidated = false;
};

struct Stream {
  int device = 0;
  unsigned flags = 0;
  int priority = 0;
  uint64_t id = 0;
  std::shared_ptr<Capture> capture;  // set while the stream is capturing (or joined a capture)
};

struct Event {
  int device = 0;
  unsigned flags = 0;
  bool recorded = false;
  std::chrono::steady_clock::time_point when;
  // Records issued but not yet run (behind a host function: RuntimeState::enqueue_async), and when
  // the last one run completes: once the kernels before it have had their time.
  int pending = 0;
  std::chrono::steady_clock::time_point done_at{};
  std::shared_ptr<Capture> captured_in;  // the capture its last record belongs to, if any
};

struct DeviceSettings {
  size_t limits[cudaLimitPersistingL2CacheSize + 1] = {};
  cudaFuncCache cache_config = cudaFuncCachePreferNone;
  unsigned flags = 0;
  uint64_t peers = 0;  // bit d: peer access to device d enabled
  std::chrono::steady_clock::time_point busy_until{};  // the end of its last kernel (config.kernel_time)
  DeviceSettings();
};

class RuntimeState {
 public:
  static RuntimeState& get();

  DeviceConfig config;
  Status config_status;  // why config has no devices, when it was invalid
  DeviceMemory memory;

  std::mutex mu;
  std::unordered_map<void*, std::unique_ptr<Stream>> streams;
  std::unordered_map<void*, std::unique_ptr<Event>> events;
  std::unordered_map<void*, std::unique_ptr<Graph>> graphs;
  std::unordered_map<void*, std::unique_ptr<GraphExec>> execs;
  std::vector<DeviceSettings> settings;
  struct Pinned {
    size_t size;
    int device;  // current at the allocation: cudaDeviceReset of it frees the allocation
  };
  std::map<uintptr_t, Pinned> pinned;  // cudaMallocHost's allocations, by start
  uint64_t next_stream_id = 3;  // 0..2 are the built-in streams
  uint64_t next_capture_id = 1;

  bool valid_device(int device) const { return device >= 0 && device < config.count; }
  // Whether [p, p+n) lies in one pinned allocation. Takes mu.
  bool is_pinned(const void* p, size_t n);
  // With mu held: the stream behind a handle; builtin streams (0, cudaStreamLegacy,
  // cudaStreamPerThread) give success and a null Stream*.
  cudaError_t resolve_stream(cudaStream_t handle, Stream** out);
  Event* find_event(cudaEvent_t handle);

  // Runs `op` now, or records it when `stream` is capturing. The caller has validated what the
  // operation will touch, so that a bad argument fails at issue time even under capture. Work
  // deferred behind a host function on the stream's device (enqueue_async) runs first.
  cudaError_t enqueue(cudaStream_t stream, cudaGraphNodeType type, Operation op);
  // The same for the stream work CUDA issues without waiting: kernels, async copies and memsets,
  // event records, host functions. A host function issued while its device is busy (a kernel's
  // time) is deferred: the device's callback thread runs it once the kernels before it have had
  // their time, as the driver runs host functions on a thread of its own when the stream reaches
  // them; and while deferred work waits, later work of this kind queues behind it there instead of
  // running at once, so the session issues on meanwhile (a failure of deferred work is logged).
  cudaError_t enqueue_async(cudaStream_t stream, cudaGraphNodeType type, Operation op);
  // Waits until `device`'s deferred work has run (at once on its callback thread itself).
  void wait_deferred(int device);
  // An event record that runs now or later (enqueue_async): stamps it, wakes its waiters.
  cudaError_t stamp_event(cudaEvent_t event, bool counted);
  // Whether an event's last record has run and completed; waits until it has. They take mu.
  bool event_done(cudaEvent_t event, cudaError_t* err);
  cudaError_t wait_event(cudaEvent_t event);
  // For operations a capturing stream forbids (synchronize, query, a callback): invalidates the
  // capture and returns cudaErrorStreamCaptureUnsupported; cudaSuccess when not capturing.
  cudaError_t forbid_in_capture(cudaStream_t stream);
  // A kernel of `device` ran: with a kernel time, the device is busy that much longer (kernels
  // follow one another). Takes mu.
  void occupy(int device);
  // Whether `device` still runs a kernel or has deferred work; waits until neither. They take mu,
  // and wait_idle sleeps without it.
  bool busy(int device);
  void wait_idle(int device);
  // Destroys every stream, event and graph of `device`, frees its memory, restores its settings.
  void reset_device(int device);

 private:
  RuntimeState();
  // With mu held: `op` recorded into the stream's capture (*captured), or the stream's device.
  cudaError_t locate(cudaStream_t handle, cudaGraphNodeType type, Operation& op, int* device, bool* captured);
  bool kernels_busy(int device);
  void callback_thread(int device);

  struct Deferred {
    cudaGraphNodeType type;
    Operation op;
  };
  struct DeviceQueue {
    std::deque<Deferred> work;  // in issue order
    bool running = false;       // the callback thread runs an item it took off `work`
    bool started = false;       // the callback thread exists
    // work.size() + running, read without the lock on every issue: none is the common case, and
    // then a launch or a copy costs no lock more.
    std::atomic<size_t> outstanding{0};
  };
  std::mutex defer_mu_;
  std::condition_variable defer_cv_;         // work queued, or an item ran
  std::unique_ptr<DeviceQueue[]> queues_;  // by device
  std::condition_variable stamped_;   // with mu: an event record ran
};

inline RuntimeState& state() { return RuntimeState::get(); }

// Node-by-node graph building (cudaGraphAdd*Node): appends `op` to `graph`. A node may depend only
// on nodes that already exist, so the order of addition is a valid serialisation, as a capture's
// issue order is. Every dependency must be a node of `graph`. Takes mu.
// `owned`, when given, is memory the node allocates: the graph holds it from now on.
cudaError_t add_graph_node(cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps, GraphNode added,
                           cudaGraphNode_t* node, std::shared_ptr<GraphAllocation> owned = nullptr);
// Gives a node of a graph (exec null) or of an executable graph made from it a new operation; the
// node must be of `type`. An executable graph's node is replaced, not changed, so a launch already
// running the old one finishes it. Takes mu.
cudaError_t set_graph_node(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraphNodeType type, Operation run);

// The calling thread's current device (CUDA keeps it per thread; default 0).
int& current_device();

}  // namespace rgpu::server::emulated
