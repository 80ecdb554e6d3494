// Graphs on the client: stream capture is tracked here so that host<->device copies captured into
// a graph go through server mirrors (see common/wire/graph_args.h): each launch first refreshes the
// graph's H2D mirrors from the user's host memory, and D2H mirrors come back as the graph runs.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "client/runtime/call.h"
#include "client/runtime/capture.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/graph_books.h"
#include "client/runtime/memcpy.h"
#include "client/runtime/memory_map.h"
#include "client/runtime/pipe.h"
#include "codegen/support/gen_marshal.h"
#include "common/wire/graph_args.h"
#include "common/wire/graph_node_args.h"
#include "common/wire/pitched.h"
#include "gen/cudart/cudart_ids.h"
#include "common/wire/internal_calls.h"
#include "gen/cudart/cudart_remote.h"

namespace rgpu::client {
namespace {

namespace remote = gen::cudart::remote;

// An H2D copy captured into a graph or added to one: the user's source rows and the mirror they
// refresh (packed).
struct MirroredInput {
  uint64_t mirror;
  HostRows src;
};

// A copy node the client added (or set): the parameters as the program gave them, which
// cudaGraphMemcpyNodeGetParams answers, and the node's host end when it has one.
struct CopyNode {
  uint64_t graph = 0;
  cudaMemcpy3DParms params{};
  cudaMemcpyKind kind = cudaMemcpyDeviceToDevice;  // resolved
  uint64_t mirror = 0;                             // 0: device to device
  HostRows host;                                   // the H2D source or D2H destination
};
using Inputs = std::shared_ptr<const std::vector<MirroredInput>>;

// A memory allocation node the client added: its parameters as the program gave them, with the
// address the server answered, and a copy of the access descriptors that `params.accessDescs`
// points to (cudaGraphMemAllocNodeGetParams hands that pointer out: it stays valid as long as the
// node's graph).
struct AllocNode {
  uint64_t graph = 0;
  cudaMemAllocNodeParams params{};
  std::vector<cudaMemAccessDesc> access;
};

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
  bool any() const { return any_.load(std::memory_order_acquire); }
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
  // An H2D copy node's host source re-pointed, in the graph (exec null) or in one executable graph;
  // the graph's executables made before, or the others, keep theirs.
  void repoint_input(cudaGraph_t graph, cudaGraphExec_t exec, uint64_t mirror, const HostRows& src) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& table = exec ? execs_ : graphs_;
    auto it = table.find(exec ? key(exec) : key(graph));
    if (it == table.end()) return;
    auto changed = std::make_shared<std::vector<MirroredInput>>(*it->second);
    for (MirroredInput& in : *changed)
      if (in.mirror == mirror) in.src = src;
    it->second = std::move(changed);
  }
  // A child graph node added to `parent` (exec null) or set in an executable graph: CUDA copies the
  // child into the node, its host copies with it, so the parent's executables (or that one) refresh
  // the child's H2D mirrors as they are now. A set keeps the old child's too: refreshing a mirror
  // no node reads any more costs its bytes, nothing else.
  void add_child(cudaGraph_t parent, cudaGraphExec_t exec, cudaGraph_t child) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = graphs_.find(key(child));
    if (it == graphs_.end() || it->second->empty()) return;
    auto& table = exec ? execs_ : graphs_;
    const uint64_t k = exec ? key(exec) : key(parent);
    auto grown = std::make_shared<std::vector<MirroredInput>>();
    if (auto p = table.find(k); p != table.end()) *grown = *p->second;
    grown->insert(grown->end(), it->second->begin(), it->second->end());
    table[k] = std::move(grown);
  }
  void set_copy_node(cudaGraphNode_t node, const CopyNode& c) {
    std::lock_guard<std::mutex> lock(mu_);
    copy_nodes_[key(node)] = c;
  }
  std::optional<CopyNode> copy_node(cudaGraphNode_t node) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = copy_nodes_.find(key(node));
    if (it == copy_nodes_.end()) return std::nullopt;
    return it->second;
  }
  // The record is made in place and never moves (node-based map): its descriptors' address is handed out.
  void add_alloc_node(cudaGraphNode_t node, cudaGraph_t graph, const cudaMemAllocNodeParams& p) {
    std::lock_guard<std::mutex> lock(mu_);
    AllocNode& a = alloc_nodes_[key(node)];
    a.graph = key(graph);
    a.params = p;
    a.access.assign(p.accessDescs, p.accessDescs + p.accessDescCount);
    a.params.accessDescs = a.access.empty() ? nullptr : a.access.data();
  }
  std::optional<cudaMemAllocNodeParams> alloc_node(cudaGraphNode_t node) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = alloc_nodes_.find(key(node));
    if (it == alloc_nodes_.end()) return std::nullopt;
    return it->second.params;
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
    std::erase_if(copy_nodes_, [&](const auto& kv) { return kv.second.graph == key(g); });
    // The graph's allocations go with it (CUDA frees what its launches left allocated).
    std::erase_if(alloc_nodes_, [&](const auto& kv) {
      if (kv.second.graph != key(g)) return false;
      MemoryMap::get().remove_device(kv.second.params.dptr);
      return true;
    });
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
  std::unordered_map<uint64_t, CopyNode> copy_nodes_;  // by node id
  std::unordered_map<uint64_t, AllocNode> alloc_nodes_;  // by node id
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
  user_objects_launched(exec, per_thread && !stream ? cudaStreamPerThread : stream);
  if (Inputs inputs = CaptureRegistry::get().inputs(exec)) {
    for (const MirroredInput& in : *inputs) {
      Call call(wire::kCallMirrorRefresh, CallClass::kAsync);
      call.args().put(wire::MirrorRefresh{in.mirror, reinterpret_cast<uint64_t>(stream)});
      Pipe::get().wait_landings(in.src.base, in.src.span());
      std::vector<char> packed;  // rows with gaps between them travel packed
      if (in.src.packed()) {
        call.add_bulk(in.src.base, in.src.bytes());
      } else {
        packed.resize(in.src.bytes());
        in.src.each([&](char* row, size_t off) { std::memcpy(packed.data() + off, row, in.src.width); });
        call.add_bulk(packed.data(), packed.size());
      }
      int32_t st = call.post();
      if (st != 0) return cudart_finish(static_cast<cudaError_t>(st));
    }
  }
  return cudart_finish(per_thread ? remote::cudaGraphLaunch_ptsz(exec, stream) : remote::cudaGraphLaunch(exec, stream));
}

