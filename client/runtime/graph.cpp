// Graphs on the client: stream capture is tracked here so that host<->device copies captured into
// a graph go through server mirrors (see common/wire/graph_args.h): each launch first refreshes the
// graph's H2D mirrors from the user's host memory, and D2H mirrors come back as the graph runs.
#include <cuda_runtime_api.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "client/runtime/call.h"
#include "client/runtime/capture.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/memcpy.h"
#include "client/runtime/memory_map.h"
#include "client/runtime/pipe.h"
#include "codegen/support/gen_marshal.h"
#include "common/wire/graph_args.h"
#include "common/wire/graph_node_args.h"
#include "gen/cudart/cudart_ids.h"
#include "common/wire/internal_calls.h"
#include "gen/cudart/cudart_remote.h"

namespace rgpu::client {
namespace {

namespace remote = gen::cudart::remote;

// An H2D copy captured into a graph: the user's source range and the mirror it refreshes.
struct MirroredInput {
  uint64_t mirror;
  const void* src;
  size_t count;
};
using Inputs = std::shared_ptr<const std::vector<MirroredInput>>;

// Captures by stream. A capture spans several streams when one waits on an event recorded in a
// capturing stream (CUDA's cross-stream capture): the joined stream's host copies belong to it.
class CaptureRegistry {
 public:
  static CaptureRegistry& get() {
    static CaptureRegistry* r = new CaptureRegistry();
    return *r;
  }
  void begin(cudaStream_t s) {
    std::lock_guard<std::mutex> lock(mu_);
    auto capture = std::make_shared<Capture>();
    capture->id = next_capture_id_++;
    capturing_[key(s)] = std::move(capture);
    any_.store(true, std::memory_order_release);
  }
  // The id of the capture stream `s` takes part in, or 0. Asked often (PyTorch's allocator asks at
  // every allocation): while nothing is captured it costs one atomic load.
  uint64_t capture_id(cudaStream_t s) {
    if (!any_.load(std::memory_order_acquire)) return 0;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = capturing_.find(key(s));
    return it == capturing_.end() ? 0 : it->second->id;
  }
  bool capturing(cudaStream_t s) { return capture_id(s) != 0; }
  void add_input(cudaStream_t s, MirroredInput in) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = capturing_.find(key(s)); it != capturing_.end()) it->second->inputs.push_back(in);
  }
  // An event recorded in a capturing stream carries that capture to streams that wait on it.
  // Event records and waits are frequent: while nothing is captured they cost one atomic load
  // (the events of ended captures expire with them).
  void recorded(cudaEvent_t e, cudaStream_t s) {
    if (!any_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = capturing_.find(key(s));
    if (it == capturing_.end()) events_.erase(key(e));
    else events_[key(e)] = it->second;
  }
  void waited(cudaStream_t s, cudaEvent_t e) {
    if (!any_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = events_.find(key(e));
    if (it == events_.end() || capturing_.count(key(s))) return;
    if (auto capture = it->second.lock()) capturing_[key(s)] = capture;
  }
  // Ends the capture (on every stream that joined it); the graph, when one was made, keeps its
  // inputs.
  void end(cudaStream_t s, cudaGraph_t graph) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = capturing_.find(key(s));
    if (it == capturing_.end()) return;
    std::shared_ptr<Capture> capture = it->second;
    std::erase_if(capturing_, [&](const auto& kv) { return kv.second == capture; });
    any_.store(!capturing_.empty(), std::memory_order_release);
    if (graph) graphs_[key(graph)] = std::make_shared<const std::vector<MirroredInput>>(std::move(capture->inputs));
  }
  // Also after cudaGraphExecUpdate: the executable refreshes the host copies of its new graph.
  void instantiated(cudaGraphExec_t exec, cudaGraph_t graph) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = graphs_.find(key(graph));
    if (it != graphs_.end()) execs_[key(exec)] = it->second;
    else execs_.erase(key(exec));
  }
  // An H2D copy node added to `graph` by hand: the graph's executables instantiated from now on
  // refresh its mirror (those made before keep the inputs they were made with).
  void add_graph_input(cudaGraph_t graph, MirroredInput in) {
    std::lock_guard<std::mutex> lock(mu_);
    auto grown = std::make_shared<std::vector<MirroredInput>>();
    if (auto it = graphs_.find(key(graph)); it != graphs_.end()) *grown = *it->second;
    grown->push_back(in);
    graphs_[key(graph)] = std::move(grown);
  }
  void cloned(cudaGraph_t clone, cudaGraph_t graph) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = graphs_.find(key(graph));
    if (it != graphs_.end()) graphs_[key(clone)] = it->second;
  }
  Inputs inputs(cudaGraphExec_t exec) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = execs_.find(key(exec));
    return it == execs_.end() ? nullptr : it->second;
  }
  void forget_graph(cudaGraph_t g) {
    std::lock_guard<std::mutex> lock(mu_);
    graphs_.erase(key(g));
  }
  void forget_exec(cudaGraphExec_t e) {
    std::lock_guard<std::mutex> lock(mu_);
    execs_.erase(key(e));
  }
  uint64_t new_mirror() { return next_mirror_.fetch_add(1); }

 private:
  struct Capture {
    uint64_t id = 0;
    std::vector<MirroredInput> inputs;
  };
  template <typename H>
  static uint64_t key(H h) {
    return reinterpret_cast<uint64_t>(h);
  }
  std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<Capture>> capturing_;
  std::unordered_map<uint64_t, std::weak_ptr<Capture>> events_;
  std::unordered_map<uint64_t, Inputs> graphs_;
  std::unordered_map<uint64_t, Inputs> execs_;
  std::atomic<uint64_t> next_mirror_{1};
  uint64_t next_capture_id_ = 1;
  std::atomic<bool> any_{false};  // some stream is capturing
};

