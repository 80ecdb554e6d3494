// Managed memory used by host threads and kernels in turn: four host threads fill quarters of a
// cudaMallocManaged array, a prefetch to the device, a kernel updates it, the host threads check and
// change it, a second kernel, a prefetch to the host; a read-mostly table (cudaMemAdvise) the
// kernels read; an allocation attached to one stream (cudaMemAttachHost, cudaStreamAttachMemAsync)
// used there; a __device__-side pointer chain inside managed memory.
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "suite_check.h"

constexpr int kN = 1 << 20;
constexpr int kThreads = 4;

__global__ void update(int* a, const int* table, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * 2 + table[i % 256];
}

// Follows a linked list stored in managed memory, summing it.
struct Node {
  Node* next;
  int value;
};
__global__ void walk(const Node* head, long long* sum) {
  long long s = 0;
  for (const Node* n = head; n; n = n->next) s += n->value;
  *sum = s;
}

static void on_threads(const std::function<void(int, int)>& body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t * (kN / kThreads), (t + 1) * (kN / kThreads));
  for (auto& t : threads) t.join();
}

int main() {
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  int* a = nullptr;
  int* table = nullptr;
  CHECK_CUDA(cudaMallocManaged(&a, kN * sizeof(int)));
  CHECK_CUDA(cudaMallocManaged(&table, 256 * sizeof(int)));
  cudaPointerAttributes attrs{};
  CHECK_CUDA(cudaPointerGetAttributes(&attrs, a));
  expect(attrs.type == cudaMemoryTypeManaged, "cudaPointerGetAttributes says managed");
  for (int i = 0; i < 256; ++i) table[i] = i % 7;
  cudaMemLocation on_device{cudaMemLocationTypeDevice, device};
  cudaMemLocation on_host{cudaMemLocationTypeHost, 0};
  CHECK_CUDA(cudaMemAdvise(table, 256 * sizeof(int), cudaMemAdviseSetReadMostly, on_device));

  on_threads([&](int from, int to) {
    for (int i = from; i < to; ++i) a[i] = i % 1000;
  });
  CHECK_CUDA(cudaMemPrefetchAsync(a, kN * sizeof(int), on_device, 0, 0));
  update<<<(kN + 255) / 256, 256>>>(a, table, kN);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<int> bad(kThreads, 0);
  on_threads([&](int from, int to) {
    for (int i = from; i < to; ++i) {
      if (a[i] != (i % 1000) * 2 + (i % 256) % 7) ++bad[from / (kN / kThreads)];
      a[i] = a[i] - (i % 256) % 7;  // back to 2 * (i % 1000)
    }
  });
  int bad_total = 0;
  for (int b : bad) bad_total += b;
  expect(bad_total == 0, "host threads see the first kernel's results");

  update<<<(kN + 255) / 256, 256>>>(a, table, kN);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemPrefetchAsync(a, kN * sizeof(int), on_host, 0, 0));
  CHECK_CUDA(cudaDeviceSynchronize());
  long long sum = 0;
  bool ok = true;
  for (int i = 0; i < kN; ++i) {
    ok = ok && a[i] == (i % 1000) * 4 + (i % 256) % 7;
    sum += a[i];
  }
  expect(ok, "the second kernel saw the host threads' changes");
  say("checksum after two kernels: %lld\n", sum);

  // Attached to one stream: host-visible until attached, then used on that stream only.
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // What the advice and prefetches left, as the range attributes say; then a batched prefetch.
  int read_mostly = -1, last = -2;
  CHECK_CUDA(cudaMemRangeGetAttribute(&read_mostly, 4, cudaMemRangeAttributeReadMostly, table, 256 * sizeof(int)));
  CHECK_CUDA(cudaMemRangeGetAttribute(&last, 4, cudaMemRangeAttributeLastPrefetchLocation, a, kN * sizeof(int)));
  say("range attributes: the table read-mostly %d, the array last prefetched to %d\n", read_mostly, last);
  void* both[] = {a, table};
  size_t both_sizes[] = {kN * sizeof(int), 256 * sizeof(int)};
  size_t first_range = 0;
  CHECK_CUDA(cudaMemPrefetchBatchAsync(both, both_sizes, 2, &on_device, &first_range, 1, 0, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemRangeGetAttribute(&last, 4, cudaMemRangeAttributeLastPrefetchLocation, table, 256 * sizeof(int)));
  say("after a batched prefetch the table was last prefetched to %d\n", last);
  int* own = nullptr;
  CHECK_CUDA(cudaMallocManaged(&own, 4096 * sizeof(int), cudaMemAttachHost));
  for (int i = 0; i < 4096; ++i) own[i] = i;
  CHECK_CUDA(cudaStreamAttachMemAsync(stream, own, 0, cudaMemAttachSingle));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  update<<<16, 256, 0, stream>>>(own, table, 4096);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaStreamSynchronize(stream));
  ok = true;
  for (int i = 0; i < 4096; ++i) ok = ok && own[i] == 2 * i + (i % 256) % 7;
  expect(ok, "stream-attached managed memory");

  // Pointers stored in managed memory, pointing into managed memory.
  Node* nodes = nullptr;
  long long* total = nullptr;
  CHECK_CUDA(cudaMallocManaged(&nodes, 100 * sizeof(Node)));
  CHECK_CUDA(cudaMallocManaged(&total, sizeof(long long)));
  for (int round = 1; round <= 2; ++round) {
    // The chain runs backwards through the array in round 1 and forwards in round 2.
    for (int i = 0; i < 100; ++i) {
      const int next = round == 1 ? i - 1 : i + 1;
      nodes[i] = {next >= 0 && next < 100 ? &nodes[next] : nullptr, i * round};
    }
    Node* head = round == 1 ? &nodes[99] : &nodes[0];
    walk<<<1, 1>>>(head, total);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    say("round %d: linked list sum %lld\n", round, *total);
    expect(*total == 4950LL * round, "a kernel follows pointers stored in managed memory");
  }

  CHECK_CUDA(cudaFree(nodes));
  CHECK_CUDA(cudaFree(total));
  CHECK_CUDA(cudaFree(own));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(table));
  CHECK_CUDA(cudaFree(a));
  return finish("37_managed");
}
