// GPU suite: memory pools (a created pool with attributes, allocation from it, the release threshold
// and a trim), stream attributes, and CUDA IPC between this process and a child it starts (fork +
// exec of itself): the child opens the parent's memory and event from their handles, waits for the
// event, doubles the data in place, and the parent sees the result. The same with a memory pool
// shared through a POSIX descriptor (the child inherits it): the child imports the pool and an
// allocation from it, doubles the allocation's data, and frees its import. Remotely each process has
// its own session of one rgpud, and the handles open between those sessions' workers (a pool's
// descriptor is relayed between them on the server).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "child_process.h"
#include "suite_check.h"

__global__ void iota(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = i;
}

__global__ void twice(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2;
}

constexpr int kN = 1 << 16;

// The child: argv = name, "child", memory handle, event handle (hex). Exit status 0 when it worked.
int child(const char* mem_hex, const char* event_hex) {
  cudaIpcMemHandle_t mh;
  cudaIpcEventHandle_t eh;
  if (!from_hex(mem_hex, &mh, sizeof mh) || !from_hex(event_hex, &eh, sizeof eh)) return 2;
  int* data = nullptr;
  cudaEvent_t ready;
  CHECK_CUDA(cudaIpcOpenMemHandle(reinterpret_cast<void**>(&data), mh, cudaIpcMemLazyEnablePeerAccess));
  CHECK_CUDA(cudaIpcOpenEventHandle(&ready, eh));
  CHECK_CUDA(cudaStreamWaitEvent(0, ready, 0));
  twice<<<kN / 256, 256>>>(data, kN);
  CHECK_CUDA(cudaGetLastError());
  int probe = -1;  // an interior address of the opened memory is device memory to cudaMemcpyDefault
  CHECK_CUDA(cudaMemcpy(&probe, data + 10, sizeof probe, cudaMemcpyDefault));
  CHECK_CUDA(cudaIpcCloseMemHandle(data));
  CHECK_CUDA(cudaEventDestroy(ready));
  return probe == 20 ? 0 : 3;
}

// The pool child: argv = name, "pool-child", the pool's descriptor, the pointer's export data (hex).
int pool_child(const char* fd_text, const char* data_hex) {
  cudaMemPoolPtrExportData data;
  if (!from_hex(data_hex, &data, sizeof data)) return 2;
  const int fd = std::atoi(fd_text);
  cudaMemPool_t pool;
  CHECK_CUDA(cudaMemPoolImportFromShareableHandle(&pool, reinterpret_cast<void*>(static_cast<intptr_t>(fd)),
                                                  cudaMemHandleTypePosixFileDescriptor, 0));
  close(fd);
  int* data_ptr = nullptr;
  CHECK_CUDA(cudaMemPoolImportPointer(reinterpret_cast<void**>(&data_ptr), pool, &data));
  twice<<<kN / 256, 256>>>(data_ptr, kN);
  CHECK_CUDA(cudaGetLastError());
  int probe = -1;
  CHECK_CUDA(cudaMemcpy(&probe, data_ptr + 10, sizeof probe, cudaMemcpyDefault));
  CHECK_CUDA(cudaFree(data_ptr));
  CHECK_CUDA(cudaMemPoolDestroy(pool));
  return probe == 20 ? 0 : 3;
}