cudaError_t begin_capture(cudaError_t st, cudaStream_t stream) {
  if (st == cudaSuccess) CaptureRegistry::get().begin(stream);
  return cudart_finish(st);
}

cudaError_t end_capture(cudaError_t st, cudaStream_t stream, cudaGraph_t* graph) {
  CaptureRegistry::get().end(stream, st == cudaSuccess && graph ? *graph : nullptr);
  return cudart_finish(st);
}

// Capture state is answered from the registry, without traffic. The graph a capture is building and
// its current dependencies live on the server; asking for them during a capture is not supported.
cudaError_t capture_info(cudaStream_t stream, cudaStreamCaptureStatus* status, unsigned long long* id,
                         bool wants_graph) {
  if (!status) return cudart_finish(cudaErrorInvalidValue);
  uint64_t capture = CaptureRegistry::get().capture_id(stream);
  *status = capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (id && capture) *id = capture;
  if (capture && wants_graph) {
    report_unsupported("cudaStreamGetCaptureInfo (the capturing graph or its dependencies)");
    return cudart_finish(cudaErrorNotSupported);
  }
  return cudaSuccess;
}

cudaError_t launch_graph(cudaGraphExec_t exec, cudaStream_t stream, bool per_thread) {
  if (Inputs inputs = CaptureRegistry::get().inputs(exec)) {
    for (const MirroredInput& in : *inputs) {
      Call call(wire::kCallMirrorRefresh, CallClass::kAsync);
      call.args().put(wire::MirrorRefresh{in.mirror, reinterpret_cast<uint64_t>(stream)});
      Pipe::get().wait_landings(in.src, in.count);
      call.add_bulk(in.src, in.count);
      int32_t st = call.post();
      if (st != 0) return cudart_finish(static_cast<cudaError_t>(st));
    }
  }
  return cudart_finish(per_thread ? remote::cudaGraphLaunch_ptsz(exec, stream) : remote::cudaGraphLaunch(exec, stream));
}

