// Mapped (zero-copy) host memory against rgpud --emulate, whose kernels are checked, not run: the
// server's side of the memory is observed through device-to-device copies, which read and write the
// server's mirror of the host memory as a kernel would. Host writes reach the mirror before device
// work (at exposure, and as diffs before each launch or copy); the device's writes come back at a
// synchronisation, merged byte by byte with the host's own changes; a byte both changed is refused
// with cudaErrorIllegalState; a kernel argument pointing into pinned memory exposes it; freeing
// ends the exposure. Managed memory is the same, exposed from the start; its hints are checked.
//
// Mode for round-trip counting (RGPU_STATS=1):
//   mapped_memory sync_rounds N   two exposed allocations; N times a device write into each, a
//                                 stream synchronisation, the host reading both: the read-backs
//                                 travel behind the synchronisation, 1 round trip a round
// Mode for a client that shares its pinned memory with its session (RGPU_SERVER=unix:PATH,
// client/runtime/shared_host.h), where the GPU uses the client's own pages:
//   mapped_memory shared          native semantics, for pinned and managed memory: no exchange,
//                                 no read-back, no conflict
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "tour_checks.h"

__global__ void reads_array(const int* const* arrays, int n, int* out) {
  if (threadIdx.x < n) out[threadIdx.x] = *arrays[threadIdx.x];
}

constexpr int kN = 3000;  // not a whole number of pages
constexpr size_t kBytes = kN * sizeof(int);

// The server's view of `device_address` (a mapped range), read through a device buffer.
static bool server_sees(const int* device_address, int* scratch, const int* expected) {
  static int back[kN];
  if (cudaMemcpy(scratch, device_address, kBytes, cudaMemcpyDeviceToDevice) != cudaSuccess) return false;
  if (cudaMemcpy(back, scratch, kBytes, cudaMemcpyDeviceToHost) != cudaSuccess) return false;
  return std::memcmp(back, expected, kBytes) == 0;
}

// N rounds of device writes into two mapped allocations, each round read by the host after one
// cudaStreamSynchronize.
static int sync_rounds(int rounds) {
  int *a = nullptr, *b = nullptr, *da = nullptr, *db = nullptr, *src = nullptr;
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&a), sizeof(int), cudaHostAllocMapped));
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&b), sizeof(int), cudaHostAllocMapped));
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&da), a, 0));
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&db), b, 0));
  CHECK_CUDA(cudaMalloc(&src, rounds * sizeof(int)));
  static int values[1000];
  if (rounds < 1 || rounds > 1000) return 1;
  for (int i = 0; i < rounds; ++i) values[i] = 7 * i + 3;
  CHECK_CUDA(cudaMemcpy(src, values, rounds * sizeof(int), cudaMemcpyHostToDevice));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  bool seen = true;
  for (int i = 0; i < rounds; ++i) {
    CHECK_CUDA(cudaMemcpyAsync(da, src + i, sizeof(int), cudaMemcpyDeviceToDevice, s));
    CHECK_CUDA(cudaMemcpyAsync(db, src + i, sizeof(int), cudaMemcpyDeviceToDevice, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    seen = seen && *a == values[i] && *b == values[i];
  }
  EXPECT(seen, "after each stream synchronisation the host reads the device's writes to both allocations");
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaFree(src));
  return 0;
}