// A copy node's parameters as they travel (graph_node_args.h), and what the client keeps of the
// node. `one_d`: from a 1D call (the server makes the copy with the backend's 1D call).
cudaError_t describe_node(const cudaMemcpy3DParms& p, bool one_d, CopyNode* node, wire::MemcpyNode* w) {
  PitchedCopy c;
  if (cudaError_t st = describe_pitched(p, &c); st != cudaSuccess) return st;
  wire::Copy3D& a = c.args;
  node->params = p;
  node->kind = static_cast<cudaMemcpyKind>(a.kind);
  if (node->kind == cudaMemcpyHostToHost) {
    report_unsupported("graph copy nodes between two host buffers (host memory is not the server's)");
    return cudaErrorNotSupported;
  }
  a.is_3d = one_d ? 0 : 1;
  // The host side is the server's mirror, packed.
  if (node->kind == cudaMemcpyHostToDevice) {
    node->host = c.src;
    a.src = 0, a.src_pitch = a.width, a.src_ysize = a.height;
  } else if (node->kind == cudaMemcpyDeviceToHost) {
    node->host = c.dst;
    a.dst = 0, a.dst_pitch = a.width, a.dst_ysize = a.height;
  }
  w->copy = a;
  return cudaSuccess;
}

cudaMemcpy3DParms one_d_parms(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  cudaMemcpy3DParms p{};
  p.dstPtr = pitched(dst, count, count, 1);
  p.srcPtr = pitched(const_cast<void*>(src), count, count, 1);
  p.extent = cudaExtent{count, 1, 1};
  p.kind = kind;
  return p;
}