// A 1D copy node: device-to-device as it is, host memory through a mirror (graph_node_args.h).
cudaError_t add_copy_node(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps,
                          void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  if (!node) return cudaErrorInvalidValue;
  if (kind == cudaMemcpyDefault) {
    bool d_dev = MemoryMap::get().find_device(dst).has_value(), s_dev = MemoryMap::get().find_device(src).has_value();
    kind = d_dev ? (s_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                 : (s_dev ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  }
  if (kind == cudaMemcpyHostToHost) {
    report_unsupported("cudaGraphAddMemcpyNode1D between two host buffers");
    return cudaErrorNotSupported;
  }
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDeviceToDevice) return cudaErrorInvalidMemcpyDirection;
  CaptureRegistry& reg = CaptureRegistry::get();
  bool h2d = kind == cudaMemcpyHostToDevice, d2h = kind == cudaMemcpyDeviceToHost;
  uint64_t mirror = h2d || d2h ? reg.new_mirror() : 0;
  wire::MemcpyNode c{h2d || !d2h ? reinterpret_cast<uint64_t>(dst) : 0, d2h || !h2d ? reinterpret_cast<uint64_t>(src) : 0,
                     count, mirror, kind, 0};
  uint64_t id = new_handle_id();
  Call call(gen::cudart::k_cudaGraphAddMemcpyNode1D, CallClass::kSync);
  call.args().put<uint64_t>(id);
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(graph));
  gen::put_handles(call.args(), deps, num_deps);
  call.args().put<uint64_t>(num_deps);
  call.args().put(c);
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st != cudaSuccess) return st;
  *node = reinterpret_cast<cudaGraphNode_t>(id);
  if (h2d) reg.add_graph_input(graph, {mirror, src, count});
  if (d2h) Pipe::get().register_mirror(mirror, dst, count);
  return cudaSuccess;
}

// The error node of the answer is named by the server as graph_queries.cpp's answers are.
cudaError_t instantiate_with_params(cudaGraphExec_t* exec, cudaGraph_t graph, cudaGraphInstantiateParams* p,
                                    bool per_thread) {
  if (!exec || !p) return cudaErrorInvalidValue;
  uint64_t id = new_handle_id();
  auto stream = reinterpret_cast<uint64_t>(p->uploadStream);
  Call call(gen::cudart::k_cudaGraphInstantiateWithParams, CallClass::kSync);
  call.args().put<uint64_t>(id);
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(graph));
  call.args().put<uint64_t>(p->flags);
  call.args().put<uint64_t>(per_thread && stream == 0 ? reinterpret_cast<uint64_t>(cudaStreamPerThread) : stream);
  auto st = static_cast<cudaError_t>(call.invoke());
  if (!call.replied()) return st;
  auto& r = call.results();
  auto result = static_cast<cudaGraphInstantiateResult>(r.get<int32_t>());
  auto err_node = reinterpret_cast<cudaGraphNode_t>(r.get<uint64_t>());
  if (!r.ok()) return cudaErrorUnknown;
  p->result_out = result;
  p->errNode_out = err_node;
  if (st != cudaSuccess) return st;
  *exec = reinterpret_cast<cudaGraphExec_t>(id);
  CaptureRegistry::get().instantiated(*exec, graph);
  return cudaSuccess;
}

}  // namespace

bool stream_capturing(cudaStream_t stream) { return CaptureRegistry::get().capturing(stream); }

cudaError_t capture_host_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  CaptureRegistry& reg = CaptureRegistry::get();
  uint64_t mirror = reg.new_mirror();
  bool h2d = kind == cudaMemcpyHostToDevice;
  Call call(wire::kCallCaptureCopy, CallClass::kAsync);
  call.args().put(wire::CaptureCopy{mirror, reinterpret_cast<uint64_t>(h2d ? dst : src), count, kind, 0,
                                    reinterpret_cast<uint64_t>(stream)});
  if (h2d) {
    call.add_bulk(src, count);
    reg.add_input(stream, {mirror, src, count});
  } else {
    Pipe::get().register_mirror(mirror, dst, count);
  }
  return cudart_finish(static_cast<cudaError_t>(call.post()));
}

}  // namespace rgpu::client

