// Graphs built node by node, through rgpud --emulate (the emulated device records kernels without
// running them, so what is checked is what the client sees: nodes made, refused, named and ordered,
// host functions run at each launch in dependency order; copy nodes do copy, so their bytes are
// checked after each launch, through memory that allocation nodes allocate too); kernel nodes'
// parameters read back; user objects' references through graphs, clones, child nodes, executable
// graphs and updates, and when their destructors run; a graph printed as DOT. Prints one line per
// check; the first failure ends it with status 1.
#include <cuda_runtime.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "tour_checks.h"

__global__ void scale(float* data, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= f;
}

static std::vector<int> g_order;
static void CUDART_CB note(void* arg) { g_order.push_back(*static_cast<int*>(arg)); }

static bool same_params(const cudaMemcpy3DParms& a, const cudaMemcpy3DParms& b) {
  return a.srcArray == b.srcArray && a.dstArray == b.dstArray && a.srcPtr.ptr == b.srcPtr.ptr &&
         a.srcPtr.pitch == b.srcPtr.pitch && a.dstPtr.ptr == b.dstPtr.ptr && a.dstPtr.pitch == b.dstPtr.pitch &&
         a.srcPos.x == b.srcPos.x && a.srcPos.y == b.srcPos.y && a.dstPos.x == b.dstPos.x &&
         a.extent.width == b.extent.width && a.extent.height == b.extent.height && a.extent.depth == b.extent.depth &&
         a.kind == b.kind;
}