// Every copy node: device memory and arrays as they are, host memory through a mirror.
cudaError_t add_copy_node(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps,
                          const cudaMemcpy3DParms* p, bool one_d) {
  if (!node || !p) return cudaErrorInvalidValue;
  CopyNode rec;
  wire::MemcpyNode w{};
  if (cudaError_t st = describe_node(*p, one_d, &rec, &w); st != cudaSuccess) return st;
  CaptureRegistry& reg = CaptureRegistry::get();
  rec.graph = reinterpret_cast<uint64_t>(graph);
  rec.mirror = w.mirror = rec.kind == cudaMemcpyDeviceToDevice ? 0 : reg.new_mirror();
  uint64_t id = new_handle_id();
  Call call(gen::cudart::k_cudaGraphAddMemcpyNode, CallClass::kSync);
  call.args().put<uint64_t>(id);
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(graph));
  gen::put_handles(call.args(), deps, num_deps);
  call.args().put<uint64_t>(num_deps);
  call.args().put(w);
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st != cudaSuccess) return st;
  *node = reinterpret_cast<cudaGraphNode_t>(id);
  reg.set_copy_node(*node, rec);
  if (rec.kind == cudaMemcpyHostToDevice) reg.add_graph_input(graph, {rec.mirror, rec.host});
  if (rec.kind == cudaMemcpyDeviceToHost) Pipe::get().register_mirror(rec.mirror, rec.host);
  return cudaSuccess;
}

// Whether a copy is 1-D: one row of linear memory.
bool is_one_d(const cudaMemcpy3DParms& p) {
  return !p.srcArray && !p.dstArray && p.extent.height <= 1 && p.extent.depth <= 1;
}

// A copy node's new parameters, in its graph (exec null) or in one executable graph. The node
// keeps its mirror: a host copy stays one of the same direction and size, and a device-to-host
// copy keeps its destination (the relay's bytes land where the node's first parameters said, for
// the graph and all its executables alike). An H2D node's source is re-pointed where the set
// applies. A node the client did not add (captured, or a clone's) takes device-only copies, and
// the server refuses them for a captured device-to-host copy (its relay reads the mirror).
cudaError_t set_copy_node(cudaGraphExec_t exec, cudaGraphNode_t node, const cudaMemcpy3DParms* p, bool one_d) {
  if (!p) return cudaErrorInvalidValue;
  CaptureRegistry& reg = CaptureRegistry::get();
  std::optional<CopyNode> was = reg.copy_node(node);
  CopyNode rec;
  wire::MemcpyNode w{};
  if (cudaError_t st = describe_node(*p, one_d, &rec, &w); st != cudaSuccess) return st;
  const uint64_t mirror = was ? was->mirror : 0;
  const bool host = rec.kind != cudaMemcpyDeviceToDevice;
  if (host != (mirror != 0) || (was && host && (rec.kind != was->kind || rec.host.bytes() != was->host.bytes()))) {
    report_unsupported("graph copy node parameters that change the node's host side (its direction or size; "
                       "host memory on a node that stream capture or cudaGraphClone made)");
    return cudaErrorNotSupported;
  }
  if (rec.kind == cudaMemcpyDeviceToHost && rec.host != was->host) {
    report_unsupported("graph copy node parameters that move a device-to-host copy's host destination");
    return cudaErrorNotSupported;
  }
  // CUDA's rule: an executable graph's copy node takes new parameters only where its copy and the
  // new one are both 1-D. The driver sees a host copy's flat mirror, not the program's rows, so the
  // client applies it (device-only copies reach the driver as the program gave them).
  if (exec && host && (!is_one_d(rec.params) || !is_one_d(was->params))) return cudaErrorInvalidValue;
  rec.graph = was ? was->graph : 0;
  rec.mirror = w.mirror = mirror;
  Call call(exec ? gen::cudart::k_cudaGraphExecMemcpyNodeSetParams : gen::cudart::k_cudaGraphMemcpyNodeSetParams,
            CallClass::kSync);
  if (exec) call.args().put<uint64_t>(reinterpret_cast<uint64_t>(exec));
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(node));
  call.args().put(w);
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st == cudaErrorNotSupported && !was)
    report_unsupported("graph copy node parameters for a device-to-host copy node that stream capture made (its "
                       "bytes go on through a mirror)");
  if (st != cudaSuccess) return st;
  if (rec.kind == cudaMemcpyHostToDevice)
    reg.repoint_input(reinterpret_cast<cudaGraph_t>(rec.graph), exec, rec.mirror, rec.host);
  // CUDA's rule: an executable graph's set leaves the graph's node, and what its getter answers, as
  // they were. A captured node set here is known from now on (kept as long as the session: its
  // graph is not known here).
  if (!exec) reg.set_copy_node(node, rec);
  return cudaSuccess;
}

