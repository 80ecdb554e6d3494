// External memory and semaphores: another driver's objects (Vulkan's, say) imported by POSIX
// descriptor into the session's worker, which imports them into the real driver. A descriptor
// reaches the worker only with a call over the same-host Unix transport (SCM_RIGHTS), so over TCP
// an import is refused, loudly; Windows, D3D and NvSci handles mean nothing on this platform or
// across machines and are refused too. As CUDA does, a successful import takes the caller's
// descriptor (closed here: the worker holds its duplicate), a failed one leaves it to the caller.
// Imported objects are client-made ids, bound on the server like streams; destroying them, and
// signalling and waiting on semaphores, are generated forwards. A buffer mapped from imported
// memory is device memory like any: it joins the memory map and is freed with cudaFree.
#include <unistd.h>

#include <cuda_runtime_api.h>

#include <cstdint>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/device_allocation.h"
#include "client/runtime/pipe.h"
#include "common/log.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudart/cudart_remote.h"

using rgpu::client::Call;
using rgpu::client::CallClass;
using rgpu::client::cudart_finish;

namespace {

// One import: the new object's id and what describes it (`describe` encodes it after the id), with
// the descriptor. The server answers with the driver's status.
template <typename Describe>
cudaError_t import_descriptor(uint32_t call_id, const char* what, int fd, uint64_t* id, Describe describe) {
  rgpu::client::Pipe& pipe = rgpu::client::Pipe::get();
  if (!pipe.available()) return cudaErrorNoDevice;
  if (!pipe.carries_descriptors()) {
    RGPU_LOG_WARN("%s: a descriptor reaches rgpud only from its own host, over its Unix socket "
                  "(RGPU_SERVER=unix:PATH); this session's transport cannot carry one",
                  what);
    return cudaErrorNotSupported;
  }
  if (fd < 0) return cudaErrorInvalidValue;
  *id = rgpu::client::new_handle_id();
  Call call(call_id, CallClass::kSync);
  call.args().put<uint64_t>(*id);
  describe(call.args());
  call.attach_descriptor(fd);
  const int32_t st = call.invoke();
  if (st == rgpu::client::kStatusUnavailable) return cudaErrorNoDevice;
  if (st == cudaSuccess) ::close(fd);
  return static_cast<cudaError_t>(st);
}

}  // namespace

extern "C" cudaError_t cudaImportExternalMemory(cudaExternalMemory_t* extMem_out,
                                                const cudaExternalMemoryHandleDesc* memHandleDesc) {
  if (!extMem_out || !memHandleDesc || memHandleDesc->size == 0) return cudart_finish(cudaErrorInvalidValue);
  if (memHandleDesc->type != cudaExternalMemoryHandleTypeOpaqueFd) {
    RGPU_LOG_WARN("cudaImportExternalMemory: handle type %d is not a POSIX descriptor; rgpu imports only "
                  "cudaExternalMemoryHandleTypeOpaqueFd",
                  static_cast<int>(memHandleDesc->type));
    return cudart_finish(cudaErrorNotSupported);
  }
  uint64_t id = 0;
  const cudaError_t st = import_descriptor(
      rgpu::gen::cudart::k_cudaImportExternalMemory, "cudaImportExternalMemory", memHandleDesc->handle.fd, &id,
      [&](rgpu::wire::Encoder& args) {
        args.put<uint64_t>(memHandleDesc->size);
        args.put<uint32_t>(memHandleDesc->flags);
      });
  if (st == cudaSuccess) *extMem_out = reinterpret_cast<cudaExternalMemory_t>(id);
  return cudart_finish(st);
}

extern "C" cudaError_t cudaImportExternalSemaphore(cudaExternalSemaphore_t* extSem_out,
                                                   const cudaExternalSemaphoreHandleDesc* semHandleDesc) {
  if (!extSem_out || !semHandleDesc) return cudart_finish(cudaErrorInvalidValue);
  const auto type = semHandleDesc->type;
  if (type != cudaExternalSemaphoreHandleTypeOpaqueFd && type != cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd) {
    RGPU_LOG_WARN("cudaImportExternalSemaphore: handle type %d is not a POSIX descriptor; rgpu imports only "
                  "cudaExternalSemaphoreHandleTypeOpaqueFd and ...TimelineSemaphoreFd",
                  static_cast<int>(type));
    return cudart_finish(cudaErrorNotSupported);
  }
  uint64_t id = 0;
  const cudaError_t st = import_descriptor(
      rgpu::gen::cudart::k_cudaImportExternalSemaphore, "cudaImportExternalSemaphore", semHandleDesc->handle.fd, &id,
      [&](rgpu::wire::Encoder& args) {
        args.put<uint32_t>(static_cast<uint32_t>(type));
        args.put<uint32_t>(semHandleDesc->flags);
      });
  if (st == cudaSuccess) *extSem_out = reinterpret_cast<cudaExternalSemaphore_t>(id);
  return cudart_finish(st);
}

// The server maps the range; the memory map learns of it like memory opened from an IPC handle.
extern "C" cudaError_t cudaExternalMemoryGetMappedBuffer(void** devPtr, cudaExternalMemory_t extMem,
                                                         const cudaExternalMemoryBufferDesc* bufferDesc) {
  if (!devPtr || !bufferDesc || bufferDesc->size == 0) return cudart_finish(cudaErrorInvalidValue);
  const cudaError_t st = rgpu::gen::cudart::remote::cudaExternalMemoryGetMappedBuffer(devPtr, extMem, bufferDesc);
  if (st != cudaSuccess) return cudart_finish(st);
  rgpu::client::record_mapping(*devPtr, bufferDesc->size, "a buffer mapped from external memory");
  return cudaSuccess;
}