using rgpu::client::CaptureRegistry;
using rgpu::client::cudart_finish;
namespace remote = rgpu::gen::cudart::remote;

extern "C" cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  return rgpu::client::begin_capture(remote::cudaStreamBeginCapture(stream, mode), stream);
}
extern "C" cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, cudaStreamCaptureMode mode) {
  return rgpu::client::begin_capture(remote::cudaStreamBeginCapture_ptsz(stream, mode), stream);
}
extern "C" cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  return rgpu::client::end_capture(remote::cudaStreamEndCapture(stream, pGraph), stream, pGraph);
}
extern "C" cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t* pGraph) {
  return rgpu::client::end_capture(remote::cudaStreamEndCapture_ptsz(stream, pGraph), stream, pGraph);
}

extern "C" cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* pCaptureStatus) {
  return rgpu::client::capture_info(stream, pCaptureStatus, nullptr, false);
}
extern "C" cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, cudaStreamCaptureStatus* pCaptureStatus) {
  return rgpu::client::capture_info(stream, pCaptureStatus, nullptr, false);
}
extern "C" cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* captureStatus_out,
                                                unsigned long long* id_out, cudaGraph_t* graph_out,
                                                const cudaGraphNode_t** dependencies_out,
                                                const cudaGraphEdgeData** edgeData_out, size_t* numDependencies_out) {
  return rgpu::client::capture_info(stream, captureStatus_out, id_out,
                                    graph_out || dependencies_out || edgeData_out || numDependencies_out);
}
extern "C" cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, cudaStreamCaptureStatus* captureStatus_out,
                                                     unsigned long long* id_out, cudaGraph_t* graph_out,
                                                     const cudaGraphNode_t** dependencies_out,
                                                     const cudaGraphEdgeData** edgeData_out,
                                                     size_t* numDependencies_out) {
  return rgpu::client::capture_info(stream, captureStatus_out, id_out,
                                    graph_out || dependencies_out || edgeData_out || numDependencies_out);
}

extern "C" cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  cudaError_t st = remote::cudaGraphInstantiate(pGraphExec, graph, flags);
  if (st == cudaSuccess && pGraphExec) CaptureRegistry::get().instantiated(*pGraphExec, graph);
  return cudart_finish(st);
}
extern "C" cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                     unsigned long long flags) {
  cudaError_t st = remote::cudaGraphInstantiateWithFlags(pGraphExec, graph, flags);
  if (st == cudaSuccess && pGraphExec) CaptureRegistry::get().instantiated(*pGraphExec, graph);
  return cudart_finish(st);
}

// A clone copies the graph's host copies, mirrors included: its executables refresh them too.
extern "C" cudaError_t cudaGraphClone(cudaGraph_t* pGraphClone, cudaGraph_t originalGraph) {
  cudaError_t st = remote::cudaGraphClone(pGraphClone, originalGraph);
  if (st == cudaSuccess && pGraphClone) CaptureRegistry::get().cloned(*pGraphClone, originalGraph);
  return cudart_finish(st);
}

extern "C" cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                      cudaGraphInstantiateParams* instantiateParams) {
  return cudart_finish(rgpu::client::instantiate_with_params(pGraphExec, graph, instantiateParams, false));
}
extern "C" cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                           cudaGraphInstantiateParams* instantiateParams) {
  return cudart_finish(rgpu::client::instantiate_with_params(pGraphExec, graph, instantiateParams, true));
}

extern "C" cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return rgpu::client::launch_graph(graphExec, stream, false);
}
extern "C" cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return rgpu::client::launch_graph(graphExec, stream, true);
}