// A copy node's parameters, as the program gave them when it added or last set the node (the
// client keeps them: no round trip). One the client never saw added or set (captured, or a
// clone's) is refused.
cudaError_t copy_node_params(cudaGraphNode_t node, cudaMemcpy3DParms* p) {
  if (!p) return cudaErrorInvalidValue;
  if (std::optional<CopyNode> rec = CaptureRegistry::get().copy_node(node)) {
    *p = rec->params;
    return cudaSuccess;
  }
  cudaGraphNodeType type{};
  cudaError_t st = remote::cudaGraphNodeGetType(node, &type);
  if (st != cudaSuccess) return st;
  if (type != cudaGraphNodeTypeMemcpy) return cudaErrorInvalidValue;
  report_unsupported("cudaGraphMemcpyNodeGetParams of a copy node that stream capture or cudaGraphClone made");
  return cudaErrorNotSupported;
}

// An allocation node: the server allocates (its address is the node's for every launch), the
// client records the range as device memory (cudaMemcpyDefault, pointer attributes and cudaFree know
// it) for as long as the graph lives.
cudaError_t add_alloc_node(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps,
                           cudaMemAllocNodeParams* p) {
  if (!node || !p || (p->accessDescCount && !p->accessDescs)) return cudaErrorInvalidValue;
  if (p->poolProps.win32SecurityAttributes) {
    report_unsupported("cudaGraphAddMemAllocNode with Windows security attributes");
    return cudaErrorNotSupported;
  }
  size_t desc_bytes = 0;
  if (__builtin_mul_overflow(p->accessDescCount, sizeof(cudaMemAccessDesc), &desc_bytes) ||
      desc_bytes > wire::kMaxBulk)
    return cudaErrorInvalidValue;
  const cudaMemPoolProps& pp = p->poolProps;
  wire::MemAllocNode a{pp.allocType, pp.handleTypes, pp.location.type, pp.location.id, pp.maxSize, p->bytesize,
                       pp.usage, 0};
  uint64_t id = new_handle_id();
  Call call(gen::cudart::k_cudaGraphAddMemAllocNode, CallClass::kSync);
  call.args().put<uint64_t>(id);
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(graph));
  gen::put_handles(call.args(), deps, num_deps);
  call.args().put<uint64_t>(num_deps);
  call.args().put(a);
  call.args().put_bytes(p->accessDescs, desc_bytes);
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st != cudaSuccess) return st;
  auto dptr = reinterpret_cast<void*>(call.results().get<uint64_t>());
  if (!call.results().ok()) return cudaErrorUnknown;
  p->dptr = dptr;
  *node = reinterpret_cast<cudaGraphNode_t>(id);
  (void)MemoryMap::get().add_device(dptr, p->bytesize, pp.location.id, true);
  CaptureRegistry::get().add_alloc_node(*node, graph, *p);
  return cudaSuccess;
}

// An allocation node's parameters, from the client's record (no round trip).
cudaError_t alloc_node_params(cudaGraphNode_t node, cudaMemAllocNodeParams* p) {
  if (!p) return cudaErrorInvalidValue;
  if (std::optional<cudaMemAllocNodeParams> rec = CaptureRegistry::get().alloc_node(node)) {
    *p = *rec;
    return cudaSuccess;
  }
  cudaGraphNodeType type{};
  cudaError_t st = remote::cudaGraphNodeGetType(node, &type);
  if (st != cudaSuccess) return st;
  if (type != cudaGraphNodeTypeMemAlloc) return cudaErrorInvalidValue;
  report_unsupported("cudaGraphMemAllocNodeGetParams of an allocation node that stream capture or cudaGraphClone "
                     "made");
  return cudaErrorNotSupported;
}

// Every instantiation: what the client keeps of the graph goes to the executable graph.
void instantiated(cudaGraphExec_t exec, cudaGraph_t graph) {
  CaptureRegistry::get().instantiated(exec, graph);
  user_objects_instantiated(exec, graph);
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
  instantiated(*exec, graph);
  return cudaSuccess;
}

}  // namespace

