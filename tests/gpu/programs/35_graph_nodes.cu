// GPU suite: a CUDA graph built node by node (kernel, 1D copies host->device, device->device and
// device->host, memset, host, child graph, empty, event record and wait nodes), instantiated,
// launched, changed (cudaGraphExec*SetParams, cudaGraphExecUpdate) and launched again; a WHILE
// conditional node looping a kernel until a device counter reaches N; a clone found node by node;
// 3D copy nodes through pitched host rows, pitched device memory and a CUDA array, their
// parameters read back and set (graph, executable graph, 1D, symbol); memory allocation and free
// nodes around a kernel, their parameters read back; a kernel node's parameters read back; user
// objects owned by a graph, its clone and its executable graph; the graph printed as DOT.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "suite_check.h"

__global__ void scale(int* data, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

__global__ void add_index(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += i;
}

__global__ void add_one(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

// The body of the WHILE node: one step, then the loop goes on while the counter is below `limit`.
__global__ void count_step(int* counter, int limit, cudaGraphConditionalHandle handle) {
  int c = ++*counter;
  cudaGraphSetConditional(handle, c < limit ? 1 : 0);
}

// A WHILE node's condition is read before each run of its body: set it from the counter first.
__global__ void count_start(int* counter, int limit, cudaGraphConditionalHandle handle) {
  cudaGraphSetConditional(handle, *counter < limit ? 1 : 0);
}

__device__ int table[16];

__global__ void bump_table() { table[threadIdx.x] += 100 + threadIdx.x; }

struct HostLog {
  int calls = 0;
  int last_tag = 0;
};
static void CUDART_CB host_tag1(void* p) {
  auto* log = static_cast<HostLog*>(p);
  ++log->calls;
  log->last_tag = 1;
}
static void CUDART_CB host_tag2(void* p) {
  auto* log = static_cast<HostLog*>(p);
  ++log->calls;
  log->last_tag = 2;
}

static bool same_params(const cudaMemcpy3DParms& a, const cudaMemcpy3DParms& b) {
  return a.srcArray == b.srcArray && a.dstArray == b.dstArray && a.srcPtr.ptr == b.srcPtr.ptr &&
         a.srcPtr.pitch == b.srcPtr.pitch && a.dstPtr.ptr == b.dstPtr.ptr && a.dstPtr.pitch == b.dstPtr.pitch &&
         a.extent.width == b.extent.width && a.extent.height == b.extent.height && a.extent.depth == b.extent.depth &&
         a.kind == b.kind;
}

// Pitched host rows (`pitch` ints apart) -> pitched device memory -> a CUDA array -> linear device
// memory (+= index by a kernel) -> contiguous host memory, by 3D copy nodes; then the nodes' set
// calls, each result printed.
static void copy_nodes_3d(cudaStream_t stream) {
  const int w = 64, h = 16, pitch = w + 8;
  std::vector<int> rows_in(pitch * h), out(w * h, -1);
  for (int i = 0; i < pitch * h; ++i) rows_in[i] = i % 251;
  auto wrong = [&](const std::vector<int>& rows, int y0, int y1) {
    int bad = 0;
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < w; ++x) bad += out[y * w + x] != rows[y * pitch + x] + y * w + x;
    return bad;
  };
  void* dev_rows;
  size_t dev_pitch;
  CHECK_CUDA(cudaMallocPitch(&dev_rows, &dev_pitch, w * sizeof(int), h));
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<int>();
  cudaArray_t array;
  CHECK_CUDA(cudaMallocArray(&array, &desc, w, h));
  int* linear;
  CHECK_CUDA(cudaMalloc(&linear, w * h * sizeof(int)));

  cudaGraph_t g;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  cudaMemcpy3DParms in{};
  in.srcPtr = make_cudaPitchedPtr(rows_in.data(), pitch * sizeof(int), w * sizeof(int), h);
  in.dstPtr = make_cudaPitchedPtr(dev_rows, dev_pitch, w * sizeof(int), h);
  in.extent = make_cudaExtent(w * sizeof(int), h, 1);
  in.kind = cudaMemcpyHostToDevice;
  cudaMemcpy3DParms to_array{};
  to_array.srcPtr = in.dstPtr;
  to_array.dstArray = array;
  to_array.extent = make_cudaExtent(w, h, 1);
  to_array.kind = cudaMemcpyDeviceToDevice;
  cudaMemcpy3DParms from_array{};
  from_array.srcArray = array;
  from_array.dstPtr = make_cudaPitchedPtr(linear, w * sizeof(int), w * sizeof(int), h);
  from_array.extent = make_cudaExtent(w, h, 1);
  from_array.kind = cudaMemcpyDeviceToDevice;
  cudaMemcpy3DParms back{};
  back.srcPtr = from_array.dstPtr;
  back.dstPtr = make_cudaPitchedPtr(out.data(), w * sizeof(int), w * sizeof(int), h);
  back.extent = make_cudaExtent(w * sizeof(int), h, 1);
  back.kind = cudaMemcpyDeviceToHost;
  int count = w * h;
  void* index_args[] = {&linear, &count};
  cudaKernelNodeParams kp{};
  kp.func = reinterpret_cast<void*>(add_index);
  kp.gridDim = dim3(count / 256);
  kp.blockDim = dim3(256);
  kp.kernelParams = index_args;
  cudaGraphNode_t n_in, n_to_array, n_from_array, k_index, n_back;
  CHECK_CUDA(cudaGraphAddMemcpyNode(&n_in, g, nullptr, 0, &in));
  CHECK_CUDA(cudaGraphAddMemcpyNode(&n_to_array, g, &n_in, 1, &to_array));
  CHECK_CUDA(cudaGraphAddMemcpyNode(&n_from_array, g, &n_to_array, 1, &from_array));
  CHECK_CUDA(cudaGraphAddKernelNode(&k_index, g, &n_from_array, 1, &kp));
  CHECK_CUDA(cudaGraphAddMemcpyNode(&n_back, g, &k_index, 1, &back));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  for (int launch = 0; launch < 2; ++launch) {
    rows_in[5] = 1000 + launch;  // read at each launch
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    say("3D copy nodes, launch %d: wrong %d, out[5] %d\n", launch, wrong(rows_in, 0, h), out[5]);
  }
  cudaMemcpy3DParms got{};
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(n_in, &got));
  expect(same_params(got, in), "a host 3D copy node's parameters read back as added");
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(n_to_array, &got));
  expect(same_params(got, to_array), "an array copy node's parameters read back as added");

  // An executable graph's copy node takes new parameters only where its copy and the new one are
  // both 1-D, as CUDA documents (the 1D node sets are below, in the symbol and child graph parts):
  // a set of the 3D host-rows node is refused, and the refusal printed.
  cudaMemcpy3DParms moved_rows = in;
  moved_rows.srcPtr.ptr = rows_in.data() + pitch;
  say("exec set of a 3D host copy node: %s\n",
      cudaGetErrorName(cudaGraphExecMemcpyNodeSetParams(exec, n_in, &moved_rows)));
  cudaGetLastError();
  // The graph's array node copies only the array's first 4 rows, to the linear buffer's last 4.
  cudaMemcpy3DParms part = from_array;
  part.dstPtr.ptr = linear + (h - 4) * w;
  part.extent = make_cudaExtent(w, 4, 1);
  CHECK_CUDA(cudaGraphMemcpyNodeSetParams(n_from_array, &part));
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(n_from_array, &got));
  expect(same_params(got, part), "a graph copy node's set parameters read back");
  CHECK_CUDA(cudaMemset(linear, 0, w * h * sizeof(int)));
  cudaGraphExec_t exec2;
  CHECK_CUDA(cudaGraphInstantiate(&exec2, g, 0));
  CHECK_CUDA(cudaGraphLaunch(exec2, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  int moved = 0;
  for (int y = h - 4; y < h; ++y)
    for (int x = 0; x < w; ++x) moved += out[y * w + x] == rows_in[(y - (h - 4)) * pitch + x] + y * w + x;
  say("graph copy node set: %d of %d moved, out[0] %d\n", moved, 4 * w, out[0]);

  // The graph's array node set to a 1D copy: one row of the pitched device memory.
  CHECK_CUDA(cudaGraphMemcpyNodeSetParams1D(n_from_array, linear, dev_rows, w * sizeof(int),
                                            cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(n_from_array, &got));
  expect(got.dstPtr.ptr == linear && got.srcPtr.ptr == dev_rows && got.srcArray == nullptr,
         "a 1D set's copy read back");

  // A device-to-host node into host rows with gaps: the rows are written, the gaps left as they were.
  std::vector<int> rows_back(pitch * h, -7);
  cudaMemcpy3DParms to_rows = in;
  to_rows.srcPtr = in.dstPtr;
  to_rows.dstPtr = make_cudaPitchedPtr(rows_back.data(), pitch * sizeof(int), w * sizeof(int), h);
  to_rows.kind = cudaMemcpyDeviceToHost;
  cudaGraph_t g3;
  CHECK_CUDA(cudaGraphCreate(&g3, 0));
  cudaGraphNode_t n_rows;
  CHECK_CUDA(cudaGraphAddMemcpyNode(&n_rows, g3, nullptr, 0, &to_rows));
  cudaGraphExec_t exec3;
  CHECK_CUDA(cudaGraphInstantiate(&exec3, g3, 0));
  CHECK_CUDA(cudaGraphLaunch(exec3, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  int rows_right = 0, gaps_kept = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < pitch; ++x) {
      if (x < w) rows_right += rows_back[y * pitch + x] == rows_in[y * pitch + x];
      else gaps_kept += rows_back[y * pitch + x] == -7;
    }
  say("D2H node into pitched host rows: %d of %d right, %d of %d gaps kept\n", rows_right, w * h, gaps_kept,
      (pitch - w) * h);
  CHECK_CUDA(cudaGraphExecDestroy(exec3));
  CHECK_CUDA(cudaGraphDestroy(g3));

  // Host copy nodes inside a child graph, at each launch of the parent, then with the executable's
  // child node set to another child graph.
  std::vector<int> child_in(w), child2_in(w), child_out(w, -1);
  for (int x = 0; x < w; ++x) child_in[x] = x * x, child2_in[x] = -x;
  cudaGraph_t child, child2, parent;
  cudaGraphNode_t c_in, c_out, c2_in, c2_out, child_node;
  CHECK_CUDA(cudaGraphCreate(&child, 0));
  CHECK_CUDA(cudaGraphCreate(&child2, 0));
  CHECK_CUDA(cudaGraphCreate(&parent, 0));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&c_in, child, nullptr, 0, linear, child_in.data(), w * sizeof(int),
                                      cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&c_out, child, &c_in, 1, child_out.data(), linear, w * sizeof(int),
                                      cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&c2_in, child2, nullptr, 0, linear, child2_in.data(), w * sizeof(int),
                                      cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&c2_out, child2, &c2_in, 1, child_out.data(), linear, w * sizeof(int),
                                      cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaGraphAddChildGraphNode(&child_node, parent, nullptr, 0, child));
  cudaGraphExec_t exec4;
  CHECK_CUDA(cudaGraphInstantiate(&exec4, parent, 0));
  for (int launch = 0; launch < 2; ++launch) {
    child_in[3] = 500 + launch;
    CHECK_CUDA(cudaGraphLaunch(exec4, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    say("child graph host copies, launch %d: same %s, out[3] %d\n", launch, child_out == child_in ? "yes" : "no",
        child_out[3]);
  }
  CHECK_CUDA(cudaGraphExecChildGraphNodeSetParams(exec4, child_node, child2));
  child2_in[6] = 77;
  CHECK_CUDA(cudaGraphLaunch(exec4, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("child graph set: same %s, out[6] %d\n", child_out == child2_in ? "yes" : "no", child_out[6]);
  CHECK_CUDA(cudaGraphExecDestroy(exec4));
  CHECK_CUDA(cudaGraphDestroy(parent));
  CHECK_CUDA(cudaGraphDestroy(child2));
  CHECK_CUDA(cudaGraphDestroy(child));

  CHECK_CUDA(cudaGraphExecDestroy(exec2));
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(g));
  CHECK_CUDA(cudaFreeArray(array));
  CHECK_CUDA(cudaFree(dev_rows));
  CHECK_CUDA(cudaFree(linear));
}

// An allocation node's memory: filled from the host, += 1 by a kernel, copied to memory that
// outlives the launch, then freed by a free node; at each of two launches.
static void memory_nodes(cudaStream_t stream) {
  const int n = 4096;
  std::vector<int> in(n), out(n, -1);
  for (int i = 0; i < n; ++i) in[i] = 5 * i % 101;
  int* kept;
  CHECK_CUDA(cudaMalloc(&kept, n * sizeof(int)));
  cudaGraph_t g;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  cudaMemAccessDesc access{};
  access.location = {cudaMemLocationTypeDevice, 0};
  access.flags = cudaMemAccessFlagsProtReadWrite;
  cudaMemAllocNodeParams ap{};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location = {cudaMemLocationTypeDevice, 0};
  ap.accessDescs = &access;
  ap.accessDescCount = 1;
  ap.bytesize = n * sizeof(int);
  cudaGraphNode_t alloc, fill, k_one, keep, release, back;
  CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  expect(ap.dptr != nullptr, "the allocation node's address");
  int* mem = static_cast<int*>(ap.dptr);
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&fill, g, &alloc, 1, mem, in.data(), ap.bytesize, cudaMemcpyHostToDevice));
  int count = n;
  void* args[] = {&mem, &count};
  cudaKernelNodeParams kp{};
  kp.func = reinterpret_cast<void*>(add_one);
  kp.gridDim = dim3(n / 256);
  kp.blockDim = dim3(256);
  kp.kernelParams = args;
  CHECK_CUDA(cudaGraphAddKernelNode(&k_one, g, &fill, 1, &kp));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&keep, g, &k_one, 1, kept, mem, ap.bytesize, cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaGraphAddMemFreeNode(&release, g, &keep, 1, mem));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&back, g, &keep, 1, out.data(), kept, ap.bytesize, cudaMemcpyDeviceToHost));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  for (int launch = 0; launch < 2; ++launch) {
    in[9] = 2000 + launch;
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += out[i] != in[i] + 1;
    say("memory nodes, launch %d: wrong %d, out[9] %d\n", launch, wrong, out[9]);
  }
  cudaMemAllocNodeParams got{};
  CHECK_CUDA(cudaGraphMemAllocNodeGetParams(alloc, &got));
  expect(got.dptr == ap.dptr && got.bytesize == ap.bytesize && got.poolProps.location.id == 0 &&
             got.accessDescCount == 1 && got.accessDescs && got.accessDescs->flags == cudaMemAccessFlagsProtReadWrite,
         "the allocation node's parameters read back");
  void* freed = nullptr;
  CHECK_CUDA(cudaGraphMemFreeNodeGetParams(release, &freed));
  expect(freed == ap.dptr, "the free node's address read back");
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(g));
  CHECK_CUDA(cudaFree(kept));
}

