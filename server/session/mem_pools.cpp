// Memory pool handlers. Pools are client ids bound to the backend's pools (HandleKind::kMemPool),
// as streams are. Three things need more than the generated dispatchers:
//  - the getters (a device's default or current pool) answer with the id the pool already has in
//    this session, binding the client's fresh id only the first time: one pool, one handle, so a
//    client may compare them;
//  - an allocation from any pool is checked against the session's memory slice exactly as
//    cudaMallocAsync's (MemorySlice::kPoolPiece): a created pool is no way around the slice. What a
//    pool keeps after frees (its release threshold) stays in the process's device memory, which is
//    what the slice counts, so it is counted too; a trim re-reads that figure;
//  - a created pool must live in device memory: a pinned host pool would hand out the server's
//    RAM, which no slice bounds and the client cannot reach.
#include <cuda_runtime_api.h>

#include <cstdio>

#include "codegen/support/gen_marshal.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

bool not_available(int32_t& status) {
  status = cudaErrorNotSupported;
  return true;
}

// Replies with the session's id for `pool`: the one it has, or `fresh` bound now.
void answer_pool(CallContext& ctx, cudaMemPool_t pool, uint64_t fresh, wire::Encoder& out) {
  uint64_t id = ctx.handles.find_id(HandleKind::kMemPool, pool);
  if (!id) {
    id = fresh;
    ctx.handles.bind_handle(HandleKind::kMemPool, id, pool);
  }
  out.put<uint64_t>(id);
}

// A fresh id is one the client could have made (never 0..2, which CUDA reserves).
bool read_fresh(wire::Decoder& in, uint64_t* fresh) {
  *fresh = in.get<uint64_t>();
  return in.ok() && !HandleTable::is_builtin(*fresh);
}

template <typename Fn>
bool device_pool(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, Fn fn) {
  uint64_t fresh = 0;
  if (!read_fresh(in, &fresh)) return false;
  auto device = in.get<int>();
  if (!in.ok() || !in.at_end()) return false;
  if (!fn) return not_available(status);
  cudaMemPool_t pool{};
  status = fn(&pool, device);
  if (status == cudaSuccess) answer_pool(ctx, pool, fresh, out);
  return true;
}

template <typename Fn>
bool location_pool(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, Fn fn) {
  uint64_t fresh = 0;
  if (!read_fresh(in, &fresh)) return false;
  auto location = in.get<cudaMemLocation>();
  auto type = in.get<std::underlying_type_t<cudaMemAllocationType>>();
  if (!in.ok() || !in.at_end()) return false;
  if (!fn) return not_available(status);
  cudaMemPool_t pool{};
  status = fn(&pool, &location, static_cast<cudaMemAllocationType>(type));
  if (status == cudaSuccess) answer_pool(ctx, pool, fresh, out);
  return true;
}

bool malloc_from_pool(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status,
                      decltype(gen::cudart::Api::cudaMallocFromPoolAsync) fn) {
  gen::Buffer<void*> ptr;
  if (!ptr.read_presence(in)) return false;
  auto size = in.get<size_t>();
  auto pool_id = in.get<uint64_t>();
  auto stream_id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end() || !ptr.allocate(1)) return false;
  if (!fn) return not_available(status);
  cudaMemPool_t pool{};
  cudaStream_t stream{};
  if (!ctx.handles.resolve(HandleKind::kMemPool, pool_id, &pool) ||
      !ctx.handles.resolve(HandleKind::kStream, stream_id, &stream)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  if (!ctx.session.memory().admit(size, MemorySlice::kPoolPiece)) {
    status = cudaErrorMemoryAllocation;  // what a full GPU answers
    return true;
  }
  status = fn(ptr.get(), size, pool, stream);
  if (status == cudaSuccess && ptr.get()) ctx.session.note_alloc(*ptr.get(), size);
  if (status == cudaSuccess) ptr.write(out);
  return true;
}

}  // namespace

bool cudaDeviceGetDefaultMemPool(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return device_pool(ctx, in, out, status, ctx.cudart.cudaDeviceGetDefaultMemPool);
}

bool cudaDeviceGetMemPool(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return device_pool(ctx, in, out, status, ctx.cudart.cudaDeviceGetMemPool);
}

bool cudaMemGetDefaultMemPool(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return location_pool(ctx, in, out, status, ctx.cudart.cudaMemGetDefaultMemPool);
}

bool cudaMemGetMemPool(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return location_pool(ctx, in, out, status, ctx.cudart.cudaMemGetMemPool);
}

// The generated wire form: the new pool's id, then the properties as bytes.
bool cudaMemPoolCreate(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const uint64_t id = in.get<uint64_t>();
  gen::Buffer<cudaMemPoolProps> props;
  if (!props.read_in(in) || !in.ok() || !in.at_end() || !props.has_count(1)) return false;
  if (HandleTable::is_builtin(id) && id != 0) return false;
  if (!ctx.cudart.cudaMemPoolCreate) return not_available(status);
  if (!id || !props.get()) {
    status = cudaErrorInvalidValue;
    return true;
  }
  cudaMemPoolProps& p = *props.get();
  if (p.location.type != cudaMemLocationTypeDevice) {
    std::fprintf(stderr, "rgpu: cudaMemPoolCreate: only pools in device memory are served (location type %d refused)\n",
                 static_cast<int>(p.location.type));
    status = cudaErrorNotSupported;
    return true;
  }
  p.win32SecurityAttributes = nullptr;  // Windows only; a client's pointer means nothing here
  cudaMemPool_t pool{};
  status = ctx.cudart.cudaMemPoolCreate(&pool, &p);
  if (status == cudaSuccess) ctx.handles.bind_handle(HandleKind::kMemPool, id, pool);
  return true;
}

bool cudaMemPoolTrimTo(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const uint64_t id = in.get<uint64_t>();
  auto keep = in.get<size_t>();
  if (!in.ok() || !in.at_end()) return false;
  if (!ctx.cudart.cudaMemPoolTrimTo) return not_available(status);
  cudaMemPool_t pool{};
  if (!ctx.handles.resolve(HandleKind::kMemPool, id, &pool)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  status = ctx.cudart.cudaMemPoolTrimTo(pool, keep);
  if (status == cudaSuccess) ctx.session.memory().refresh();  // the pool gave memory back
  return true;
}

bool cudaMallocFromPoolAsync(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return malloc_from_pool(ctx, in, out, status, ctx.cudart.cudaMallocFromPoolAsync);
}

bool cudaMallocFromPoolAsync_ptsz(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return malloc_from_pool(ctx, in, out, status, ctx.cudart.cudaMallocFromPoolAsync_ptsz);
}

}  // namespace rgpu::server::handlers