// Copy nodes of every shape: pitched host rows -> pitched device memory (3D, through a mirror) ->
// a CUDA array -> linear device memory -> contiguous host memory (1D, through a mirror); then their
// parameters read back and set, in the graph and in an executable graph.
static int copy_nodes(cudaStream_t s) {
  constexpr int kW = 8, kH = 4;  // floats per row, rows
  float host_in[kH][kW + 3];     // host rows 11 floats apart: a pitched host range
  float other_in[kH][kW + 3];
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW + 3; ++x) host_in[y][x] = float(100 * y + x), other_in[y][x] = float(-1 - 100 * y - x);
  float host_out[kH * kW] = {};
  void* pitched_dev = nullptr;
  size_t dev_pitch = 0;
  CHECK_CUDA(cudaMallocPitch(&pitched_dev, &dev_pitch, kW * sizeof(float), kH));
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array = nullptr;
  CHECK_CUDA(cudaMallocArray(&array, &desc, kW, kH));
  float* linear = nullptr;
  CHECK_CUDA(cudaMalloc(&linear, kW * kH * sizeof(float)));
  CHECK_CUDA(cudaMemset(linear, 0, kW * kH * sizeof(float)));

  cudaGraph_t g;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  cudaMemcpy3DParms in{};
  in.srcPtr = make_cudaPitchedPtr(&host_in[0][0], (kW + 3) * sizeof(float), kW * sizeof(float), kH);
  in.dstPtr = make_cudaPitchedPtr(pitched_dev, dev_pitch, kW * sizeof(float), kH);
  in.extent = make_cudaExtent(kW * sizeof(float), kH, 1);
  in.kind = cudaMemcpyHostToDevice;
  cudaMemcpy3DParms to_array{};
  to_array.srcPtr = in.dstPtr;
  to_array.dstArray = array;
  to_array.extent = make_cudaExtent(kW, kH, 1);  // elements of the array
  to_array.kind = cudaMemcpyDeviceToDevice;
  cudaMemcpy3DParms from_array{};
  from_array.srcArray = array;
  from_array.dstPtr = make_cudaPitchedPtr(linear, kW * sizeof(float), kW * sizeof(float), kH);
  from_array.extent = make_cudaExtent(kW, kH, 1);
  from_array.kind = cudaMemcpyDefault;
  cudaGraphNode_t n_in, n_to_array, n_from_array, n_out;
  CHECK_CUDA(cudaGraphAddMemcpyNode(&n_in, g, nullptr, 0, &in));
  CHECK_CUDA(cudaGraphAddMemcpyNode(&n_to_array, g, &n_in, 1, &to_array));
  CHECK_CUDA(cudaGraphAddMemcpyNode(&n_from_array, g, &n_to_array, 1, &from_array));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&n_out, g, &n_from_array, 1, host_out, linear, sizeof host_out,
                                      cudaMemcpyDeviceToHost));
  cudaGraphNodeType type;
  CHECK_CUDA(cudaGraphNodeGetType(n_to_array, &type));
  EXPECT(type == cudaGraphNodeTypeMemcpy, "a 3D copy node's type");

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  bool same = true;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) same = same && host_out[y * kW + x] == host_in[y][x];
  EXPECT(same, "pitched host rows -> pitched device -> array -> device -> host, by copy nodes in one launch");
  host_in[2][5] = 4242.f;  // an H2D node reads the host rows at each launch
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  EXPECT(host_out[2 * kW + 5] == 4242.f, "an H2D copy node reads the host rows again at the next launch");

  cudaMemcpy3DParms got{};
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(n_in, &got));
  EXPECT(same_params(got, in), "cudaGraphMemcpyNodeGetParams answers a host 3D node's parameters as added");
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(n_from_array, &got));
  EXPECT(same_params(got, from_array), "cudaGraphMemcpyNodeGetParams answers an array node's parameters as added");
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(n_out, &got));
  EXPECT(got.dstPtr.ptr == host_out && got.srcPtr.ptr == linear && got.extent.width == sizeof host_out &&
             got.extent.height == 1 && got.extent.depth == 1 && got.kind == cudaMemcpyDeviceToHost,
         "a 1D copy node's parameters read back in their 3D form");

  // The executable graph's H2D node (3D host rows) takes no new parameters: CUDA sets a copy node
  // of an executable graph only where its copy and the new one are both 1-D.
  cudaMemcpy3DParms in2 = in;
  in2.srcPtr.ptr = &other_in[0][0];
  cudaGraphNodeParams generic{};  // through the generic setter, which calls the copy node's
  generic.type = cudaGraphNodeTypeMemcpy;
  generic.memcpy.copyParams = in2;
  EXPECT(cudaGraphExecNodeSetParams(exec, n_in, &generic) == cudaErrorInvalidValue,
         "an executable graph's 3D host copy node refuses new parameters (CUDA sets only 1-D copies there)");
  cudaGetLastError();
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  EXPECT(host_out[1 * kW + 3] == host_in[1][3] && host_out[3 * kW + 7] == host_in[3][7],
         "the refused set changed nothing: the node still reads its own host rows");
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(n_in, &got));
  EXPECT(same_params(got, in), "the graph's node is as it was added");
  cudaGraphExec_t exec2;
  CHECK_CUDA(cudaGraphInstantiate(&exec2, g, 0));
  CHECK_CUDA(cudaGraphLaunch(exec2, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  EXPECT(host_out[1 * kW + 3] == host_in[1][3], "an executable graph made afterwards copies the graph's host rows");

  // The graph's array node set to copy only the array's first row into the linear buffer's last.
  CHECK_CUDA(cudaMemset(linear, 0, kW * kH * sizeof(float)));
  cudaMemcpy3DParms row = from_array;
  row.dstPtr = make_cudaPitchedPtr(linear + (kH - 1) * kW, kW * sizeof(float), kW * sizeof(float), 1);
  row.extent = make_cudaExtent(kW, 1, 1);
  generic.memcpy.copyParams = row;
  CHECK_CUDA(cudaGraphNodeSetParams(n_from_array, &generic));
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(n_from_array, &got));
  EXPECT(same_params(got, row), "cudaGraphNodeSetParams (a copy node's): the getter answers the new parameters");
  cudaGraphExec_t exec3;
  CHECK_CUDA(cudaGraphInstantiate(&exec3, g, 0));
  CHECK_CUDA(cudaGraphLaunch(exec3, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  EXPECT(host_out[(kH - 1) * kW + 2] == host_in[0][2] && host_out[1] == 0.f,
         "a graph's copy node set to new device parameters copies them in executables made afterwards");
  CHECK_CUDA(cudaGraphLaunch(exec2, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  EXPECT(host_out[1] == host_in[0][1], "an executable graph made before the set keeps the node's old copy");
  // The graph's array node set by the 1D call, between device buffers. (Not an executable graph's:
  // CUDA sets an executable graph's copy node only where it was 1-D already, which an array node
  // is not; the real driver refuses it, as the H100 run of 2026-12-06 showed.)
  float* half = linear + kW * kH / 2;
  CHECK_CUDA(cudaGraphMemcpyNodeSetParams1D(n_from_array, half, pitched_dev, kW * sizeof(float),
                                            cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(n_from_array, &got));
  EXPECT(got.dstPtr.ptr == half && got.srcPtr.ptr == pitched_dev && got.extent.width == kW * sizeof(float) &&
             got.kind == cudaMemcpyDeviceToDevice,
         "cudaGraphMemcpyNodeSetParams1D: the getter answers the 1D copy");

  // A child graph's host copies: the parent's launches read the host memory of the child's H2D
  // node and land its D2H node's bytes.
  cudaGraph_t child, parent;
  CHECK_CUDA(cudaGraphCreate(&child, 0));
  CHECK_CUDA(cudaGraphCreate(&parent, 0));
  float child_in[kW], child_out[kW] = {};
  for (int x = 0; x < kW; ++x) child_in[x] = float(x * x);
  cudaGraphNode_t c_in, c_out, child_node;
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&c_in, child, nullptr, 0, linear, child_in, sizeof child_in,
                                      cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&c_out, child, &c_in, 1, child_out, linear, sizeof child_out,
                                      cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaGraphAddChildGraphNode(&child_node, parent, nullptr, 0, child));
  cudaGraphExec_t exec6;
  CHECK_CUDA(cudaGraphInstantiate(&exec6, parent, 0));
  for (int launch = 0; launch < 2; ++launch) {
    child_in[3] = float(500 + launch);
    CHECK_CUDA(cudaGraphLaunch(exec6, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    EXPECT(std::memcmp(child_in, child_out, sizeof child_in) == 0,
           "a child graph's host copy nodes copy at each launch of the parent");
  }
  // The executable's child node set to another child graph: its host copy node reads other memory.
  cudaGraph_t child2;
  CHECK_CUDA(cudaGraphCreate(&child2, 0));
  float child2_in[kW];
  for (int x = 0; x < kW; ++x) child2_in[x] = float(-x);
  cudaGraphNode_t c2_in, c2_out;
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&c2_in, child2, nullptr, 0, linear, child2_in, sizeof child2_in,
                                      cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&c2_out, child2, &c2_in, 1, child_out, linear, sizeof child_out,
                                      cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaGraphExecChildGraphNodeSetParams(exec6, child_node, child2));
  child2_in[6] = 77.f;
  CHECK_CUDA(cudaGraphLaunch(exec6, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  EXPECT(std::memcmp(child2_in, child_out, sizeof child2_in) == 0,
         "cudaGraphExecChildGraphNodeSetParams: the new child's host copies copy at the next launch");
  CHECK_CUDA(cudaGraphExecDestroy(exec6));
  CHECK_CUDA(cudaGraphDestroy(parent));
  CHECK_CUDA(cudaGraphDestroy(child));
  CHECK_CUDA(cudaGraphDestroy(child2));

  // Refusals.
  // A D2H node into host rows with gaps: the rows land, the gaps stay the program's.
  float rows_out[kH][kW + 3];
  for (auto& r : rows_out)
    for (float& v : r) v = -7.f;
  CHECK_CUDA(cudaMemcpy2D(pitched_dev, dev_pitch, host_in, sizeof host_in[0], kW * sizeof(float), kH,
                          cudaMemcpyHostToDevice));
  cudaMemcpy3DParms gaps{};
  gaps.srcPtr = in.dstPtr;
  gaps.dstPtr = make_cudaPitchedPtr(&rows_out[0][0], sizeof rows_out[0], kW * sizeof(float), kH);
  gaps.extent = in.extent;
  gaps.kind = cudaMemcpyDeviceToHost;
  cudaGraph_t g2;
  CHECK_CUDA(cudaGraphCreate(&g2, 0));
  cudaGraphNode_t n_rows;
  CHECK_CUDA(cudaGraphAddMemcpyNode(&n_rows, g2, nullptr, 0, &gaps));
  cudaGraphExec_t exec4;
  CHECK_CUDA(cudaGraphInstantiate(&exec4, g2, 0));
  CHECK_CUDA(cudaGraphLaunch(exec4, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  bool rows_ok = true;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW + 3; ++x) rows_ok = rows_ok && rows_out[y][x] == (x < kW ? host_in[y][x] : -7.f);
  EXPECT(rows_ok, "a D2H copy node into pitched host rows writes the rows and leaves the gaps between them");
  CHECK_CUDA(cudaGraphExecDestroy(exec4));
  CHECK_CUDA(cudaGraphDestroy(g2));
  // A copy node stream capture made: device-only sets work; what it copies is not the client's to
  // tell, nor may its host side change.
  cudaGraph_t cg;
  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaMemcpyAsync(linear, pitched_dev, kW * sizeof(float), cudaMemcpyDeviceToDevice, s));
  CHECK_CUDA(cudaMemcpyAsync(linear + 2 * kW, pitched_dev, 4, cudaMemcpyDeviceToDevice, s));
  CHECK_CUDA(cudaStreamEndCapture(s, &cg));
  cudaGraphNode_t captured_nodes[2];
  size_t two = 2;
  CHECK_CUDA(cudaGraphGetNodes(cg, captured_nodes, &two));
  cudaGraphNode_t captured = captured_nodes[0];
  CHECK_CUDA(cudaGraphMemcpyNodeSetParams1D(captured, linear + kW, pitched_dev, kW * sizeof(float),
                                            cudaMemcpyDeviceToDevice));
  cudaGraphExec_t exec5;
  CHECK_CUDA(cudaGraphInstantiate(&exec5, cg, 0));
  CHECK_CUDA(cudaMemset(linear, 0, kW * kH * sizeof(float)));
  CHECK_CUDA(cudaGraphLaunch(exec5, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  float two_rows[2 * kW];
  CHECK_CUDA(cudaMemcpy(two_rows, linear, sizeof two_rows, cudaMemcpyDeviceToHost));
  EXPECT(two_rows[kW + 1] == host_in[0][1] && two_rows[1] == 0.f,
         "a captured copy node takes device parameters set by cudaGraphMemcpyNodeSetParams1D");
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(captured, &got));
  EXPECT(got.dstPtr.ptr == linear + kW && got.extent.width == kW * sizeof(float),
         "a captured copy node's parameters, once set, read back");
  EXPECT(cudaGraphMemcpyNodeGetParams(captured_nodes[1], &got) == cudaErrorNotSupported,
         "cudaGraphMemcpyNodeGetParams of a captured copy node never set is refused as not supported");
  cudaGetLastError();
  EXPECT(cudaGraphMemcpyNodeSetParams1D(captured, linear, host_out, 4, cudaMemcpyHostToDevice) ==
             cudaErrorNotSupported,
         "a set that gives a captured copy node host memory is refused as not supported");
  cudaGetLastError();
  CHECK_CUDA(cudaGraphExecDestroy(exec5));
  CHECK_CUDA(cudaGraphDestroy(cg));

  cudaGraphNode_t refused;
  EXPECT(cudaGraphMemcpyNodeSetParams(n_to_array, &in) == cudaErrorNotSupported,
         "a set that gives a device copy node host memory is refused as not supported");
  cudaGetLastError();
  EXPECT(cudaGraphMemcpyNodeSetParams1D(n_out, host_out, linear, 4, cudaMemcpyDeviceToHost) ==
             cudaErrorNotSupported,
         "a set that changes a host copy node's size is refused as not supported");
  cudaGetLastError();
  EXPECT(cudaGraphMemcpyNodeSetParams1D(n_out, other_in, linear, sizeof host_out, cudaMemcpyDeviceToHost) ==
             cudaErrorNotSupported,
         "a set that moves a D2H node's host destination is refused as not supported");
  cudaGetLastError();
  EXPECT(cudaGraphAddMemcpyNode(&refused, g, nullptr, 0, nullptr) == cudaErrorInvalidValue,
         "a copy node without parameters is refused");
  cudaGetLastError();
  cudaMemcpy3DParms wide = to_array;
  wide.extent = make_cudaExtent(kW + 1, kH, 1);
  EXPECT(cudaGraphAddMemcpyNode(&refused, g, nullptr, 0, &wide) == cudaErrorInvalidValue,
         "a copy node past the array's end is refused by the backend");
  cudaGetLastError();
  cudaGraphNode_t empty;
  CHECK_CUDA(cudaGraphAddEmptyNode(&empty, g, nullptr, 0));
  EXPECT(cudaGraphMemcpyNodeGetParams(empty, &got) == cudaErrorInvalidValue,
         "cudaGraphMemcpyNodeGetParams of a node that is no copy node is refused");
  cudaGetLastError();

  CHECK_CUDA(cudaGraphExecDestroy(exec3));
  CHECK_CUDA(cudaGraphExecDestroy(exec2));
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(g));
  CHECK_CUDA(cudaFreeArray(array));
  CHECK_CUDA(cudaFree(pitched_dev));
  CHECK_CUDA(cudaFree(linear));
  return 0;
}

// Memory nodes: an allocation node's memory filled from the host, copied on and freed by a free
// node, in each launch; their getters; refusals.
static int memory_nodes(cudaStream_t s) {
  constexpr int kN = 64;
  int in[kN], out[kN] = {};
  for (int i = 0; i < kN; ++i) in[i] = 3 * i + 1;
  int* kept = nullptr;
  CHECK_CUDA(cudaMalloc(&kept, sizeof in));
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
  ap.bytesize = sizeof in;
  cudaGraphNode_t alloc, fill, keep, release, back;
  CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  EXPECT(ap.dptr != nullptr, "cudaGraphAddMemAllocNode answers the allocation's address");
  cudaPointerAttributes attr{};
  CHECK_CUDA(cudaPointerGetAttributes(&attr, static_cast<char*>(ap.dptr) + 8));
  EXPECT(attr.type == cudaMemoryTypeDevice, "the client knows the allocation node's memory as device memory");
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&fill, g, &alloc, 1, ap.dptr, in, sizeof in, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&keep, g, &fill, 1, kept, ap.dptr, sizeof in, cudaMemcpyDefault));
  CHECK_CUDA(cudaGraphAddMemFreeNode(&release, g, &keep, 1, ap.dptr));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&back, g, &keep, 1, out, kept, sizeof out, cudaMemcpyDeviceToHost));

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  for (int launch = 0; launch < 2; ++launch) {
    in[7] = 1000 + launch;
    CHECK_CUDA(cudaGraphLaunch(exec, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    EXPECT(std::memcmp(in, out, sizeof in) == 0, "host -> allocation node's memory -> device -> host in a launch");
  }

  cudaMemAllocNodeParams got{};
  CHECK_CUDA(cudaGraphMemAllocNodeGetParams(alloc, &got));
  EXPECT(got.dptr == ap.dptr && got.bytesize == sizeof in && got.poolProps.allocType == cudaMemAllocationTypePinned &&
             got.poolProps.location.type == cudaMemLocationTypeDevice && got.poolProps.location.id == 0,
         "cudaGraphMemAllocNodeGetParams answers the allocation as added");
  EXPECT(got.accessDescCount == 1 && got.accessDescs && got.accessDescs != &access &&
             got.accessDescs->location.type == cudaMemLocationTypeDevice &&
             got.accessDescs->flags == cudaMemAccessFlagsProtReadWrite,
         "the access descriptors read back are the runtime's own copy of the program's");
  cudaMemAllocNodeParams again{};
  CHECK_CUDA(cudaGraphMemAllocNodeGetParams(alloc, &again));
  EXPECT(again.accessDescs == got.accessDescs, "the access descriptors stay where they are while the node lives");
  void* freed = nullptr;
  CHECK_CUDA(cudaGraphMemFreeNodeGetParams(release, &freed));
  EXPECT(freed == ap.dptr, "cudaGraphMemFreeNodeGetParams answers the address the free node frees");

  cudaMemAllocNodeParams none = ap;
  none.bytesize = 0;
  cudaGraphNode_t refused;
  EXPECT(cudaGraphAddMemAllocNode(&refused, g, nullptr, 0, &none) == cudaErrorInvalidValue,
         "an allocation node of 0 bytes is refused");
  cudaGetLastError();
  EXPECT(cudaGraphMemAllocNodeGetParams(fill, &got) == cudaErrorInvalidValue,
         "cudaGraphMemAllocNodeGetParams of a copy node is refused");
  cudaGetLastError();
  EXPECT(cudaGraphMemFreeNodeGetParams(fill, &freed) == cudaErrorInvalidValue,
         "cudaGraphMemFreeNodeGetParams of a copy node is refused");
  cudaGetLastError();

  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(g));
  CHECK_CUDA(cudaFree(kept));
  return 0;
}

// User objects (the client's books): the destructor runs once, on a thread of rgpu's, after the last
// reference goes: the graphs' at their destruction, an executable graph's once the work launched from
// it has completed. The graph's one host node takes its time and marks when it is done.
struct Tracked {
  std::atomic<int> destroyed{0};
  std::atomic<bool> after_work{false};  // the work was done when the destructor ran
  std::atomic<bool> after_destroy{false};  // the executable graph had been destroyed
  std::thread::id thread;
};
static std::atomic<bool> g_work_done{false}, g_exec_destroyed{false};
static void CUDART_CB slow_work(void*) {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  g_work_done = true;
}
static void CUDART_CB destroy_tracked(void* p) {
  auto* t = static_cast<Tracked*>(p);
  t->after_work = g_work_done.load();
  t->after_destroy = g_exec_destroyed.load();
  t->thread = std::this_thread::get_id();
  ++t->destroyed;
}
// Destructors run asynchronously: waits up to two seconds for `n` of them.
static bool destroyed_within(const Tracked& t, int n) {
  for (int i = 0; i < 200 && t.destroyed < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return t.destroyed == n;
}
// Long enough for a destructor that should not run to have run.
static void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

static int user_objects(cudaStream_t s) {
  cudaUserObject_t refused;
  Tracked a;
  EXPECT(cudaUserObjectCreate(&refused, &a, destroy_tracked, 1, 0) == cudaErrorInvalidValue,
         "cudaUserObjectCreate requires cudaUserObjectNoDestructorSync");
  cudaGetLastError();
  cudaUserObject_t obj_a;
  CHECK_CUDA(cudaUserObjectCreate(&obj_a, &a, destroy_tracked, 1, cudaUserObjectNoDestructorSync));
  CHECK_CUDA(cudaUserObjectRetain(obj_a, 2));
  CHECK_CUDA(cudaUserObjectRelease(obj_a, 2));
  EXPECT(cudaUserObjectRelease(obj_a, 0) == cudaErrorInvalidValue, "a release of no references is refused");
  cudaGetLastError();
  settle();
  EXPECT(a.destroyed == 0, "retains and releases are counted: one reference left, no destructor");

  // The graph takes the program's reference (a move); its clone and its executable graph own copies.
  cudaGraph_t g, clone;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  cudaHostNodeParams work{slow_work, nullptr};
  cudaGraphNode_t node;
  CHECK_CUDA(cudaGraphAddHostNode(&node, g, nullptr, 0, &work));
  CHECK_CUDA(cudaGraphRetainUserObject(g, obj_a, 1, cudaGraphUserObjectMove));
  EXPECT(cudaGraphReleaseUserObject(g, obj_a, 2) == cudaErrorInvalidValue,
         "a graph cannot release more references than it owns");
  cudaGetLastError();
  CHECK_CUDA(cudaGraphClone(&clone, g));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  CHECK_CUDA(cudaGraphDestroy(g));
  CHECK_CUDA(cudaGraphDestroy(clone));
  settle();
  EXPECT(a.destroyed == 0, "the executable graph's copy of the reference outlives its graph and the clone");
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  g_exec_destroyed = true;
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  EXPECT(destroyed_within(a, 1), "the destructor runs once the executable graph is destroyed");
  EXPECT(a.after_work && a.after_destroy,
         "the destructor ran only after the executable graph's launched work completed and it was destroyed");
  EXPECT(a.thread != std::this_thread::get_id(), "the destructor ran on a thread of rgpu's");
  settle();
  EXPECT(a.destroyed == 1, "the destructor ran exactly once");

  // A clone's references are its own; a child graph node's parent owns the embedded clone's.
  Tracked b;
  cudaUserObject_t obj_b;
  CHECK_CUDA(cudaUserObjectCreate(&obj_b, &b, destroy_tracked, 1, cudaUserObjectNoDestructorSync));
  cudaGraph_t child, parent;
  CHECK_CUDA(cudaGraphCreate(&child, 0));
  CHECK_CUDA(cudaGraphCreate(&parent, 0));
  CHECK_CUDA(cudaGraphRetainUserObject(child, obj_b, 1, 0));
  CHECK_CUDA(cudaGraphAddChildGraphNode(&node, parent, nullptr, 0, child));
  CHECK_CUDA(cudaGraphClone(&clone, child));
  CHECK_CUDA(cudaUserObjectRelease(obj_b, 1));
  CHECK_CUDA(cudaGraphDestroy(child));
  CHECK_CUDA(cudaGraphReleaseUserObject(clone, obj_b, 1));
  settle();
  EXPECT(b.destroyed == 0, "a child graph node's parent owns copies of the child's references");
  CHECK_CUDA(cudaGraphDestroy(parent));
  EXPECT(destroyed_within(b, 1), "the last reference goes with the parent graph");
  CHECK_CUDA(cudaGraphDestroy(clone));

  // cudaGraphExecUpdate: the executable graph's references become the new graph's.
  Tracked c, d;
  cudaUserObject_t obj_c, obj_d;
  CHECK_CUDA(cudaUserObjectCreate(&obj_c, &c, destroy_tracked, 1, cudaUserObjectNoDestructorSync));
  CHECK_CUDA(cudaUserObjectCreate(&obj_d, &d, destroy_tracked, 1, cudaUserObjectNoDestructorSync));
  cudaGraph_t first, second;
  CHECK_CUDA(cudaGraphCreate(&first, 0));
  CHECK_CUDA(cudaGraphCreate(&second, 0));
  CHECK_CUDA(cudaGraphAddEmptyNode(&node, first, nullptr, 0));
  CHECK_CUDA(cudaGraphAddEmptyNode(&node, second, nullptr, 0));
  CHECK_CUDA(cudaGraphRetainUserObject(first, obj_c, 1, cudaGraphUserObjectMove));
  CHECK_CUDA(cudaGraphRetainUserObject(second, obj_d, 1, cudaGraphUserObjectMove));
  CHECK_CUDA(cudaGraphInstantiate(&exec, first, 0));
  CHECK_CUDA(cudaGraphDestroy(first));
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  cudaGraphExecUpdateResultInfo info{};
  CHECK_CUDA(cudaGraphExecUpdate(exec, second, &info));
  CHECK_CUDA(cudaGraphDestroy(second));
  EXPECT(destroyed_within(c, 1), "cudaGraphExecUpdate releases the old graph's references");
  settle();
  EXPECT(d.destroyed == 0, "and the executable graph owns the new graph's");
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  EXPECT(destroyed_within(d, 1), "which go when it is destroyed");
  CHECK_CUDA(cudaStreamSynchronize(s));
  return 0;
}

// cudaGraphDebugDotPrint: the server renders the graph, the file is written here.
static int dot_print() {
  cudaGraph_t g;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  cudaGraphNode_t empty, host;
  CHECK_CUDA(cudaGraphAddEmptyNode(&empty, g, nullptr, 0));
  int one = 1;
  cudaHostNodeParams hp{note, &one};
  CHECK_CUDA(cudaGraphAddHostNode(&host, g, &empty, 1, &hp));
  char path[] = "/tmp/graph_nodes_tour_XXXXXX";
  int fd = mkstemp(path);
  EXPECT(fd >= 0, "a temporary file for the DOT text");
  close(fd);
  CHECK_CUDA(cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose));
  std::ifstream f(path);
  std::string dot((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::remove(path);
  EXPECT(dot.rfind("digraph", 0) == 0 && dot.find("EMPTY") != std::string::npos &&
             dot.find("HOST") != std::string::npos && dot.find("->") != std::string::npos,
         "cudaGraphDebugDotPrint writes the graph's nodes and edges as DOT");
  EXPECT(cudaGraphDebugDotPrint(g, "/nonexistent-dir/graph.dot", 0) == cudaErrorOperatingSystem,
         "cudaGraphDebugDotPrint to a path that cannot be written fails");
  cudaGetLastError();
  CHECK_CUDA(cudaGraphDestroy(g));
  return 0;
}

int main() {
  float* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, 256 * sizeof(float)));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));

  // kernel -> host(1) -> empty -> host(2), built by hand.
  cudaGraph_t g;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  int n = 256;
  float f = 2.f;
  void* args[] = {&d, &n, &f};
  cudaKernelNodeParams kp{};
  kp.func = reinterpret_cast<void*>(scale);
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(256);
  kp.kernelParams = args;
  cudaGraphNode_t kernel, host1, empty, host2;
  CHECK_CUDA(cudaGraphAddKernelNode(&kernel, g, nullptr, 0, &kp));
  // The getter answers the arguments as set, from the client's own copy of them.
  f = 5.f;
  cudaKernelNodeParams kp_got{};
  CHECK_CUDA(cudaGraphKernelNodeGetParams(kernel, &kp_got));
  EXPECT(kp_got.func == kp.func && kp_got.gridDim.x == 1 && kp_got.blockDim.x == 256 && kp_got.sharedMemBytes == 0 &&
             *static_cast<float**>(kp_got.kernelParams[0]) == d && *static_cast<int*>(kp_got.kernelParams[1]) == 256 &&
             *static_cast<float*>(kp_got.kernelParams[2]) == 2.f,
         "cudaGraphKernelNodeGetParams answers the kernel and arguments the node was added with");
  f = 3.f;
  kp.gridDim = dim3(2);
  CHECK_CUDA(cudaGraphKernelNodeSetParams(kernel, &kp));
  CHECK_CUDA(cudaGraphKernelNodeGetParams(kernel, &kp_got));
  EXPECT(kp_got.gridDim.x == 2 && *static_cast<float*>(kp_got.kernelParams[2]) == 3.f,
         "cudaGraphKernelNodeGetParams answers the parameters last set");
  kp.gridDim = dim3(1);
  f = 2.f;
  CHECK_CUDA(cudaGraphKernelNodeSetParams(kernel, &kp));
  int one = 1, two = 2;
  cudaHostNodeParams hp{note, &one};
  CHECK_CUDA(cudaGraphAddHostNode(&host1, g, &kernel, 1, &hp));
  CHECK_CUDA(cudaGraphAddEmptyNode(&empty, g, &host1, 1));
  hp.userData = &two;
  CHECK_CUDA(cudaGraphAddHostNode(&host2, g, &empty, 1, &hp));

  cudaKernelNodeParams bad = kp;
  bad.blockDim = dim3(4096);
  cudaGraphNode_t refused;
  EXPECT(cudaGraphAddKernelNode(&refused, g, nullptr, 0, &bad) == cudaErrorInvalidValue,
         "a kernel node with an oversized block is refused by the call that adds it");
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "the refusal is the thread's last error");
  bad.func = reinterpret_cast<void*>(note);
  EXPECT(cudaGraphAddKernelNode(&refused, g, nullptr, 0, &bad) == cudaErrorInvalidDeviceFunction,
         "a kernel node whose function is no kernel is refused");
  cudaGetLastError();

  size_t count = 0;
  CHECK_CUDA(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 4, "the graph has the four nodes added");
  std::vector<cudaGraphNode_t> nodes(count);
  CHECK_CUDA(cudaGraphGetNodes(g, nodes.data(), &count));
  EXPECT(nodes[0] == kernel && nodes[1] == host1 && nodes[2] == empty && nodes[3] == host2,
         "cudaGraphGetNodes names each node by the handle its add returned");
  // A kernel node's launch attributes: set, read back; the event-holding ones are launches' only
  // (the set is asynchronous: its refusal is the thread's error once a later call has returned).
  cudaLaunchAttributeValue priority{};
  priority.priority = -1;  // within every device's range (greatest -5, least 0 on an H100): CUDA clamps others
  CHECK_CUDA(cudaGraphKernelNodeSetAttribute(kernel, cudaLaunchAttributePriority, &priority));
  cudaLaunchAttributeValue read_back{};
  CHECK_CUDA(cudaGraphKernelNodeGetAttribute(kernel, cudaLaunchAttributePriority, &read_back));
  EXPECT(read_back.priority == -1, "a kernel node's attribute reads back as set");
  cudaLaunchAttributeValue completion{};
  CHECK_CUDA(cudaGraphKernelNodeSetAttribute(kernel, cudaLaunchAttributeLaunchCompletionEvent, &completion));
  CHECK_CUDA(cudaGraphKernelNodeGetAttribute(kernel, cudaLaunchAttributePriority, &read_back));
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "a kernel node refuses an attribute that holds an event");
  EXPECT(cudaGraphKernelNodeGetAttribute(host1, cudaLaunchAttributePriority, &read_back) == cudaErrorInvalidValue,
         "a host node has no launch attributes");
  cudaGetLastError();

  cudaGraphNodeType type;
  CHECK_CUDA(cudaGraphNodeGetType(kernel, &type));
  EXPECT(type == cudaGraphNodeTypeKernel, "a kernel node's type");
  CHECK_CUDA(cudaGraphNodeGetType(host2, &type));
  EXPECT(type == cudaGraphNodeTypeHost, "a host node's type");
  EXPECT(cudaGraphKernelNodeGetParams(host2, &kp_got) == cudaErrorInvalidValue,
         "cudaGraphKernelNodeGetParams of a host node is refused");
  cudaGetLastError();
  cudaHostNodeParams got{};
  CHECK_CUDA(cudaGraphHostNodeGetParams(host2, &got));
  EXPECT(got.fn == note && got.userData == &two, "a host node's parameters are the user's function and data");

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  for (int i = 0; i < 3; ++i) CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  EXPECT((g_order == std::vector<int>{1, 2, 1, 2, 1, 2}), "host nodes ran in dependency order at each of 3 launches");

  // The generic setters go through each kind's own (a copy node's: copy_nodes()); an empty node has none.
  cudaGraphNodeParams generic{};
  generic.type = cudaGraphNodeTypeEmpty;
  EXPECT(cudaGraphNodeSetParams(empty, &generic) == cudaErrorNotSupported, "an empty node has nothing to set");
  cudaGetLastError();

  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(g));
  if (copy_nodes(s) != 0) return 1;
  if (memory_nodes(s) != 0) return 1;
  if (user_objects(s) != 0) return 1;
  if (dot_print() != 0) return 1;
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaFree(d));
  std::printf("ok: graph_nodes_tour\n");
  return 0;
}