// A kernel node's parameters as added, then as set.
static void kernel_node_params(int* data) {
  cudaGraph_t g;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  int count = 64, factor = 7;
  void* args[] = {&data, &count, &factor};
  cudaKernelNodeParams kp{};
  kp.func = reinterpret_cast<void*>(scale);
  kp.gridDim = dim3(2);
  kp.blockDim = dim3(32);
  kp.kernelParams = args;
  cudaGraphNode_t node;
  CHECK_CUDA(cudaGraphAddKernelNode(&node, g, nullptr, 0, &kp));
  factor = 9;  // the node keeps its own copy of the arguments
  cudaKernelNodeParams got{};
  CHECK_CUDA(cudaGraphKernelNodeGetParams(node, &got));
  say("kernel node params: func %s, grid %u, block %u, shared %u, args %s %d %d\n",
      got.func == kp.func ? "same" : "other", got.gridDim.x, got.blockDim.x, got.sharedMemBytes,
      *static_cast<int**>(got.kernelParams[0]) == data ? "data" : "other", *static_cast<int*>(got.kernelParams[1]),
      *static_cast<int*>(got.kernelParams[2]));
  kp.gridDim = dim3(4);
  CHECK_CUDA(cudaGraphKernelNodeSetParams(node, &kp));
  CHECK_CUDA(cudaGraphKernelNodeGetParams(node, &got));
  say("kernel node params after set: grid %u, factor %d\n", got.gridDim.x, *static_cast<int*>(got.kernelParams[2]));
  CHECK_CUDA(cudaGraphDestroy(g));
}

