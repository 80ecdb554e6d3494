// GPU suite: cudaLaunchHostFunc and cudaStreamAddCallback run in stream order, after the work before them,
// and see its results in pinned memory; the work after a host function (in a stream, and in a graph
// captured from one, at each launch) starts only once the function has returned.
#include <unistd.h>

#include <atomic>

#include "suite_check.h"

__global__ void fill(int* data, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = value + i;
}

struct Observation {
  const int* host = nullptr;  // pinned buffer the preceding copy wrote
  int n = 0;
  int expected_value = 0;
  int order = -1;    // position in which this callback ran
  bool saw_results = false;
};

static std::atomic<int> g_next_order{0};

static void observe(Observation* o) {
  o->order = g_next_order++;
  bool ok = true;
  for (int i = 0; i < o->n; ++i) ok = ok && o->host[i] == o->expected_value + i;
  o->saw_results = ok;
}

static void CUDART_CB host_func(void* user) { observe(static_cast<Observation*>(user)); }

static void CUDART_CB sleep_200ms(void*) { usleep(200 * 1000); }

static void CUDART_CB stream_callback(cudaStream_t, cudaError_t status, void* user) {
  auto* o = static_cast<Observation*>(user);
  if (status == cudaSuccess) observe(o);
}

int main() {
  const int n = 4096;
  const int rounds = 4;
  int *dev, *pinned;
  CHECK_CUDA(cudaMalloc(&dev, n * sizeof(int)));
  CHECK_CUDA(cudaMallocHost(&pinned, rounds * n * sizeof(int)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // Round r: kernel, copy into slot r, then a host function (even r) or a stream callback (odd r).
  Observation observations[rounds];
  for (int r = 0; r < rounds; ++r) {
    Observation& o = observations[r];
    o.host = pinned + r * n;
    o.n = n;
    o.expected_value = (r + 1) * 1000;
    fill<<<n / 256, 256, 0, stream>>>(dev, n, o.expected_value);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpyAsync(pinned + r * n, dev, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
    if (r % 2 == 0) {
      CHECK_CUDA(cudaLaunchHostFunc(stream, host_func, &o));
    } else {
      CHECK_CUDA(cudaStreamAddCallback(stream, stream_callback, &o, 0));
    }
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));

  bool all_ok = true;
  for (int r = 0; r < rounds; ++r) {
    const Observation& o = observations[r];
    say("round %d (%s): ran at %d, saw results: %s\n", r, r % 2 == 0 ? "host func" : "stream callback", o.order,
        o.saw_results ? "yes" : "no");
    all_ok = all_ok && o.order == r && o.saw_results;
  }
  expect(all_ok, "callbacks ran in order after their work");

  // Ordering: an event recorded after a host function that sleeps 200 ms completes at least that
  // much after one recorded before it (remotely: the server's stream waits for the client's function).
  cudaEvent_t before, after;
  CHECK_CUDA(cudaEventCreate(&before));
  CHECK_CUDA(cudaEventCreate(&after));
  float ms = 0.f;
  CHECK_CUDA(cudaEventRecord(before, stream));
  CHECK_CUDA(cudaLaunchHostFunc(stream, sleep_200ms, nullptr));
  CHECK_CUDA(cudaEventRecord(after, stream));
  CHECK_CUDA(cudaEventSynchronize(after));
  CHECK_CUDA(cudaEventElapsedTime(&ms, before, after));
  expect(ms >= 190.f, "host function ordered");
  CHECK_CUDA(cudaEventRecord(before, stream));
  CHECK_CUDA(cudaStreamAddCallback(stream, [](cudaStream_t, cudaError_t, void*) { usleep(200 * 1000); }, nullptr, 0));
  CHECK_CUDA(cudaEventRecord(after, stream));
  CHECK_CUDA(cudaEventSynchronize(after));
  CHECK_CUDA(cudaEventElapsedTime(&ms, before, after));
  expect(ms >= 190.f, "stream callback ordered");

  // The same through a graph captured from the stream: its host node sleeps 200 ms at each of two
  // launches, then a kernel writes; both launches lie between the events.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaLaunchHostFunc(stream, sleep_200ms, nullptr));
  fill<<<n / 256, 256, 0, stream>>>(dev, n, 7);
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaEventRecord(before, stream));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaEventRecord(after, stream));
  CHECK_CUDA(cudaEventSynchronize(after));
  CHECK_CUDA(cudaEventElapsedTime(&ms, before, after));
  expect(ms >= 380.f, "graph host node ordered at each launch");
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaEventDestroy(before));
  CHECK_CUDA(cudaEventDestroy(after));

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFreeHost(pinned));
  CHECK_CUDA(cudaFree(dev));
  return finish("host_callbacks");
}
