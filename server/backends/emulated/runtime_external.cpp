// Emulated CUDA Runtime: external memory and semaphores. The emulated GPU's memory is this process's,
// so another process's memory arrives as a file to map: an imported descriptor must be a file of the
// import's size sealed against shrinking (a memfd), and each mapped buffer maps its bytes, shared
// with the sender. A semaphore of another driver stands as an eventfd: a signal adds one, a wait
// takes the count (a binary semaphore: signalled or not; a timeline semaphore is refused). A wait runs when issued, as
// all emulated work does, so one that nothing signals would hold the session: it gives up after
// kWaitLimit with cudaErrorTimeout.
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/shared_file.h"
#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

constexpr std::chrono::milliseconds kWaitLimit{10000};

// An imported object owns its descriptor, as CUDA does from a successful import on.
struct Descriptor {
  int fd;
  explicit Descriptor(int f) : fd(f) {}
  ~Descriptor() { ::close(fd); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
};

struct ExternalMemory {
  Descriptor file;
  uint64_t size;
  int device;
};

struct Imports {
  std::mutex mu;
  std::unordered_map<void*, std::unique_ptr<ExternalMemory>> memory;
  std::unordered_map<void*, std::unique_ptr<Descriptor>> semaphores;
};
Imports& imports() {
  static Imports* i = new Imports();  // outlives static destructors that may still destroy objects
  return *i;
}

// The eventfds behind `count` semaphore handles, or cudaErrorInvalidResourceHandle (takes mu).
cudaError_t semaphore_fds(const cudaExternalSemaphore_t* handles, unsigned count, std::vector<int>* fds) {
  if (count && !handles) return cudaErrorInvalidValue;
  std::lock_guard lock(imports().mu);
  for (unsigned i = 0; i < count; ++i) {
    auto it = imports().semaphores.find(handles[i]);
    if (it == imports().semaphores.end()) return cudaErrorInvalidResourceHandle;
    fds->push_back(it->second->fd);
  }
  return cudaSuccess;
}

cudaError_t signal(int fd) {
  const uint64_t one = 1;
  return ::write(fd, &one, sizeof one) == sizeof one ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t wait(int fd) {
  pollfd p{fd, POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(kWaitLimit.count()));
  if (ready == 0) return cudaErrorTimeout;
  uint64_t count = 0;
  return ready > 0 && ::read(fd, &count, sizeof count) == sizeof count ? cudaSuccess : cudaErrorInvalidValue;
}

// Signals or waits on each semaphore in stream order (`act` on each descriptor).
cudaError_t issue(const cudaExternalSemaphore_t* handles, unsigned count, cudaStream_t stream, cudaGraphNodeType type,
                  cudaError_t (*act)(int fd)) {
  std::vector<int> fds;
  if (cudaError_t st = semaphore_fds(handles, count, &fds); st != cudaSuccess) return st;
  // The descriptors stay open while the op may run: a semaphore destroyed before a captured graph
  // launches would leave them dangling, so the op looks them up again then.
  std::vector<cudaExternalSemaphore_t> named(handles, handles + count);
  return state().enqueue(stream, type, [named = std::move(named), act]() {
    std::vector<int> now;
    if (cudaError_t st = semaphore_fds(named.data(), static_cast<unsigned>(named.size()), &now); st != cudaSuccess)
      return st;
    for (int fd : now) {
      if (cudaError_t st = act(fd); st != cudaSuccess) return st;
    }
    return cudaSuccess;
  });
}

}  // namespace

cudaError_t cudaImportExternalMemory(cudaExternalMemory_t* extMem_out, const cudaExternalMemoryHandleDesc* memHandleDesc) {
  if (!extMem_out || !memHandleDesc || memHandleDesc->size == 0) return cudaErrorInvalidValue;
  if (memHandleDesc->type != cudaExternalMemoryHandleTypeOpaqueFd) return cudaErrorNotSupported;
  if (!is_sealed_file_of(memHandleDesc->handle.fd, memHandleDesc->size)) return cudaErrorInvalidValue;
  auto memory = std::unique_ptr<ExternalMemory>(
      new ExternalMemory{Descriptor(memHandleDesc->handle.fd), memHandleDesc->size, current_device()});
  std::lock_guard lock(imports().mu);
  *extMem_out = reinterpret_cast<cudaExternalMemory_t>(memory.get());
  imports().memory.emplace(memory.get(), std::move(memory));
  return cudaSuccess;
}

cudaError_t cudaExternalMemoryGetMappedBuffer(void** devPtr, cudaExternalMemory_t extMem,
                                              const cudaExternalMemoryBufferDesc* bufferDesc) {
  if (!devPtr || !bufferDesc) return cudaErrorInvalidValue;
  std::lock_guard lock(imports().mu);
  auto it = imports().memory.find(extMem);
  if (it == imports().memory.end()) return cudaErrorInvalidResourceHandle;
  const ExternalMemory& m = *it->second;
  if (bufferDesc->offset > m.size || bufferDesc->size > m.size - bufferDesc->offset) return cudaErrorInvalidValue;
  return state().memory.map_file(m.device, m.file.fd, bufferDesc->offset, bufferDesc->size, devPtr);
}

// Buffers mapped from it keep their own mappings of the file, as CUDA's stay until cudaFree.
cudaError_t cudaDestroyExternalMemory(cudaExternalMemory_t extMem) {
  std::lock_guard lock(imports().mu);
  return imports().memory.erase(extMem) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

cudaError_t cudaImportExternalSemaphore(cudaExternalSemaphore_t* extSem_out,
                                        const cudaExternalSemaphoreHandleDesc* semHandleDesc) {
  if (!extSem_out || !semHandleDesc) return cudaErrorInvalidValue;
  if (semHandleDesc->type != cudaExternalSemaphoreHandleTypeOpaqueFd) return cudaErrorNotSupported;
  auto semaphore = std::make_unique<Descriptor>(semHandleDesc->handle.fd);
  std::lock_guard lock(imports().mu);
  *extSem_out = reinterpret_cast<cudaExternalSemaphore_t>(semaphore.get());
  imports().semaphores.emplace(semaphore.get(), std::move(semaphore));
  return cudaSuccess;
}

cudaError_t cudaSignalExternalSemaphoresAsync(const cudaExternalSemaphore_t* extSemArray,
                                              const cudaExternalSemaphoreSignalParams* paramsArray,
                                              unsigned int numExtSems, cudaStream_t stream) {
  (void)paramsArray;  // a binary semaphore's signal takes no value
  return issue(extSemArray, numExtSems, stream, cudaGraphNodeTypeExtSemaphoreSignal, signal);
}

cudaError_t cudaWaitExternalSemaphoresAsync(const cudaExternalSemaphore_t* extSemArray,
                                            const cudaExternalSemaphoreWaitParams* paramsArray, unsigned int numExtSems,
                                            cudaStream_t stream) {
  (void)paramsArray;
  return issue(extSemArray, numExtSems, stream, cudaGraphNodeTypeExtSemaphoreWait, wait);
}

cudaError_t cudaDestroyExternalSemaphore(cudaExternalSemaphore_t extSem) {
  std::lock_guard lock(imports().mu);
  return imports().semaphores.erase(extSem) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

}  // namespace rgpu::server::emulated