static std::atomic<int> g_destroyed{0};
static void CUDART_CB count_destroyed(void*) { ++g_destroyed; }
static void CUDART_CB slow_host(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }
// Destructors run asynchronously: waits up to two seconds for the count to reach `n`.
static int destroyed_after_wait(int n) {
  for (int i = 0; i < 200 && g_destroyed < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return g_destroyed;
}

// A user object moved into a graph: the clone and the executable graph own copies, so the
// destructor runs only once all of them are gone, the executable graph's launched work done.
static void user_objects(cudaStream_t stream) {
  cudaUserObject_t obj;
  CHECK_CUDA(cudaUserObjectCreate(&obj, nullptr, count_destroyed, 1, cudaUserObjectNoDestructorSync));
  CHECK_CUDA(cudaUserObjectRetain(obj, 2));
  CHECK_CUDA(cudaUserObjectRelease(obj, 2));
  cudaGraph_t g, clone;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  cudaHostNodeParams hp{slow_host, nullptr};
  cudaGraphNode_t node;
  CHECK_CUDA(cudaGraphAddHostNode(&node, g, nullptr, 0, &hp));
  CHECK_CUDA(cudaGraphRetainUserObject(g, obj, 1, cudaGraphUserObjectMove));
  CHECK_CUDA(cudaGraphClone(&clone, g));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  CHECK_CUDA(cudaGraphDestroy(g));
  CHECK_CUDA(cudaGraphReleaseUserObject(clone, obj, 1));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  say("user object: destructors before the executable graph is destroyed: %d\n", g_destroyed.load());
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  say("user object: destructors once it is destroyed: %d\n", destroyed_after_wait(1));
  CHECK_CUDA(cudaGraphDestroy(clone));
}

// The graph as DOT text, in a file of our own.
static void dot_print(cudaGraph_t graph) {
  char path[] = "/tmp/35_graph_nodes_XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  CHECK_CUDA(cudaGraphDebugDotPrint(graph, path, cudaGraphDebugDotFlagsVerbose));
  std::ifstream f(path);
  std::string dot((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::remove(path);
  expect(dot.rfind("digraph", 0) == 0 && dot.find("->") != std::string::npos, "graph printed as DOT with edges");
}

static int wrong_values(const std::vector<int>& in, const std::vector<int>& out, int factor) {
  int wrong = 0;
  for (size_t i = 0; i < in.size(); ++i)
    if (out[i] != in[i] * factor + static_cast<int>(i) + 1) ++wrong;
  return wrong;
}

int main() {
  const int n = 1 << 14;
  const size_t bytes = n * sizeof(int);
  std::vector<int> in(n), out(n, -1);
  for (int i = 0; i < n; ++i) in[i] = i % 97;
  int *a, *b;
  CHECK_CUDA(cudaMalloc(&a, bytes));
  CHECK_CUDA(cudaMalloc(&b, bytes));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t ev;
  CHECK_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));

  // in (pageable) -> a; a *= factor; b = 0 (memset); b <- a; b += i; record ev; child { wait ev;
  // b += 1 }; then a host node and b -> out (pageable), joined by an empty node.
  cudaGraph_t graph;
  CHECK_CUDA(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t copy_in, k_scale, memset_b, copy_dd, k_index, record, child, host, copy_out, join;
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_in, graph, nullptr, 0, a, in.data(), bytes, cudaMemcpyHostToDevice));
  int count = n, factor = 3;
  void* scale_args[] = {&a, &count, &factor};
  cudaKernelNodeParams kp{};
  kp.func = reinterpret_cast<void*>(scale);
  kp.gridDim = dim3(n / 256);
  kp.blockDim = dim3(256);
  kp.kernelParams = scale_args;
  CHECK_CUDA(cudaGraphAddKernelNode(&k_scale, graph, &copy_in, 1, &kp));
  cudaMemsetParams mp{};
  mp.dst = b;
  mp.value = 0;
  mp.elementSize = sizeof(int);
  mp.width = n;
  mp.height = 1;
  CHECK_CUDA(cudaGraphAddMemsetNode(&memset_b, graph, nullptr, 0, &mp));
  cudaGraphNode_t before_dd[] = {k_scale, memset_b};
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_dd, graph, before_dd, 2, b, a, bytes, cudaMemcpyDeviceToDevice));
  void* index_args[] = {&b, &count};
  cudaKernelNodeParams ip = kp;
  ip.func = reinterpret_cast<void*>(add_index);
  ip.kernelParams = index_args;
  CHECK_CUDA(cudaGraphAddKernelNode(&k_index, graph, &copy_dd, 1, &ip));
  CHECK_CUDA(cudaGraphAddEventRecordNode(&record, graph, &k_index, 1, ev));

  cudaGraph_t body;
  CHECK_CUDA(cudaGraphCreate(&body, 0));
  cudaGraphNode_t wait_node, k_one;
  CHECK_CUDA(cudaGraphAddEventWaitNode(&wait_node, body, nullptr, 0, ev));
  cudaKernelNodeParams op = kp;
  op.func = reinterpret_cast<void*>(add_one);
  op.kernelParams = index_args;
  CHECK_CUDA(cudaGraphAddKernelNode(&k_one, body, &wait_node, 1, &op));
  CHECK_CUDA(cudaGraphAddChildGraphNode(&child, graph, &record, 1, body));

  HostLog log;
  cudaHostNodeParams hp{host_tag1, &log};
  CHECK_CUDA(cudaGraphAddHostNode(&host, graph, &child, 1, &hp));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_out, graph, &child, 1, out.data(), b, bytes, cudaMemcpyDeviceToHost));
  cudaGraphNode_t before_join[] = {host, copy_out};
  CHECK_CUDA(cudaGraphAddEmptyNode(&join, graph, before_join, 2));

  // The graph as the program built it.
  size_t nodes = 0, roots = 0, edges = 0, deps = 0, dependents = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK_CUDA(cudaGraphGetRootNodes(graph, nullptr, &roots));
  CHECK_CUDA(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
  say("nodes %zu, roots %zu, edges %zu\n", nodes, roots, edges);
  std::vector<cudaGraphNode_t> all(nodes);
  CHECK_CUDA(cudaGraphGetNodes(graph, all.data(), &nodes));
  int named = 0;
  for (cudaGraphNode_t held : {copy_in, k_scale, memset_b, copy_dd, k_index, record, child, host, copy_out, join})
    named += std::count(all.begin(), all.end(), held) == 1;
  expect(named == 10, "nodes are named by the handles their adds returned");
  cudaGraphNode_t got[2] = {};
  deps = 2;
  CHECK_CUDA(cudaGraphNodeGetDependencies(copy_dd, got, nullptr, &deps));
  expect(deps == 2 && ((got[0] == k_scale && got[1] == memset_b) || (got[0] == memset_b && got[1] == k_scale)),
         "the device-to-device copy depends on the kernel and the memset");
  dependents = 2;
  CHECK_CUDA(cudaGraphNodeGetDependentNodes(child, got, nullptr, &dependents));
  expect(dependents == 2 && ((got[0] == host && got[1] == copy_out) || (got[0] == copy_out && got[1] == host)),
         "the child graph is followed by the host node and the copy out");
  std::vector<cudaGraphNode_t> from(edges), to(edges);
  CHECK_CUDA(cudaGraphGetEdges(graph, from.data(), to.data(), nullptr, &edges));
  bool edge_found = false;
  for (size_t i = 0; i < edges; ++i) edge_found |= from[i] == record && to[i] == child;
  expect(edge_found, "the edge event record -> child graph is listed");
  cudaGraphNodeType type;
  CHECK_CUDA(cudaGraphNodeGetType(k_scale, &type));
  expect(type == cudaGraphNodeTypeKernel, "kernel node type");
  CHECK_CUDA(cudaGraphNodeGetType(copy_out, &type));
  expect(type == cudaGraphNodeTypeMemcpy, "device-to-host copy node type");
  cudaEvent_t ev_got;
  CHECK_CUDA(cudaGraphEventRecordNodeGetEvent(record, &ev_got));
  expect(ev_got == ev, "the event record node's event");
  cudaGraph_t child_graph;
  CHECK_CUDA(cudaGraphChildGraphNodeGetGraph(child, &child_graph));
  size_t child_nodes = 0;
  CHECK_CUDA(cudaGraphGetNodes(child_graph, nullptr, &child_nodes));
  say("child graph nodes %zu\n", child_nodes);
  cudaHostNodeParams hp_got{};
  CHECK_CUDA(cudaGraphHostNodeGetParams(host, &hp_got));
  expect(hp_got.fn == host_tag1 && hp_got.userData == &log, "the host node's function and data");

  // Launched: each launch reads `in` as it is at launch time and writes `out`.
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 3; ++launch) {
    for (int i = 0; i < n; ++i) in[i] = (i % 97) + launch * 1000;
    std::fill(out.begin(), out.end(), -1);
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    say("launch %d: wrong %d, out[5] %d, host calls %d\n", launch, wrong_values(in, out, 3), out[5], log.calls);
  }

  // The executable's nodes changed in place: factor 5, the second host function.
  factor = 5;
  CHECK_CUDA(cudaGraphExecKernelNodeSetParams(exec, k_scale, &kp));
  hp.fn = host_tag2;
  CHECK_CUDA(cudaGraphExecHostNodeSetParams(exec, host, &hp));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("exec set params: wrong %d, host tag %d\n", wrong_values(in, out, 5), log.last_tag);

  // The graph's nodes changed (factor 7, back to the first host function), then the executable
  // updated from the graph.
  factor = 7;
  CHECK_CUDA(cudaGraphKernelNodeSetParams(k_scale, &kp));
  hp.fn = host_tag1;
  CHECK_CUDA(cudaGraphHostNodeSetParams(host, &hp));
  cudaGraphExecUpdateResultInfo info{};
  CHECK_CUDA(cudaGraphExecUpdate(exec, graph, &info));
  expect(info.result == cudaGraphExecUpdateSuccess && info.errorNode == nullptr, "cudaGraphExecUpdate succeeded");
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("exec update: wrong %d, host tag %d\n", wrong_values(in, out, 7), log.last_tag);

  // A clone, found node by node, instantiated on its own.
  cudaGraph_t clone;
  CHECK_CUDA(cudaGraphClone(&clone, graph));
  cudaGraphNode_t k_scale_clone;
  CHECK_CUDA(cudaGraphNodeFindInClone(&k_scale_clone, k_scale, clone));
  expect(k_scale_clone != k_scale, "the clone's kernel node is a node of its own");
  CHECK_CUDA(cudaGraphNodeGetType(k_scale_clone, &type));
  expect(type == cudaGraphNodeTypeKernel, "the clone's node is a kernel node");
  factor = 2;
  CHECK_CUDA(cudaGraphKernelNodeSetParams(k_scale_clone, &kp));
  cudaGraphExec_t clone_exec;
  CHECK_CUDA(cudaGraphInstantiate(&clone_exec, clone, 0));
  for (int i = 0; i < n; ++i) in[i] = i % 13;
  CHECK_CUDA(cudaGraphLaunch(clone_exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("clone: wrong %d\n", wrong_values(in, out, 2));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("original after the clone changed: wrong %d\n", wrong_values(in, out, 7));

  // Symbol copy nodes (host -> __device__ variable -> host) around a kernel that changes it; the
  // graph instantiated with parameters.
  cudaGraph_t sym_graph;
  CHECK_CUDA(cudaGraphCreate(&sym_graph, 0));
  int table_in[16], table_out[16];
  for (int i = 0; i < 16; ++i) table_in[i] = i * i, table_out[i] = -1;
  cudaGraphNode_t to_sym, k_bump, from_sym;
  CHECK_CUDA(cudaGraphAddMemcpyNodeToSymbol(&to_sym, sym_graph, nullptr, 0, table, table_in, sizeof table_in, 0,
                                            cudaMemcpyHostToDevice));
  cudaKernelNodeParams bp{};
  bp.func = reinterpret_cast<void*>(bump_table);
  bp.gridDim = dim3(1);
  bp.blockDim = dim3(16);
  bp.kernelParams = nullptr;
  CHECK_CUDA(cudaGraphAddKernelNode(&k_bump, sym_graph, &to_sym, 1, &bp));
  CHECK_CUDA(cudaGraphAddMemcpyNodeFromSymbol(&from_sym, sym_graph, &k_bump, 1, table_out, table, sizeof table_out, 0,
                                              cudaMemcpyDeviceToHost));
  cudaGraphInstantiateParams ip_params{};
  ip_params.uploadStream = stream;
  cudaGraphExec_t sym_exec;
  CHECK_CUDA(cudaGraphInstantiateWithParams(&sym_exec, sym_graph, &ip_params));
  expect(ip_params.result_out == cudaGraphInstantiateSuccess && ip_params.errNode_out == nullptr,
         "cudaGraphInstantiateWithParams reports success");
  CHECK_CUDA(cudaGraphLaunch(sym_exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  int sym_sum = 0;
  for (int v : table_out) sym_sum += v;
  say("symbol nodes: table_out[3] %d, sum %d\n", table_out[3], sym_sum);
  // Symbol copy nodes set: the executable's copy in reads other host memory, then the graph's (for
  // an executable made afterwards); the copies out set to what they were.
  int table_in2[16], table_in3[16];
  for (int i = 0; i < 16; ++i) table_in2[i] = 2 * i, table_in3[i] = 3 * i;
  CHECK_CUDA(cudaGraphExecMemcpyNodeSetParamsToSymbol(sym_exec, to_sym, table, table_in2, sizeof table_in2, 0,
                                                      cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaGraphExecMemcpyNodeSetParamsFromSymbol(sym_exec, from_sym, table_out, table, sizeof table_out, 0,
                                                        cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaGraphLaunch(sym_exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("exec symbol node set: table_out[3] %d\n", table_out[3]);
  CHECK_CUDA(cudaGraphMemcpyNodeSetParamsToSymbol(to_sym, table, table_in3, sizeof table_in3, 0,
                                                  cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaGraphMemcpyNodeSetParamsFromSymbol(from_sym, table_out, table, sizeof table_out, 0,
                                                    cudaMemcpyDeviceToHost));
  cudaGraphExec_t sym_exec2;
  CHECK_CUDA(cudaGraphInstantiate(&sym_exec2, sym_graph, 0));
  CHECK_CUDA(cudaGraphLaunch(sym_exec2, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("graph symbol node set: table_out[3] %d\n", table_out[3]);
  CHECK_CUDA(cudaGraphLaunch(sym_exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("the earlier executable: table_out[3] %d\n", table_out[3]);
  CHECK_CUDA(cudaGraphExecDestroy(sym_exec2));
  CHECK_CUDA(cudaGraphExecDestroy(sym_exec));
  CHECK_CUDA(cudaGraphDestroy(sym_graph));

  // A WHILE node: its body runs until the device counter reaches the limit.
  int* counter;
  CHECK_CUDA(cudaMalloc(&counter, sizeof(int)));
  CHECK_CUDA(cudaMemset(counter, 0, sizeof(int)));
  cudaGraph_t loop;
  CHECK_CUDA(cudaGraphCreate(&loop, 0));
  cudaGraphConditionalHandle handle;
  CHECK_CUDA(cudaGraphConditionalHandleCreate(&handle, loop, 0, 0));
  int limit = 10;
  void* start_args[] = {&counter, &limit, &handle};
  cudaKernelNodeParams sp{};
  sp.func = reinterpret_cast<void*>(count_start);
  sp.gridDim = dim3(1);
  sp.blockDim = dim3(1);
  sp.kernelParams = start_args;
  cudaGraphNode_t start, cond;
  CHECK_CUDA(cudaGraphAddKernelNode(&start, loop, nullptr, 0, &sp));
  cudaGraphNodeParams cp{};
  cp.type = cudaGraphNodeTypeConditional;
  cp.conditional.handle = handle;
  cp.conditional.type = cudaGraphCondTypeWhile;
  cp.conditional.size = 1;
  CHECK_CUDA(cudaGraphAddNode(&cond, loop, &start, nullptr, 1, &cp));
  cudaGraphNode_t step;
  cudaKernelNodeParams stepp = sp;
  stepp.func = reinterpret_cast<void*>(count_step);
  CHECK_CUDA(cudaGraphAddKernelNode(&step, cp.conditional.phGraph_out[0], nullptr, 0, &stepp));
  cudaGraphExec_t loop_exec;
  CHECK_CUDA(cudaGraphInstantiate(&loop_exec, loop, 0));
  int counted = 0;
  for (int round = 0; round < 2; ++round) {
    CHECK_CUDA(cudaGraphLaunch(loop_exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(&counted, counter, sizeof(int), cudaMemcpyDeviceToHost));
    // The second launch finds the counter at the limit: the body does not run.
    say("while loop, launch %d: counter %d\n", round, counted);
  }
  CHECK_CUDA(cudaMemset(counter, 0, sizeof(int)));
  limit = 4;
  CHECK_CUDA(cudaGraphExecKernelNodeSetParams(loop_exec, start, &sp));
  CHECK_CUDA(cudaGraphLaunch(loop_exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemcpy(&counted, counter, sizeof(int), cudaMemcpyDeviceToHost));
  // The start node now says stop at 4, the body's own kernel still at 10: it runs to 10.
  say("while loop, start limit lowered to 4: counter %d\n", counted);

  copy_nodes_3d(stream);
  memory_nodes(stream);
  kernel_node_params(a);
  user_objects(stream);
  dot_print(graph);

  CHECK_CUDA(cudaGraphExecDestroy(loop_exec));
  CHECK_CUDA(cudaGraphDestroy(loop));
  CHECK_CUDA(cudaGraphExecDestroy(clone_exec));
  CHECK_CUDA(cudaGraphDestroy(clone));
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaGraphDestroy(body));
  CHECK_CUDA(cudaEventDestroy(ev));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(counter));
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  return finish("35_graph_nodes");
}
