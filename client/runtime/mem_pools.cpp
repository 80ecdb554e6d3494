// Memory pools on the client. A pool is a handle id like a stream (the generated stubs create,
// destroy and configure them); here are the getters, whose answer is the id the pool already has
// in this session (so two queries of one pool compare equal), and allocation from a pool, which the
// memory map records like cudaMallocAsync's. The server checks such allocations against the
// session's slice (server/session/mem_pools.cpp).
#include <cuda_runtime_api.h>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/device_allocation.h"
#include "codegen/support/gen_marshal.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudart/cudart_remote.h"

using rgpu::client::cudart_finish;
namespace ids = rgpu::gen::cudart;

namespace {

// Asks the server for a pool: `encode` puts the query's arguments after the fresh id the server
// binds if the pool has none in this session yet; the reply is the pool's id.
template <typename Encode>
cudaError_t get_pool(uint32_t call_id, cudaMemPool_t* pool, Encode encode) {
  if (!pool) return cudart_finish(cudaErrorInvalidValue);
  rgpu::client::Call call(call_id, rgpu::client::CallClass::kSync);
  call.args().put<uint64_t>(rgpu::client::new_handle_id());
  encode(call.args());
  const int32_t rc = call.invoke();
  if (rc == rgpu::client::kStatusUnavailable) return cudart_finish(cudaErrorNoDevice);
  if (rc != cudaSuccess) return cudart_finish(static_cast<cudaError_t>(rc));
  if (!call.replied()) return cudart_finish(cudaErrorUnknown);
  const auto id = call.results().get<uint64_t>();
  if (!call.results().ok() || id <= 2) return cudart_finish(cudaErrorUnknown);  // 0..2: never a handle id
  *pool = rgpu::gen::handle_from_id<cudaMemPool_t>(id);
  return cudaSuccess;
}

cudaError_t device_pool(uint32_t call_id, cudaMemPool_t* pool, int device) {
  return get_pool(call_id, pool, [&](rgpu::wire::Encoder& e) { e.put<int>(device); });
}

cudaError_t location_pool(uint32_t call_id, cudaMemPool_t* pool, const cudaMemLocation* location,
                          cudaMemAllocationType type) {
  if (!location) return cudart_finish(cudaErrorInvalidValue);
  return get_pool(call_id, pool, [&](rgpu::wire::Encoder& e) {
    e.put(*location);
    e.put(static_cast<std::underlying_type_t<cudaMemAllocationType>>(type));
  });
}

}  // namespace

extern "C" cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  return device_pool(ids::k_cudaDeviceGetDefaultMemPool, memPool, device);
}

extern "C" cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* memPool, int device) {
  return device_pool(ids::k_cudaDeviceGetMemPool, memPool, device);
}

extern "C" cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t* memPool, cudaMemLocation* location,
                                                cudaMemAllocationType type) {
  return location_pool(ids::k_cudaMemGetDefaultMemPool, memPool, location, type);
}

extern "C" cudaError_t cudaMemGetMemPool(cudaMemPool_t* memPool, cudaMemLocation* location, cudaMemAllocationType type) {
  return location_pool(ids::k_cudaMemGetMemPool, memPool, location, type);
}

extern "C" cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return rgpu::client::allocate_device(ptr, [&](void** p, size_t* extent) {
    *extent = size;
    return rgpu::gen::cudart::remote::cudaMallocFromPoolAsync(p, size, memPool, stream);
  });
}

extern "C" cudaError_t cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, cudaMemPool_t memPool,
                                                    cudaStream_t stream) {
  return rgpu::client::allocate_device(ptr, [&](void** p, size_t* extent) {
    *extent = size;
    return rgpu::gen::cudart::remote::cudaMallocFromPoolAsync_ptsz(p, size, memPool, stream);
  });
}