bool stream_capturing(cudaStream_t stream) { return CaptureRegistry::get().capturing(stream); }

bool capture_under_way() { return CaptureRegistry::get().any(); }

cudaError_t capture_host_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  CaptureRegistry& reg = CaptureRegistry::get();
  uint64_t mirror = reg.new_mirror();
  bool h2d = kind == cudaMemcpyHostToDevice;
  Call call(wire::kCallCaptureCopy, CallClass::kAsync);
  call.args().put(wire::CaptureCopy{mirror, reinterpret_cast<uint64_t>(h2d ? dst : src), count, kind, 0,
                                    reinterpret_cast<uint64_t>(stream)});
  if (h2d) {
    call.add_bulk(src, count);
    reg.add_input(stream, {mirror, HostRows::range(const_cast<void*>(src), count)});
  } else {
    Pipe::get().register_mirror(mirror, HostRows::range(dst, count));
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
  if (st == cudaSuccess && pGraphExec) rgpu::client::instantiated(*pGraphExec, graph);
  return cudart_finish(st);
}
extern "C" cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                     unsigned long long flags) {
  cudaError_t st = remote::cudaGraphInstantiateWithFlags(pGraphExec, graph, flags);
  if (st == cudaSuccess && pGraphExec) rgpu::client::instantiated(*pGraphExec, graph);
  return cudart_finish(st);
}

// A clone copies the graph's host copies, mirrors included (its executables refresh them too), and
// its user-object references.
extern "C" cudaError_t cudaGraphClone(cudaGraph_t* pGraphClone, cudaGraph_t originalGraph) {
  cudaError_t st = remote::cudaGraphClone(pGraphClone, originalGraph);
  if (st == cudaSuccess && pGraphClone) {
    CaptureRegistry::get().cloned(*pGraphClone, originalGraph);
    rgpu::client::user_objects_graph_copied(*pGraphClone, originalGraph);
  }
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
  rgpu::client::forget_kernel_nodes(graph);
  rgpu::client::user_objects_graph_destroyed(graph);
  return cudart_finish(remote::cudaGraphDestroy(graph));
}
extern "C" cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  CaptureRegistry::get().forget_exec(graphExec);
  rgpu::client::user_objects_exec_destroyed(graphExec);
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

extern "C" cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                              const cudaMemcpy3DParms* pCopyParams) {
  return cudart_finish(
      rgpu::client::add_copy_node(pGraphNode, graph, pDependencies, numDependencies, pCopyParams, false));
}
extern "C" cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t* pDependencies, size_t numDependencies, void* dst,
                                                const void* src, size_t count, cudaMemcpyKind kind) {
  cudaMemcpy3DParms p = rgpu::client::one_d_parms(dst, src, count, kind);
  return cudart_finish(rgpu::client::add_copy_node(pGraphNode, graph, pDependencies, numDependencies, &p, true));
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
  if (st == cudaSuccess) {
    CaptureRegistry::get().instantiated(hGraphExec, hGraph);
    rgpu::client::user_objects_exec_updated(hGraphExec, hGraph);
  }
  return cudart_finish(st);
}

// Symbol copy nodes are 1D copy nodes to or from the variable's device address; `exec` null with
// `set` sets a graph's node.
namespace {
cudaError_t symbol_node(cudaGraphNode_t* added, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps,
                        bool set, cudaGraphExec_t exec, cudaGraphNode_t node, const void* symbol, void* host,
                        size_t count, size_t offset, bool to, cudaMemcpyKind kind) {
  uintptr_t address = 0;
  cudaError_t st = rgpu::client::symbol_copy(symbol, count, offset, to, &kind, &address);
  if (st != cudaSuccess) return cudart_finish(st);
  auto dev = reinterpret_cast<void*>(address);
  cudaMemcpy3DParms p = to ? rgpu::client::one_d_parms(dev, host, count, kind)
                           : rgpu::client::one_d_parms(host, dev, count, kind);
  return cudart_finish(set ? rgpu::client::set_copy_node(exec, node, &p, true)
                           : rgpu::client::add_copy_node(added, graph, deps, num_deps, &p, true));
}
}  // namespace