// Device writes into three exposed allocations, one larger than the 64 MiB a read-back call
// carries (so one read-back spans several calls, the small ones riding in the big one's last): at a
// synchronisation the host sees each write, at both ends of each allocation and on either side of
// the 64 MiB boundary, and nothing else changes.
static int read_back_windows(int* scratch) {
  constexpr size_t kBigInts = (size_t{80} << 20) / sizeof(int) + 5;
  int *big = nullptr, *one = nullptr, *two = nullptr;
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&big), kBigInts * sizeof(int), cudaHostAllocMapped));
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&one), kBytes, cudaHostAllocMapped));
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&two), kBytes, cudaHostAllocMapped));
  std::memset(big, 0, kBigInts * sizeof(int));
  std::memset(one, 0, kBytes);
  std::memset(two, 0, kBytes);
  int *dbig = nullptr, *done = nullptr, *dtwo = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dbig), big, 0));
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&done), one, 0));
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dtwo), two, 0));
  const size_t boundary = (size_t{64} << 20) / sizeof(int);
  const size_t big_at[] = {0, boundary - 1, boundary, kBigInts - 1};
  const size_t small_at[] = {0, kN - 1};
  int mark = 100;
  auto device_writes = [&](int* dst) {
    if (cudaMemcpy(scratch, &mark, sizeof mark, cudaMemcpyHostToDevice) != cudaSuccess) return false;
    ++mark;
    return cudaMemcpy(dst, scratch, sizeof mark, cudaMemcpyDeviceToDevice) == cudaSuccess;
  };
  bool written = true;
  for (size_t i : big_at) written = written && device_writes(dbig + i);
  for (size_t i : small_at) written = written && device_writes(done + i) && device_writes(dtwo + i);
  EXPECT(written, "the device writes into the three allocations");
  CHECK_CUDA(cudaStreamSynchronize(0));
  int want = 100;
  bool seen = true;
  for (size_t i : big_at) seen = seen && big[i] == want++;
  for (size_t i : small_at) {
    seen = seen && one[i] == want++;
    seen = seen && two[i] == want++;
  }
  size_t changed = 0;
  for (size_t i = 0; i < kBigInts; ++i) changed += big[i] != 0;
  for (int i = 0; i < kN; ++i) changed += (one[i] != 0) + (two[i] != 0);
  EXPECT(seen && changed == 8, "after a stream synchronisation the host sees every device write, and only those");
  CHECK_CUDA(cudaFreeHost(big));
  CHECK_CUDA(cudaFreeHost(one));
  CHECK_CUDA(cudaFreeHost(two));
  return 0;
}

