// Emulated runtime: streams, events and elapsed time, host callbacks, capture and graph replay.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "server/backends/emulated/runtime_state.h"
#include "tests/unit/emulated/emulated_test_env.h"

namespace emu = rgpu::server::emulated;
using rgpu::server::emulated::test::FreshDevices;

namespace {
const auto kBogusStream = reinterpret_cast<cudaStream_t>(0x4242);
const auto kBogusEvent = reinterpret_cast<cudaEvent_t>(0x4343);
}  // namespace

TEST_CASE_METHOD(FreshDevices, "streams keep their flags, priority and device", "[emulated]") {
  int least = 1, greatest = 1;
  REQUIRE(emu::cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess);
  CHECK(least == 0);
  CHECK(greatest < least);

  cudaStream_t s = nullptr;
  REQUIRE(emu::cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest - 10) == cudaSuccess);
  int priority = 0;
  unsigned flags = 0;
  int device = -1;
  unsigned long long id = 0;
  REQUIRE(emu::cudaStreamGetPriority(s, &priority) == cudaSuccess);
  CHECK(priority == greatest);  // clamped, as CUDA does
  REQUIRE(emu::cudaStreamGetFlags(s, &flags) == cudaSuccess);
  CHECK(flags == cudaStreamNonBlocking);
  REQUIRE(emu::cudaStreamGetDevice(s, &device) == cudaSuccess);
  CHECK(device == 0);
  REQUIRE(emu::cudaStreamGetId(s, &id) == cudaSuccess);
  CHECK(id > 2);
  CHECK(emu::cudaStreamQuery(s) == cudaSuccess);
  CHECK(emu::cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(emu::cudaStreamQuery(nullptr) == cudaSuccess);
  CHECK(emu::cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess);
  CHECK(emu::cudaStreamCopyAttributes(s, nullptr) == cudaSuccess);
  CHECK(emu::cudaStreamCopyAttributes(s, kBogusStream) == cudaErrorInvalidResourceHandle);
  CHECK(emu::cudaStreamCreateWithFlags(&s, 0x8) == cudaErrorInvalidValue);
  REQUIRE(emu::cudaStreamDestroy(s) == cudaSuccess);
  CHECK(emu::cudaStreamDestroy(s) == cudaErrorInvalidResourceHandle);
  CHECK(emu::cudaStreamQuery(s) == cudaErrorInvalidResourceHandle);
  CHECK(emu::cudaStreamSynchronize(kBogusStream) == cudaErrorInvalidResourceHandle);
}

