// Device allocation handlers: the same wire form as the generated dispatchers (the client calls
// them through generated remote:: forwarders), plus the check against the session's memory slice
// and the allocation bookkeeping for the end-of-session report. On an over-committed GPU, cudaMalloc
// of 2 MiB and more makes movable memory (swap_space.h); the other allocation calls stay resident.
// A cudaMalloc past the slice is served from the tenant's memory extension when it has one
// (host_extension.h).
#include <algorithm>

#include "codegen/support/gen_marshal.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/internal_handlers.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

using MallocAsyncFn = cudaError_t (*)(void**, size_t, cudaStream_t);
using FreeAsyncFn = cudaError_t (*)(void*, cudaStream_t);

bool not_available(int32_t& status) {
  status = cudaErrorNotSupported;
  return true;
}

// The slice check of an allocation; false (with cudaErrorMemoryAllocation, as a full GPU answers)
// when it would cross the session's slice.
bool fits(CallContext& ctx, uint64_t bytes, uint64_t piece, int32_t& status) {
  if (ctx.session.memory().admit(bytes, piece)) return true;
  status = cudaErrorMemoryAllocation;
  return false;
}

bool malloc_async(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, MallocAsyncFn fn) {
  gen::Buffer<void*> ptr;
  if (!ptr.read_presence(in)) return false;
  auto size = in.get<size_t>();
  auto stream_id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end() || !ptr.allocate(1)) return false;
  if (!fn) return not_available(status);
  cudaStream_t stream{};
  if (!ctx.handles.resolve(HandleKind::kStream, stream_id, &stream)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  if (!fits(ctx, size, MemorySlice::kPoolPiece, status)) return true;
  status = fn(ptr.get(), size, stream);
  if (status == cudaSuccess && ptr.get()) ctx.session.note_alloc(*ptr.get(), size);
  if (status == cudaSuccess) ptr.write(out);
  return true;
}

bool free_async(CallContext& ctx, wire::Decoder& in, int32_t& status, FreeAsyncFn fn) {
  auto p = reinterpret_cast<void*>(static_cast<uintptr_t>(in.get<uint64_t>()));
  auto stream_id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return false;
  if (!fn) return not_available(status);
  cudaStream_t stream{};
  if (!ctx.handles.resolve(HandleKind::kStream, stream_id, &stream)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  status = fn(p, stream);
  if (status == cudaSuccess) ctx.session.note_free(p);
  return true;
}

}  // namespace

bool cudaMalloc(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  gen::Buffer<void*> ptr;
  if (!ptr.read_presence(in)) return false;
  auto size = in.get<size_t>();
  if (!in.ok() || !in.at_end() || !ptr.allocate(1)) return false;
  if (!ctx.cudart.cudaMalloc) return not_available(status);
  if (!ctx.session.memory().admit(size, MemorySlice::kCommitPiece)) {
    // Past the slice: the tenant's memory extension, if it has room, or a full GPU's answer.
    if (!ctx.session.host_extension().allocate(size, ptr.get(), &status)) {
      status = cudaErrorMemoryAllocation;
      return true;
    }
    ctx.session.memory().refresh();  // the pool hears where the session's memory lives
  } else if (SwapSpace* swap = ctx.session.swap(); !swap || !swap->allocate(size, ptr.get(), &status)) {
    // On an over-committed GPU large allocations are movable (swap_space.h).
    status = ctx.cudart.cudaMalloc(ptr.get(), size);
  }
  if (status == cudaSuccess && ptr.get()) ctx.session.note_alloc(*ptr.get(), size);
  if (status == cudaSuccess) ptr.write(out);
  return true;
}

bool cudaMallocPitch(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  gen::Buffer<void*> ptr;
  gen::Buffer<size_t> pitch;
  if (!ptr.read_presence(in) || !pitch.read_presence(in)) return false;
  auto width = in.get<size_t>();
  auto height = in.get<size_t>();
  if (!in.ok() || !in.at_end() || !ptr.allocate(1) || !pitch.allocate(1)) return false;
  if (!ctx.cudart.cudaMallocPitch) return not_available(status);
  // Rows are padded to at most 512 bytes (the H200's texture pitch alignment).
  if (!fits(ctx, (width + 511) / 512 * 512 * height, MemorySlice::kCommitPiece, status)) return true;
  status = ctx.cudart.cudaMallocPitch(ptr.get(), pitch.get(), width, height);
  if (status == cudaSuccess && ptr.get() && pitch.get()) ctx.session.note_alloc(*ptr.get(), *pitch.get() * height);
  if (status == cudaSuccess) {
    ptr.write(out);
    pitch.write(out);
  }
  return true;
}

bool cudaMallocAsync(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return malloc_async(ctx, in, out, status, ctx.cudart.cudaMallocAsync);
}

bool cudaMallocAsync_ptsz(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return malloc_async(ctx, in, out, status, ctx.cudart.cudaMallocAsync_ptsz);
}

// A sliced session sees a GPU of its slice: total is the slice, free what of it the session's
// process does not hold.
bool cudaMemGetInfo(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  gen::Buffer<size_t> free_bytes, total_bytes;
  if (!free_bytes.read_presence(in) || !total_bytes.read_presence(in)) return false;
  if (!in.ok() || !in.at_end() || !free_bytes.allocate(1) || !total_bytes.allocate(1)) return false;
  if (!ctx.cudart.cudaMemGetInfo) return not_available(status);
  status = ctx.cudart.cudaMemGetInfo(free_bytes.get(), total_bytes.get());
  if (status != cudaSuccess) return true;
  MemorySlice& slice = ctx.session.memory();
  if (slice.enforced() && free_bytes.get() && total_bytes.get()) {
    slice.refresh();
    const uint64_t limit = slice.limit(), used = slice.used();
    *total_bytes.get() = limit;
    *free_bytes.get() = std::min<uint64_t>(*free_bytes.get(), used < limit ? limit - used : 0);
  }
  free_bytes.write(out);
  total_bytes.write(out);
  return true;
}

bool cudaFree(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  auto p = reinterpret_cast<void*>(static_cast<uintptr_t>(in.get<uint64_t>()));
  if (!in.ok() || !in.at_end()) return false;
  if (!ctx.cudart.cudaFree) return not_available(status);
  SwapSpace* swap = ctx.session.swap();
  if (ctx.session.host_extension().free(p, &status)) ctx.session.memory().refresh();
  else if (!swap || !swap->free(p, &status)) status = ctx.cudart.cudaFree(p);
  if (status == cudaSuccess) ctx.session.note_free(p);
  return true;
}

// cudaFree synchronises the device; a kept block's free did not (client/runtime/freed_blocks.h), so
// its reuse does, here on the session thread rather than handed to a wait thread like a
// cudaDeviceSynchronize: no call after it, on any stream, starts before the work issued before the
// block's cudaFree has ended. The client does not wait for it.
bool reuse_barrier(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  if (!in.at_end()) return false;
  if (!ctx.cudart.cudaDeviceSynchronize) return not_available(status);
  status = ctx.cudart.cudaDeviceSynchronize();
  return true;
}

bool cudaFreeAsync(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return free_async(ctx, in, status, ctx.cudart.cudaFreeAsync);
}

bool cudaFreeAsync_ptsz(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return free_async(ctx, in, status, ctx.cudart.cudaFreeAsync_ptsz);
}

}  // namespace rgpu::server::handlers