extern "C" cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  CaptureRegistry::get().forget_graph(graph);
  return cudart_finish(remote::cudaGraphDestroy(graph));
}
extern "C" cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  CaptureRegistry::get().forget_exec(graphExec);
  return cudart_finish(remote::cudaGraphExecDestroy(graphExec));
}

namespace {
cudaError_t record(cudaError_t st, cudaEvent_t event, cudaStream_t stream) {
  if (st == cudaSuccess) CaptureRegistry::get().recorded(event, stream);
  return cudart_finish(st);
}
cudaError_t wait(cudaError_t st, cudaStream_t stream, cudaEvent_t event) {
  if (st == cudaSuccess) CaptureRegistry::get().waited(stream, event);
  return cudart_finish(st);
}
}  // namespace

extern "C" cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return record(remote::cudaEventRecord(event, stream), event, stream);
}
extern "C" cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  return record(remote::cudaEventRecord_ptsz(event, stream), event, stream);
}
extern "C" cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  return record(remote::cudaEventRecordWithFlags(event, stream, flags), event, stream);
}
extern "C" cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  return record(remote::cudaEventRecordWithFlags_ptsz(event, stream, flags), event, stream);
}
extern "C" cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return wait(remote::cudaStreamWaitEvent(stream, event, flags), stream, event);
}
extern "C" cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return wait(remote::cudaStreamWaitEvent_ptsz(stream, event, flags), stream, event);
}

extern "C" cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t* pDependencies, size_t numDependencies, void* dst,
                                                const void* src, size_t count, cudaMemcpyKind kind) {
  return cudart_finish(
      rgpu::client::add_copy_node(pGraphNode, graph, pDependencies, numDependencies, dst, src, count, kind));
}

// The update's answer names nodes: the server gives their client ids (graph_queries.cpp's way).
extern "C" cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                           cudaGraphExecUpdateResultInfo* resultInfo) {
  rgpu::client::Call call(rgpu::gen::cudart::k_cudaGraphExecUpdate, rgpu::client::CallClass::kSync);
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(hGraphExec));
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(hGraph));
  auto st = static_cast<cudaError_t>(call.invoke());
  if (!call.replied()) return cudart_finish(st);
  auto& r = call.results();
  cudaGraphExecUpdateResultInfo info{};
  info.result = static_cast<cudaGraphExecUpdateResult>(r.get<int32_t>());
  info.errorNode = reinterpret_cast<cudaGraphNode_t>(r.get<uint64_t>());
  info.errorFromNode = reinterpret_cast<cudaGraphNode_t>(r.get<uint64_t>());
  if (!r.ok()) return cudart_finish(cudaErrorUnknown);
  if (resultInfo) *resultInfo = info;
  if (st == cudaSuccess) CaptureRegistry::get().instantiated(hGraphExec, hGraph);
  return cudart_finish(st);
}

// Symbol copy nodes are copy nodes to or from the variable's device address.
extern "C" cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                                      const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                                      const void* symbol, const void* src, size_t count, size_t offset,
                                                      cudaMemcpyKind kind) {
  uintptr_t address = 0;
  cudaError_t st = rgpu::client::symbol_copy(symbol, count, offset, true, &kind, &address);
  if (st != cudaSuccess) return cudart_finish(st);
  return cudart_finish(rgpu::client::add_copy_node(pGraphNode, graph, pDependencies, numDependencies,
                                                   reinterpret_cast<void*>(address), src, count, kind));
}
extern "C" cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                                        const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                                        void* dst, const void* symbol, size_t count, size_t offset,
                                                        cudaMemcpyKind kind) {
  uintptr_t address = 0;
  cudaError_t st = rgpu::client::symbol_copy(symbol, count, offset, false, &kind, &address);
  if (st != cudaSuccess) return cudart_finish(st);
  return cudart_finish(rgpu::client::add_copy_node(pGraphNode, graph, pDependencies, numDependencies, dst,
                                                   reinterpret_cast<const void*>(address), count, kind));
}