extern "C" cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                                      const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                                      const void* symbol, const void* src, size_t count, size_t offset,
                                                      cudaMemcpyKind kind) {
  return symbol_node(pGraphNode, graph, pDependencies, numDependencies, false, nullptr, nullptr, symbol,
                     const_cast<void*>(src), count, offset, true, kind);
}
extern "C" cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                                        const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                                        void* dst, const void* symbol, size_t count, size_t offset,
                                                        cudaMemcpyKind kind) {
  return symbol_node(pGraphNode, graph, pDependencies, numDependencies, false, nullptr, nullptr, symbol, dst, count,
                     offset, false, kind);
}

extern "C" cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms* pNodeParams) {
  return cudart_finish(rgpu::client::copy_node_params(node, pNodeParams));
}
extern "C" cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms* pNodeParams) {
  return cudart_finish(rgpu::client::set_copy_node(nullptr, node, pNodeParams, false));
}
extern "C" cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src, size_t count,
                                                      cudaMemcpyKind kind) {
  cudaMemcpy3DParms p = rgpu::client::one_d_parms(dst, src, count, kind);
  return cudart_finish(rgpu::client::set_copy_node(nullptr, node, &p, true));
}
extern "C" cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void* symbol, const void* src,
                                                            size_t count, size_t offset, cudaMemcpyKind kind) {
  return symbol_node(nullptr, nullptr, nullptr, 0, true, nullptr, node, symbol, const_cast<void*>(src), count, offset,
                     true, kind);
}
extern "C" cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void* dst, const void* symbol,
                                                              size_t count, size_t offset, cudaMemcpyKind kind) {
  return symbol_node(nullptr, nullptr, nullptr, 0, true, nullptr, node, symbol, dst, count, offset, false, kind);
}
extern "C" cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                        const cudaMemcpy3DParms* pNodeParams) {
  if (!hGraphExec) return cudart_finish(cudaErrorInvalidResourceHandle);
  return cudart_finish(rgpu::client::set_copy_node(hGraphExec, node, pNodeParams, false));
}
extern "C" cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void* dst,
                                                          const void* src, size_t count, cudaMemcpyKind kind) {
  if (!hGraphExec) return cudart_finish(cudaErrorInvalidResourceHandle);
  cudaMemcpy3DParms p = rgpu::client::one_d_parms(dst, src, count, kind);
  return cudart_finish(rgpu::client::set_copy_node(hGraphExec, node, &p, true));
}
extern "C" cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                                const void* symbol, const void* src, size_t count,
                                                                size_t offset, cudaMemcpyKind kind) {
  if (!hGraphExec) return cudart_finish(cudaErrorInvalidResourceHandle);
  return symbol_node(nullptr, nullptr, nullptr, 0, true, hGraphExec, node, symbol, const_cast<void*>(src), count,
                     offset, true, kind);
}
extern "C" cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                                  void* dst, const void* symbol, size_t count,
                                                                  size_t offset, cudaMemcpyKind kind) {
  if (!hGraphExec) return cudart_finish(cudaErrorInvalidResourceHandle);
  return symbol_node(nullptr, nullptr, nullptr, 0, true, hGraphExec, node, symbol, dst, count, offset, false, kind);
}

extern "C" cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                                cudaMemAllocNodeParams* nodeParams) {
  return cudart_finish(rgpu::client::add_alloc_node(pGraphNode, graph, pDependencies, numDependencies, nodeParams));
}
extern "C" cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* params_out) {
  return cudart_finish(rgpu::client::alloc_node_params(node, params_out));
}

extern "C" cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                                  cudaGraph_t childGraph) {
  cudaError_t st = remote::cudaGraphAddChildGraphNode(pGraphNode, graph, pDependencies, numDependencies, childGraph);
  if (st == cudaSuccess) {
    CaptureRegistry::get().add_child(graph, nullptr, childGraph);
    // The node's embedded clone of the child is the parent's: its references go with the parent.
    rgpu::client::user_objects_graph_copied(graph, childGraph);
  }
  return cudart_finish(st);
}
extern "C" cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                            cudaGraph_t childGraph) {
  cudaError_t st = remote::cudaGraphExecChildGraphNodeSetParams(hGraphExec, node, childGraph);
  if (st == cudaSuccess && hGraphExec) CaptureRegistry::get().add_child(nullptr, hGraphExec, childGraph);
  return cudart_finish(st);
}