TEST_CASE_METHOD(FreshDevices, "events record steady-clock times", "[emulated]") {
  cudaEvent_t start = nullptr, stop = nullptr, untimed = nullptr, never = nullptr;
  REQUIRE(emu::cudaEventCreate(&start) == cudaSuccess);
  REQUIRE(emu::cudaEventCreateWithFlags(&stop, cudaEventBlockingSync) == cudaSuccess);
  REQUIRE(emu::cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(emu::cudaEventCreate(&never) == cudaSuccess);
  CHECK(emu::cudaEventCreateWithFlags(&never, cudaEventInterprocess) == cudaErrorInvalidValue);

  cudaStream_t s = nullptr;
  REQUIRE(emu::cudaStreamCreate(&s) == cudaSuccess);
  REQUIRE(emu::cudaEventRecord(start, s) == cudaSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(emu::cudaEventRecord(stop, s) == cudaSuccess);
  REQUIRE(emu::cudaEventRecord(untimed, nullptr) == cudaSuccess);
  CHECK(emu::cudaEventQuery(stop) == cudaSuccess);
  CHECK(emu::cudaEventSynchronize(stop) == cudaSuccess);
  CHECK(emu::cudaStreamWaitEvent(s, stop, 0) == cudaSuccess);

  float ms = -1;
  REQUIRE(emu::cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
  CHECK(ms >= 5.0f);
  CHECK(ms < 5000.0f);
  CHECK(emu::cudaEventElapsedTime(&ms, start, untimed) == cudaErrorInvalidResourceHandle);
  CHECK(emu::cudaEventElapsedTime(&ms, start, never) == cudaErrorInvalidResourceHandle);
  CHECK(emu::cudaEventElapsedTime(&ms, start, kBogusEvent) == cudaErrorInvalidResourceHandle);
  CHECK(emu::cudaEventRecord(kBogusEvent, s) == cudaErrorInvalidResourceHandle);
  CHECK(emu::cudaEventRecord(start, kBogusStream) == cudaErrorInvalidResourceHandle);
  CHECK(emu::cudaStreamWaitEvent(s, kBogusEvent, 0) == cudaErrorInvalidResourceHandle);

  for (cudaEvent_t e : {start, stop, untimed, never}) REQUIRE(emu::cudaEventDestroy(e) == cudaSuccess);
  CHECK(emu::cudaEventQuery(start) == cudaErrorInvalidResourceHandle);
  REQUIRE(emu::cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE_METHOD(FreshDevices, "host functions and stream callbacks run when issued", "[emulated]") {
  struct Seen {
    int host_fn = 0;
    int callback = 0;
    cudaStream_t stream = nullptr;
    cudaError_t status = cudaErrorUnknown;
  } seen;
  cudaStream_t s = nullptr;
  REQUIRE(emu::cudaStreamCreate(&s) == cudaSuccess);
  REQUIRE(emu::cudaLaunchHostFunc(s, [](void* p) { ++static_cast<Seen*>(p)->host_fn; }, &seen) == cudaSuccess);
  CHECK(seen.host_fn == 1);
  auto callback = [](cudaStream_t stream, cudaError_t status, void* p) {
    auto* x = static_cast<Seen*>(p);
    ++x->callback;
    x->stream = stream;
    x->status = status;
  };
  REQUIRE(emu::cudaStreamAddCallback(s, callback, &seen, 0) == cudaSuccess);
  CHECK(seen.callback == 1);
  CHECK(seen.stream == s);
  CHECK(seen.status == cudaSuccess);
  CHECK(emu::cudaStreamAddCallback(s, callback, &seen, 1) == cudaErrorInvalidValue);
  CHECK(emu::cudaLaunchHostFunc(kBogusStream, [](void*) {}, nullptr) == cudaErrorInvalidResourceHandle);
  CHECK(seen.callback == 1);
  REQUIRE(emu::cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE_METHOD(FreshDevices, "with a kernel time, a host function behind a busy device runs later, on another thread, "
                                "and the stream's later async work waits behind it",
                 "[emulated]") {
  auto& st = emu::state();
  const auto kept = st.config.kernel_time;
  st.config.kernel_time = std::chrono::milliseconds(100);
  struct Seen {
    std::thread::id thread;
    const unsigned char* host = nullptr;
    unsigned char byte = 0xff;  // the memset issued after the function, as the function found it
    std::chrono::steady_clock::time_point ran;
  } seen;
  cudaStream_t s = nullptr;
  REQUIRE(emu::cudaStreamCreate(&s) == cudaSuccess);
  void* dev = nullptr;
  REQUIRE(emu::cudaMalloc(&dev, 4096) == cudaSuccess);
  REQUIRE(emu::cudaMemset(dev, 7, 4096) == cudaSuccess);
  unsigned char* pinned = nullptr;
  REQUIRE(emu::cudaMallocHost(reinterpret_cast<void**>(&pinned), 4096) == cudaSuccess);
  std::memset(pinned, 0, 4096);
  seen.host = pinned;
  cudaEvent_t before = nullptr, after = nullptr;
  REQUIRE(emu::cudaEventCreate(&before) == cudaSuccess);
  REQUIRE(emu::cudaEventCreate(&after) == cudaSuccess);

  const auto issued = std::chrono::steady_clock::now();
  st.occupy(0);  // a kernel: the device is busy 100 ms
  REQUIRE(emu::cudaEventRecord(before, s) == cudaSuccess);
  REQUIRE(emu::cudaLaunchHostFunc(s, [](void* p) {
            auto* x = static_cast<Seen*>(p);
            x->thread = std::this_thread::get_id();
            x->ran = std::chrono::steady_clock::now();
            x->byte = x->host[0];
          }, &seen) == cudaSuccess);
  // Issued behind the host function: neither runs before it, and the calls return at once.
  REQUIRE(emu::cudaMemcpyAsync(pinned, dev, 4096, cudaMemcpyDeviceToHost, s) == cudaSuccess);
  REQUIRE(emu::cudaEventRecord(after, s) == cudaSuccess);
  CHECK(std::chrono::steady_clock::now() - issued < std::chrono::milliseconds(100));
  CHECK(seen.ran == std::chrono::steady_clock::time_point{});
  CHECK(pinned[0] == 0);
  CHECK(emu::cudaEventQuery(after) == cudaErrorNotReady);
  CHECK(emu::cudaStreamQuery(s) == cudaErrorNotReady);
  REQUIRE(emu::cudaEventSynchronize(before) == cudaSuccess);  // the kernel's time, not the function
  REQUIRE(emu::cudaEventSynchronize(after) == cudaSuccess);
  CHECK(seen.thread != std::thread::id{});
  CHECK(seen.thread != std::this_thread::get_id());
  CHECK(seen.ran - issued >= std::chrono::milliseconds(100));
  CHECK(seen.byte == 0);  // the copy after it had not run
  CHECK(pinned[4095] == 7);
  CHECK(emu::cudaStreamQuery(s) == cudaSuccess);

  // A synchronous call waits for the deferred work first.
  std::memset(pinned, 0, 4096);
  st.occupy(0);
  REQUIRE(emu::cudaLaunchHostFunc(s, [](void*) {}, nullptr) == cudaSuccess);
  REQUIRE(emu::cudaMemcpyAsync(pinned, dev, 4096, cudaMemcpyDeviceToHost, s) == cudaSuccess);
  unsigned char back[16] = {};
  REQUIRE(emu::cudaMemcpy(back, dev, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(pinned[0] == 7);
  CHECK(back[15] == 7);

  st.config.kernel_time = kept;
  REQUIRE(emu::cudaEventDestroy(before) == cudaSuccess);
  REQUIRE(emu::cudaEventDestroy(after) == cudaSuccess);
  REQUIRE(emu::cudaFreeHost(pinned) == cudaSuccess);
  REQUIRE(emu::cudaFree(dev) == cudaSuccess);
  REQUIRE(emu::cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE_METHOD(FreshDevices, "a captured memset/memcpy sequence is recorded, not run, and replays", "[emulated]") {
  cudaStream_t s = nullptr;
  REQUIRE(emu::cudaStreamCreate(&s) == cudaSuccess);
  void* a = nullptr;
  void* b = nullptr;
  REQUIRE(emu::cudaMalloc(&a, 256) == cudaSuccess);
  REQUIRE(emu::cudaMalloc(&b, 256) == cudaSuccess);
  REQUIRE(emu::cudaMemset(a, 0, 256) == cudaSuccess);
  REQUIRE(emu::cudaMemset(b, 0, 256) == cudaSuccess);
  int host_calls = 0;

  REQUIRE(emu::cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  REQUIRE(emu::cudaStreamIsCapturing(s, &status) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusActive);
  unsigned long long capture_id = 0;
  REQUIRE(emu::cudaStreamGetCaptureInfo(s, &status, &capture_id, nullptr, nullptr, nullptr, nullptr) == cudaSuccess);
  CHECK(capture_id != 0);
  CHECK(emu::cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaErrorIllegalState);
  REQUIRE(emu::cudaMemsetAsync(a, 0x11, 128, s) == cudaSuccess);
  REQUIRE(emu::cudaMemcpyAsync(b, a, 256, cudaMemcpyDeviceToDevice, s) == cudaSuccess);
  REQUIRE(emu::cudaLaunchHostFunc(s, [](void* p) { ++*static_cast<int*>(p); }, &host_calls) == cudaSuccess);
  // An event record inside a capture is a join point, not a node, unless it is external.
  cudaEvent_t marker = nullptr;
  REQUIRE(emu::cudaEventCreate(&marker) == cudaSuccess);
  REQUIRE(emu::cudaEventRecord(marker, s) == cudaSuccess);
  REQUIRE(emu::cudaEventRecordWithFlags(marker, s, cudaEventRecordExternal) == cudaSuccess);
  // Arguments are still checked at capture time.
  CHECK(emu::cudaMemsetAsync(static_cast<char*>(a) + 200, 0, 100, s) == cudaErrorInvalidValue);
  cudaGraph_t graph = nullptr;
  REQUIRE(emu::cudaStreamEndCapture(s, &graph) == cudaSuccess);
  REQUIRE(graph != nullptr);
  size_t count = 0;
  REQUIRE(emu::cudaGraphGetNodes(graph, nullptr, &count) == cudaSuccess);
  CHECK(count == 4);  // the refused memset was not recorded
  cudaGraphNode_t nodes[5];
  count = 5;
  REQUIRE(emu::cudaGraphGetNodes(graph, nodes, &count) == cudaSuccess);
  REQUIRE(count == 4);
  CHECK(nodes[4] == nullptr);
  const cudaGraphNodeType expected[] = {cudaGraphNodeTypeMemset, cudaGraphNodeTypeMemcpy, cudaGraphNodeTypeHost,
                                        cudaGraphNodeTypeEventRecord};
  for (size_t i = 0; i < 4; ++i) {
    cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
    REQUIRE(emu::cudaGraphNodeGetType(nodes[i], &type) == cudaSuccess);
    CHECK(type == expected[i]);
  }
  REQUIRE(emu::cudaStreamIsCapturing(s, &status) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusNone);

  std::vector<uint8_t> back(256);
  REQUIRE(emu::cudaMemcpy(back.data(), b, 256, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(std::all_of(back.begin(), back.end(), [](uint8_t v) { return v == 0; }));  // nothing ran yet
  CHECK(host_calls == 0);

  cudaGraphExec_t exec = nullptr;
  REQUIRE(emu::cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(emu::cudaGraphDestroy(graph) == cudaSuccess);  // the executable graph stands alone
  REQUIRE(emu::cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(emu::cudaMemcpy(back.data(), b, 256, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (size_t i = 0; i < 256; ++i) CHECK(back[i] == (i < 128 ? 0x11 : 0));
  CHECK(host_calls == 1);

  // Replaying repeats the whole sequence.
  REQUIRE(emu::cudaMemset(a, 0, 256) == cudaSuccess);
  REQUIRE(emu::cudaMemset(b, 0x77, 256) == cudaSuccess);
  REQUIRE(emu::cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(emu::cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(emu::cudaMemcpy(back.data(), b, 256, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (size_t i = 0; i < 256; ++i) CHECK(back[i] == (i < 128 ? 0x11 : 0));
  CHECK(host_calls == 3);

  // A freed allocation makes the replay fail cleanly instead of touching freed memory.
  REQUIRE(emu::cudaFree(a) == cudaSuccess);
  CHECK(emu::cudaGraphLaunch(exec, s) == cudaErrorInvalidValue);

  REQUIRE(emu::cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(emu::cudaGraphLaunch(exec, s) == cudaErrorInvalidResourceHandle);
  REQUIRE(emu::cudaEventDestroy(marker) == cudaSuccess);
  REQUIRE(emu::cudaFree(b) == cudaSuccess);
  REQUIRE(emu::cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE_METHOD(FreshDevices, "capture rules", "[emulated]") {
  cudaStream_t s = nullptr, side = nullptr;
  REQUIRE(emu::cudaStreamCreate(&s) == cudaSuccess);
  REQUIRE(emu::cudaStreamCreate(&side) == cudaSuccess);
  cudaGraph_t graph = nullptr;

  SECTION("built-in streams cannot capture") {
    CHECK(emu::cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal) == cudaErrorStreamCaptureUnsupported);
    CHECK(emu::cudaStreamEndCapture(s, &graph) == cudaErrorIllegalState);
  }
  SECTION("synchronizing a capturing stream invalidates the capture") {
    REQUIRE(emu::cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) == cudaSuccess);
    CHECK(emu::cudaStreamSynchronize(s) == cudaErrorStreamCaptureUnsupported);
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    REQUIRE(emu::cudaStreamIsCapturing(s, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusInvalidated);
    CHECK(emu::cudaLaunchHostFunc(s, [](void*) {}, nullptr) == cudaErrorStreamCaptureInvalidated);
    CHECK(emu::cudaStreamEndCapture(s, &graph) == cudaErrorStreamCaptureInvalidated);
    CHECK(graph == nullptr);
  }
  SECTION("a captured host copy replays from the host buffer at each launch (the session's mirrors)") {
    void* d = nullptr;
    REQUIRE(emu::cudaMalloc(&d, 64) == cudaSuccess);
    std::vector<uint8_t> host(64, 1), back(64, 0);
    REQUIRE(emu::cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(emu::cudaMemcpyAsync(d, host.data(), 64, cudaMemcpyHostToDevice, s) == cudaSuccess);
    CHECK(emu::cudaMemcpyAsync(back.data(), d, 64, cudaMemcpyDeviceToHost, s) == cudaSuccess);
    REQUIRE(emu::cudaStreamEndCapture(s, &graph) == cudaSuccess);
    CHECK(back[0] == 0);  // captured, not run
    cudaGraphExec_t exec = nullptr;
    REQUIRE(emu::cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    host.assign(64, 7);
    REQUIRE(emu::cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(emu::cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(back == host);
    REQUIRE(emu::cudaGraphExecDestroy(exec) == cudaSuccess);
    REQUIRE(emu::cudaGraphDestroy(graph) == cudaSuccess);
    REQUIRE(emu::cudaFree(d) == cudaSuccess);
  }
  SECTION("stream-ordered allocation inside a capture belongs to the graph") {
    size_t free_before = 0, free_now = 0, total = 0;
    REQUIRE(emu::cudaMemGetInfo(&free_before, &total) == cudaSuccess);
    REQUIRE(emu::cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    void* scratch = nullptr;
    REQUIRE(emu::cudaMallocAsync(&scratch, 4096, s) == cudaSuccess);
    REQUIRE(scratch != nullptr);
    REQUIRE(emu::cudaMemsetAsync(scratch, 1, 4096, s) == cudaSuccess);
    REQUIRE(emu::cudaFreeAsync(scratch, s) == cudaSuccess);
    REQUIRE(emu::cudaStreamEndCapture(s, &graph) == cudaSuccess);
    cudaGraphNode_t nodes[3];
    size_t count = 3;
    REQUIRE(emu::cudaGraphGetNodes(graph, nodes, &count) == cudaSuccess);
    REQUIRE(count == 3);
    cudaGraphNodeType first = cudaGraphNodeTypeEmpty, last = cudaGraphNodeTypeEmpty;
    REQUIRE(emu::cudaGraphNodeGetType(nodes[0], &first) == cudaSuccess);
    REQUIRE(emu::cudaGraphNodeGetType(nodes[2], &last) == cudaSuccess);
    CHECK(first == cudaGraphNodeTypeMemAlloc);
    CHECK(last == cudaGraphNodeTypeMemFree);

    cudaGraphExec_t exec = nullptr;
    REQUIRE(emu::cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    REQUIRE(emu::cudaGraphDestroy(graph) == cudaSuccess);
    REQUIRE(emu::cudaGraphLaunch(exec, s) == cudaSuccess);  // the memset reaches graph-owned memory
    REQUIRE(emu::cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(emu::cudaMemGetInfo(&free_now, &total) == cudaSuccess);
    CHECK(free_now == free_before - 4096);
    REQUIRE(emu::cudaGraphExecDestroy(exec) == cudaSuccess);  // the last owner releases it
    REQUIRE(emu::cudaMemGetInfo(&free_now, &total) == cudaSuccess);
    CHECK(free_now == free_before);

    // Freeing memory the capture did not allocate is refused and ends the capture.
    void* outside = nullptr;
    REQUIRE(emu::cudaMalloc(&outside, 256) == cudaSuccess);
    REQUIRE(emu::cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(emu::cudaFreeAsync(outside, s) == cudaErrorStreamCaptureUnsupported);
    CHECK(emu::cudaStreamEndCapture(s, &graph) == cudaErrorStreamCaptureInvalidated);
    REQUIRE(emu::cudaFree(outside) == cudaSuccess);
  }
  SECTION("a stream joins a capture by waiting on an event recorded in it") {
    void* d = nullptr;
    REQUIRE(emu::cudaMalloc(&d, 64) == cudaSuccess);
    REQUIRE(emu::cudaMemset(d, 0, 64) == cudaSuccess);
    cudaEvent_t fork = nullptr, join = nullptr;
    REQUIRE(emu::cudaEventCreateWithFlags(&fork, cudaEventDisableTiming) == cudaSuccess);
    REQUIRE(emu::cudaEventCreateWithFlags(&join, cudaEventDisableTiming) == cudaSuccess);
    REQUIRE(emu::cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    REQUIRE(emu::cudaEventRecord(fork, s) == cudaSuccess);
    REQUIRE(emu::cudaStreamWaitEvent(side, fork, 0) == cudaSuccess);
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    REQUIRE(emu::cudaStreamIsCapturing(side, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusActive);
    REQUIRE(emu::cudaMemsetAsync(d, 0x22, 64, side) == cudaSuccess);
    REQUIRE(emu::cudaEventRecord(join, side) == cudaSuccess);
    REQUIRE(emu::cudaStreamWaitEvent(s, join, 0) == cudaSuccess);
    CHECK(emu::cudaStreamEndCapture(side, &graph) == cudaErrorStreamCaptureUnmatched);
    REQUIRE(emu::cudaStreamEndCapture(s, &graph) == cudaSuccess);
    REQUIRE(emu::cudaStreamIsCapturing(side, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusNone);

    uint8_t byte = 0;
    REQUIRE(emu::cudaMemcpy(&byte, d, 1, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(byte == 0);
    cudaGraphExec_t exec = nullptr;
    REQUIRE(emu::cudaGraphInstantiateWithFlags(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch) ==
            cudaSuccess);
    REQUIRE(emu::cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(emu::cudaMemcpy(&byte, static_cast<uint8_t*>(d) + 63, 1, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(byte == 0x22);
    REQUIRE(emu::cudaGraphExecDestroy(exec) == cudaSuccess);
    REQUIRE(emu::cudaGraphDestroy(graph) == cudaSuccess);
    REQUIRE(emu::cudaEventDestroy(fork) == cudaSuccess);
    REQUIRE(emu::cudaEventDestroy(join) == cudaSuccess);
    REQUIRE(emu::cudaFree(d) == cudaSuccess);
  }
  SECTION("graph handles are checked") {
    cudaGraphExec_t exec = nullptr;
    CHECK(emu::cudaGraphInstantiate(&exec, reinterpret_cast<cudaGraph_t>(0x99), 0) ==
          cudaErrorInvalidResourceHandle);
    CHECK(emu::cudaGraphDestroy(reinterpret_cast<cudaGraph_t>(0x99)) == cudaErrorInvalidResourceHandle);
    REQUIRE(emu::cudaGraphCreate(&graph, 0) == cudaSuccess);
    REQUIRE(emu::cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    CHECK(emu::cudaGraphUpload(exec, s) == cudaSuccess);
    CHECK(emu::cudaGraphLaunch(exec, s) == cudaSuccess);  // an empty graph does nothing
    REQUIRE(emu::cudaGraphExecDestroy(exec) == cudaSuccess);
    REQUIRE(emu::cudaGraphDestroy(graph) == cudaSuccess);
  }
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  REQUIRE(emu::cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
  CHECK(mode == cudaStreamCaptureModeGlobal);
  REQUIRE(emu::cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
  CHECK(mode == cudaStreamCaptureModeRelaxed);
  REQUIRE(emu::cudaStreamDestroy(s) == cudaSuccess);
  REQUIRE(emu::cudaStreamDestroy(side) == cudaSuccess);
}
