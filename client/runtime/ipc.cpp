// CUDA IPC between sessions of one rgpud. Every session is its own worker process on the GPU host,
// so the driver's handles (64 opaque bytes, made and opened on the server) open in another session
// there. Here: the memory map learns of memory opened from a handle, with the extent the server
// found (so cudaMemcpyDefault and cudaPointerGetAttributes know it), and forgets it when closed.
#include <cuda_runtime_api.h>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/device_allocation.h"
#include "client/runtime/memory_map.h"
#include "common/log.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudart/cudart_remote.h"

using rgpu::client::cudart_finish;
using rgpu::client::MemoryMap;

extern "C" cudaError_t cudaIpcOpenMemHandle(void** devPtr, cudaIpcMemHandle_t handle, unsigned int flags) {
  if (!devPtr) return cudart_finish(cudaErrorInvalidValue);
  rgpu::client::Call call(rgpu::gen::cudart::k_cudaIpcOpenMemHandle, rgpu::client::CallClass::kSync);
  call.args().put(handle);
  call.args().put(flags);
  const int32_t rc = call.invoke();
  if (rc == rgpu::client::kStatusUnavailable) return cudart_finish(cudaErrorNoDevice);
  if (rc != cudaSuccess) return cudart_finish(static_cast<cudaError_t>(rc));
  if (!call.replied()) return cudart_finish(cudaErrorUnknown);
  const auto address = call.results().get<uint64_t>();
  const auto size = call.results().get<uint64_t>();
  if (!call.results().ok()) return cudart_finish(cudaErrorUnknown);
  *devPtr = reinterpret_cast<void*>(static_cast<uintptr_t>(address));
  // A handle opens once per session, so there is no asking for another address (memory_map.h).
  rgpu::client::record_mapping(*devPtr, size, "memory opened from an IPC handle");
  return cudaSuccess;
}

extern "C" cudaError_t cudaIpcCloseMemHandle(void* devPtr) {
  cudaError_t st = rgpu::gen::cudart::remote::cudaIpcCloseMemHandle(devPtr);
  if (st == cudaSuccess) MemoryMap::get().remove_device(devPtr);
  return cudart_finish(st);
}