void pools() {
  cudaMemPool_t def1, def2;
  CHECK_CUDA(cudaDeviceGetDefaultMemPool(&def1, 0));
  CHECK_CUDA(cudaDeviceGetMemPool(&def2, 0));
  expect(def1 == def2, "the current pool is the default pool");

  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  CHECK_CUDA(cudaMemPoolCreate(&pool, &props));
  uint64_t keep_all = UINT64_MAX, got = 0;
  CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
  expect(got == keep_all, "release threshold reads back");
  int follow = 0;
  CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &follow));
  follow = 5;
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &follow));
  expect(follow == 0, "reuse attribute reads back");
  cudaMemLocation here{cudaMemLocationTypeDevice, 0};
  cudaMemAccessFlags access = cudaMemAccessFlagsProtNone;
  CHECK_CUDA(cudaMemPoolGetAccess(&access, pool, &here));
  expect(access == cudaMemAccessFlagsProtReadWrite, "the owning device has read-write access");

  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* data = nullptr;
  const size_t bytes = 64u << 20;
  CHECK_CUDA(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&data), bytes, pool, s));
  iota<<<kN / 256, 256, 0, s>>>(data, kN);
  twice<<<kN / 256, 256, 0, s>>>(data, kN);
  std::vector<int> host(kN);
  CHECK_CUDA(cudaMemcpyAsync(host.data(), data, kN * sizeof(int), cudaMemcpyDefault, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  int wrong = 0;
  for (int i = 0; i < kN; ++i) wrong += host[i] != 2 * i;
  say("pool allocation: %d wrong of %d\n", wrong, kN);
  expect(wrong == 0, "kernels write memory from a created pool");
  uint64_t used = 0, reserved = 0;
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  expect(used >= bytes, "the pool's used memory counts the allocation");
  CHECK_CUDA(cudaFreeAsync(data, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  expect(used == 0 && reserved >= bytes, "after the free the pool keeps its memory (threshold: all)");
  CHECK_CUDA(cudaMemPoolTrimTo(pool, 0));
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  expect(reserved == 0, "a trim to 0 gives it back");
  CHECK_CUDA(cudaDeviceSetMemPool(0, pool));
  CHECK_CUDA(cudaDeviceGetMemPool(&def2, 0));
  expect(def2 == pool, "cudaDeviceSetMemPool makes the created pool current");
  int* from_current = nullptr;  // cudaMallocAsync now takes the created pool's memory
  CHECK_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&from_current), 1 << 20, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  expect(used >= (1u << 20), "cudaMallocAsync allocates from the current pool");
  CHECK_CUDA(cudaFreeAsync(from_current, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_CUDA(cudaDeviceSetMemPool(0, def1));
  CHECK_CUDA(cudaMemPoolDestroy(pool));

  // Stream attributes: the synchronisation policy and the priority read back.
  cudaLaunchAttributeValue v{};
  v.syncPolicy = cudaSyncPolicyYield;
  CHECK_CUDA(cudaStreamSetAttribute(s, cudaLaunchAttributeSynchronizationPolicy, &v));
  cudaLaunchAttributeValue r{};
  CHECK_CUDA(cudaStreamGetAttribute(s, cudaLaunchAttributeSynchronizationPolicy, &r));
  expect(r.syncPolicy == cudaSyncPolicyYield, "stream synchronisation policy reads back");
  CHECK_CUDA(cudaStreamGetAttribute(s, cudaLaunchAttributePriority, &r));
  expect(r.priority == 0, "a default stream priority reads back as 0");
  CHECK_CUDA(cudaStreamDestroy(s));
}

void ipc() {
  int* data = nullptr;
  CHECK_CUDA(cudaMalloc(&data, kN * sizeof(int)));
  cudaEvent_t ready;
  CHECK_CUDA(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming | cudaEventInterprocess));
  iota<<<kN / 256, 256>>>(data, kN);
  CHECK_CUDA(cudaEventRecord(ready, 0));
  cudaIpcMemHandle_t mh;
  cudaIpcEventHandle_t eh;
  CHECK_CUDA(cudaIpcGetMemHandle(&mh, data));
  CHECK_CUDA(cudaIpcGetEventHandle(&eh, ready));
  std::string mem_hex = to_hex(&mh, sizeof mh), event_hex = to_hex(&eh, sizeof eh);
  expect(run_child("child", mem_hex, event_hex) == 0, "the child opened the memory and event and doubled the data");
  std::vector<int> host(kN);
  CHECK_CUDA(cudaMemcpy(host.data(), data, kN * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < kN; ++i) wrong += host[i] != 2 * i;
  say("ipc: %d wrong of %d\n", wrong, kN);
  expect(wrong == 0, "the parent sees the child's writes");
  CHECK_CUDA(cudaEventDestroy(ready));
  CHECK_CUDA(cudaFree(data));
}

void shared_pool() {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  CHECK_CUDA(cudaMemPoolCreate(&pool, &props));
  int* data = nullptr;
  CHECK_CUDA(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&data), kN * sizeof(int), pool, 0));
  iota<<<kN / 256, 256>>>(data, kN);
  CHECK_CUDA(cudaDeviceSynchronize());
  int fd = -1;
  CHECK_CUDA(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
  cudaMemPoolPtrExportData exported;
  CHECK_CUDA(cudaMemPoolExportPointer(&exported, data));
  expect(fcntl(fd, F_SETFD, 0) == 0, "the pool's descriptor can be inherited");
  std::string fd_text = std::to_string(fd), data_hex = to_hex(&exported, sizeof exported);
  expect(run_child("pool-child", fd_text, data_hex) == 0, "the child imported the pool and doubled its allocation");
  close(fd);
  std::vector<int> host(kN);
  CHECK_CUDA(cudaMemcpy(host.data(), data, kN * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < kN; ++i) wrong += host[i] != 2 * i;
  say("shared pool: %d wrong of %d\n", wrong, kN);
  expect(wrong == 0, "the parent sees the child's writes to the shared pool");
  CHECK_CUDA(cudaFreeAsync(data, 0));
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemPoolDestroy(pool));
}

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "child") == 0) return child(argv[2], argv[3]);
  if (argc == 4 && std::strcmp(argv[1], "pool-child") == 0) return pool_child(argv[2], argv[3]);
  pools();
  ipc();
  shared_pool();
  return finish("pools_ipc");
}