// Shared pinned memory is the GPU's as it is natively: the host's writes are there for device work
// at once, the device's are in host memory when a synchronisation returns, and a byte the device
// and then the host wrote between two synchronisations keeps the host's (later) value, with no
// error: there is one copy of it, so no conflict.
static int shared_pages() {
  int* h = nullptr;
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&h), kBytes, cudaHostAllocMapped));
  static int want[kN];
  for (int i = 0; i < kN; ++i) h[i] = want[i] = 2 * i;
  int* d = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d), h, 0));
  cudaPointerAttributes attrs{};
  CHECK_CUDA(cudaPointerGetAttributes(&attrs, h + 5));
  EXPECT(attrs.type == cudaMemoryTypeHost && attrs.hostPointer == h + 5 && attrs.devicePointer == d + 5,
         "cudaPointerGetAttributes gives the device address of pinned memory, as natively");
  int* scratch = nullptr;
  CHECK_CUDA(cudaMalloc(&scratch, kBytes));
  EXPECT(server_sees(d, scratch, want), "the device reads the host's bytes");
  int seven = 7;
  CHECK_CUDA(cudaMemcpy(scratch, &seven, sizeof seven, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d + 5, scratch, sizeof seven, cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaStreamSynchronize(0));
  EXPECT(h[5] == 7, "the host reads the device's write after a synchronisation");
  CHECK_CUDA(cudaMemcpy(d, scratch, sizeof seven, cudaMemcpyDeviceToDevice));
  h[0] = 8;  // after the device's write to the same byte, before any synchronisation
  EXPECT(cudaDeviceSynchronize() == cudaSuccess && h[0] == 8, "a byte the device and then the host wrote is no conflict");
  want[0] = 8, want[5] = 7;
  EXPECT(server_sees(d, scratch, want), "and the device reads the host's value");
  CHECK_CUDA(cudaFreeHost(h));

  // Managed memory is shared the same way, at its own address on both sides.
  int* m = nullptr;
  CHECK_CUDA(cudaMallocManaged(reinterpret_cast<void**>(&m), kBytes, cudaMemAttachGlobal));
  EXPECT(m[0] == 0 && m[kN - 1] == 0, "managed memory starts zeroed");
  for (int i = 0; i < kN; ++i) m[i] = want[i] = 3 * i;
  CHECK_CUDA(cudaMemcpy(scratch, &seven, sizeof seven, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(m, scratch, sizeof seven, cudaMemcpyDeviceToDevice));
  m[0] = 9;  // after the device's write, before any synchronisation
  EXPECT(cudaDeviceSynchronize() == cudaSuccess && m[0] == 9, "a managed byte the device and then the host wrote is no conflict");
  want[0] = 9;
  EXPECT(server_sees(m, scratch, want), "the device reads managed memory at its own address");
  CHECK_CUDA(cudaFree(m));
  CHECK_CUDA(cudaFree(scratch));
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && !std::strcmp(argv[1], "shared")) {
    if (shared_pages()) return 1;
    std::printf("ok: mapped_memory shared\n");
    return 0;
  }
  if (argc > 2 && !std::strcmp(argv[1], "sync_rounds")) {
    if (sync_rounds(std::atoi(argv[2]))) return 1;
    std::printf("ok: mapped_memory sync_rounds\n");
    return 0;
  }
  int* h = nullptr;
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&h), kBytes, cudaHostAllocMapped));
  for (int i = 0; i < kN; ++i) h[i] = i;
  int* d = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d), h, 0));
  int* scratch = nullptr;
  CHECK_CUDA(cudaMalloc(&scratch, kBytes));
  static int want[kN];
  for (int i = 0; i < kN; ++i) want[i] = i;
  EXPECT(server_sees(d, scratch, want), "the host's bytes reach the server at exposure");

  for (int i = 0; i < kN; i += 7) h[i] = -i, want[i] = -i;
  EXPECT(server_sees(d, scratch, want), "the host's later changes reach the server before device work");

  void* again = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(&again, h + 10, 0));
  EXPECT(again == d + 10, "an interior pointer's device address is the allocation's plus the offset");

  // The device writes the whole range; the host changed one byte range meanwhile, the device not.
  static int from_device[kN];
  for (int i = 0; i < kN; ++i) from_device[i] = 5 * i + 1;
  from_device[3] = want[3];  // the device leaves element 3 as it was ...
  CHECK_CUDA(cudaMemcpy(scratch, from_device, kBytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d, scratch, kBytes, cudaMemcpyDeviceToDevice));
  h[3] = 4242;  // ... and the host changes it
  CHECK_CUDA(cudaDeviceSynchronize());
  bool merged = h[3] == 4242;
  for (int i = 0; i < kN; ++i) merged = merged && (i == 3 || h[i] == 5 * i + 1);
  EXPECT(merged, "after cudaDeviceSynchronize the host sees the device's writes, and keeps its own");
  for (int i = 0; i < kN; ++i) want[i] = h[i];
  EXPECT(server_sees(d, scratch, want), "the host's kept change reaches the server before the next work");

  // Both sides change element 0: a conflict, refused by the synchronisation.
  int seven = 7;
  CHECK_CUDA(cudaMemcpy(scratch, &seven, sizeof seven, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d, scratch, sizeof seven, cudaMemcpyDeviceToDevice));
  h[0] = 8;
  cudaError_t st = cudaDeviceSynchronize();
  EXPECT(st == cudaErrorIllegalState, "a byte both the host and the device changed fails the synchronisation");
  EXPECT(h[0] == 8, "the host's byte is kept");
  EXPECT(cudaGetLastError() == cudaErrorIllegalState && cudaGetLastError() == cudaSuccess, "the error is not sticky");

  // Both change element 1 and a call that is no synchronisation sends the host's byte: the server
  // finds the GPU's byte where the host's twin said another was: an asynchronous error, which
  // cudaGetLastError reports after the next synchronisation.
  int nine = 9;
  CHECK_CUDA(cudaMemcpy(scratch, &nine, sizeof nine, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d + 1, scratch, sizeof nine, cudaMemcpyDeviceToDevice));
  h[1] = 10;
  CHECK_CUDA(cudaMemsetAsync(scratch, 0, sizeof nine));
  CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT(cudaGetLastError() == cudaErrorIllegalState, "a conflict found by the server is the next error");
  EXPECT(h[1] == 10, "the host's byte is kept there too");

  // A kernel argument pointing into pinned memory (no cudaHostGetDevicePointer): the array of
  // pointers is exposed by the launch, with the host's bytes, and later changes go before each launch.
  int** arrays = nullptr;
  CHECK_CUDA(cudaMallocHost(reinterpret_cast<void**>(&arrays), 4 * sizeof(int*)));
  for (int i = 0; i < 4; ++i) arrays[i] = scratch + i;
  reads_array<<<1, 4>>>(arrays, 4, scratch);
  CHECK_CUDA(cudaGetLastError());
  void* arrays_dev = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(&arrays_dev, arrays, 0));
  int* copied[4] = {};
  CHECK_CUDA(cudaMemcpy(scratch, arrays_dev, sizeof copied, cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaMemcpy(copied, scratch, sizeof copied, cudaMemcpyDeviceToHost));
  EXPECT(copied[0] == scratch && copied[3] == scratch + 3, "a launch exposes the pinned memory its arguments point into");
  arrays[2] = scratch + 100;
  reads_array<<<1, 4>>>(arrays, 4, scratch);
  CHECK_CUDA(cudaMemcpy(scratch, arrays_dev, sizeof copied, cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaMemcpy(copied, scratch, sizeof copied, cudaMemcpyDeviceToHost));
  EXPECT(copied[2] == scratch + 100, "the host's change to it goes before the next launch");

  if (read_back_windows(scratch)) return 1;

  // Pageable memory has no device address; freed memory has none any more.
  int pageable = 0;
  void* none = nullptr;
  EXPECT(cudaHostGetDevicePointer(&none, &pageable, 0) == cudaErrorInvalidValue, "pageable memory has no device address");
  cudaGetLastError();
  CHECK_CUDA(cudaFreeHost(arrays));
  CHECK_CUDA(cudaFreeHost(h));
  EXPECT(cudaHostGetDevicePointer(&none, h, 0) == cudaErrorInvalidValue, "freed memory has no device address");
  cudaGetLastError();
  // Managed memory is exposed mapped memory from the start.
  int* m = nullptr;
  CHECK_CUDA(cudaMallocManaged(reinterpret_cast<void**>(&m), kBytes, cudaMemAttachGlobal));
  cudaPointerAttributes attrs{};
  CHECK_CUDA(cudaPointerGetAttributes(&attrs, m + 5));
  EXPECT(attrs.type == cudaMemoryTypeManaged && attrs.devicePointer == m + 5, "managed memory says so");
  EXPECT(m[0] == 0 && m[kN - 1] == 0, "managed memory starts zeroed");
  for (int i = 0; i < kN; ++i) m[i] = 3 * i, want[i] = 3 * i;
  cudaMemLocation on_device{cudaMemLocationTypeDevice, 0};
  CHECK_CUDA(cudaMemPrefetchAsync(m, kBytes, on_device, 0, 0));
  CHECK_CUDA(cudaMemAdvise(m, kBytes, cudaMemAdviseSetReadMostly, on_device));
  CHECK_CUDA(cudaStreamAttachMemAsync(0, m, 0, cudaMemAttachSingle));
  EXPECT(server_sees(m, scratch, want), "the host's writes to managed memory reach the server");
  CHECK_CUDA(cudaMemcpy(scratch, from_device, kBytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(m, scratch, kBytes, cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaStreamSynchronize(0));
  EXPECT(std::memcmp(m, from_device, kBytes) == 0, "the device's writes to managed memory come back at a sync");
  EXPECT(cudaMemPrefetchAsync(m, kBytes + 1, on_device, 0, 0) == cudaErrorInvalidValue &&
             cudaMemAdvise(&pageable, 4, cudaMemAdviseSetReadMostly, on_device) == cudaErrorInvalidValue &&
             cudaStreamAttachMemAsync(0, m + 1, 0, cudaMemAttachSingle) == cudaErrorInvalidValue,
         "hints about memory that is not managed are refused");
  cudaGetLastError();
  // The range attributes answer from the advice and prefetches recorded, page by page.
  int read_mostly = -1, preferred = -1, last = -1, accessors[3] = {};
  cudaMemLocationType last_type = cudaMemLocationTypeInvalid;
  void* data[] = {&read_mostly, &last, &last_type};
  size_t sizes[] = {4, 4, sizeof last_type};
  cudaMemRangeAttribute asked[] = {cudaMemRangeAttributeReadMostly, cudaMemRangeAttributeLastPrefetchLocation,
                                   cudaMemRangeAttributeLastPrefetchLocationType};
  CHECK_CUDA(cudaMemRangeGetAttributes(data, sizes, asked, 3, m, kBytes));
  EXPECT(read_mostly == 1 && last == 0 && last_type == cudaMemLocationTypeDevice,
         "the range attributes say read-mostly and prefetched to device 0");
  CHECK_CUDA(cudaMemAdvise(m + 1024, 4096, cudaMemAdviseUnsetReadMostly, on_device));  // the second page only
  CHECK_CUDA(cudaMemAdvise(m, 4, cudaMemAdviseSetPreferredLocation, cudaMemLocation{cudaMemLocationTypeHost, 0}));
  CHECK_CUDA(cudaMemAdvise(m, kBytes, cudaMemAdviseSetAccessedBy, on_device));
  CHECK_CUDA(cudaMemRangeGetAttribute(&read_mostly, 4, cudaMemRangeAttributeReadMostly, m, kBytes));
  EXPECT(read_mostly == 0, "not read-mostly once one page is not");
  CHECK_CUDA(cudaMemRangeGetAttribute(&read_mostly, 4, cudaMemRangeAttributeReadMostly, m + 2048, 4));
  EXPECT(read_mostly == 1, "the third page still is");
  CHECK_CUDA(cudaMemRangeGetAttribute(&preferred, 4, cudaMemRangeAttributePreferredLocation, m, 8));
  EXPECT(preferred == cudaCpuDeviceId, "the first page prefers the host");
  CHECK_CUDA(cudaMemRangeGetAttribute(&preferred, 4, cudaMemRangeAttributePreferredLocation, m, kBytes));
  EXPECT(preferred == cudaInvalidDeviceId, "the whole range has no one preferred location");
  CHECK_CUDA(cudaMemRangeGetAttribute(accessors, sizeof accessors, cudaMemRangeAttributeAccessedBy, m, kBytes));
  EXPECT(accessors[0] == 0 && accessors[1] == cudaInvalidDeviceId && accessors[2] == cudaInvalidDeviceId,
         "device 0 accesses the range, and the rest of the answer says no device");
  EXPECT(cudaMemRangeGetAttribute(&preferred, 2, cudaMemRangeAttributeReadMostly, m, kBytes) == cudaErrorInvalidValue &&
             cudaMemRangeGetAttribute(&preferred, 4, cudaMemRangeAttributeReadMostly, &pageable, 4) == cudaErrorInvalidValue &&
             cudaMemAdvise(m, kBytes, cudaMemAdviseSetAccessedBy, cudaMemLocation{cudaMemLocationTypeDevice, 999}) ==
                 cudaErrorInvalidDevice,
         "a wrong size, unmanaged memory and a device that does not exist are refused");
  cudaGetLastError();
  // A batch: the first range to the host, the second to the device; refused whole when one range is
  // not managed.
  void* ranges[] = {m, m + 1024};
  size_t range_sizes[] = {4096, 4096};
  cudaMemLocation locations[] = {{cudaMemLocationTypeHost, 0}, on_device};
  size_t first_ranges[] = {0, 1};
  cudaStream_t batch_stream;
  CHECK_CUDA(cudaStreamCreate(&batch_stream));
  CHECK_CUDA(cudaMemPrefetchBatchAsync(ranges, range_sizes, 2, locations, first_ranges, 2, 0, batch_stream));
  CHECK_CUDA(cudaMemRangeGetAttribute(&last, 4, cudaMemRangeAttributeLastPrefetchLocation, m, 4096));
  int second = -1;
  CHECK_CUDA(cudaMemRangeGetAttribute(&second, 4, cudaMemRangeAttributeLastPrefetchLocation, m + 1024, 4096));
  EXPECT(last == cudaCpuDeviceId && second == 0, "a batch prefetches each range to its own location");
  ranges[1] = &pageable;
  EXPECT(cudaMemDiscardAndPrefetchBatchAsync(ranges, range_sizes, 2, locations, first_ranges, 2, 0, batch_stream) ==
                 cudaErrorInvalidValue &&
             cudaMemDiscardBatchAsync(ranges, range_sizes, 2, 0, batch_stream) == cudaErrorInvalidValue,
         "a batch with a range that is not managed is refused");
  cudaGetLastError();
  CHECK_CUDA(cudaMemRangeGetAttribute(&last, 4, cudaMemRangeAttributeLastPrefetchLocation, m, 4096));
  EXPECT(last == cudaCpuDeviceId, "a refused batch prefetched nothing");
  ranges[1] = m + 1024;
  m[7] = 77;
  CHECK_CUDA(cudaMemDiscardBatchAsync(ranges, range_sizes, 2, 0, batch_stream));
  EXPECT(m[7] == 77, "a discard keeps the bytes");
  CHECK_CUDA(cudaStreamDestroy(batch_stream));
  EXPECT(cudaHostUnregister(m) == cudaErrorHostMemoryNotRegistered, "managed memory is not registered memory");
  cudaGetLastError();
  CHECK_CUDA(cudaFree(m));
  EXPECT(cudaFree(m) == cudaErrorInvalidValue, "managed memory is freed once");
  cudaGetLastError();

  CHECK_CUDA(cudaFree(scratch));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("mapped memory: all checks passed\n");
  return 0;
}
