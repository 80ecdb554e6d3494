// The bulk path (see bulk_copy.h).
#include "server/session/bulk_copy.h"

#include <algorithm>
#include <cstring>

#include "common/wire/codec.h"
#include "gen/cudart/cudart_ids.h"
#include "server/session/session.h"
#include "server/session/staging_ring.h"

namespace rgpu::server {

bool streams_bulk(uint32_t method, uint64_t bulk_len) {
  namespace ids = gen::cudart;
  if (bulk_len < kStreamedCopyFrom) return false;
  return method == ids::k_cudaMemcpy || method == ids::k_cudaMemcpy_ptds || method == ids::k_cudaMemcpyAsync ||
         method == ids::k_cudaMemcpyAsync_ptsz;
}

namespace handlers {
namespace {

constexpr size_t kPiece = StagingRing::kSlotBytes;

size_t piece_size(uint64_t count, size_t i) { return static_cast<size_t>(std::min<uint64_t>(kPiece, count - i * kPiece)); }

size_t pieces(uint64_t count) { return static_cast<size_t>((count + kPiece - 1) / kPiece); }

}  // namespace

bool streamed_h2d(CallContext& ctx, const wire::Copy1D& a, cudaStream_t stream, int32_t& status) {
  if (!ctx.bulk_reader || ctx.bulk_reader->left() != a.count) return false;
  StagingRing& ring = ctx.session.staging_ring();
  auto* dst = reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(a.dst));
  status = cudaSuccess;
  for (size_t i = 0, n = pieces(a.count); i < n; ++i) {
    int32_t earlier = cudaSuccess;
    uint8_t* buf = ring.acquire(i, &earlier);
    if (status == cudaSuccess) status = earlier;
    // A read failure ends the session (the session loop sees it in the reader); the rest of a
    // failed copy is still read, so the stream of frames stays in step.
    if (!ctx.bulk_reader->read(buf, piece_size(a.count, i)).is_ok()) return true;
    if (status == cudaSuccess)
      status = ring.copy(i, dst + i * kPiece, buf, piece_size(a.count, i), cudaMemcpyHostToDevice, stream);
  }
  return true;
}

bool streamed_d2h(CallContext& ctx, const wire::Copy1D& a, bool async, cudaStream_t stream, int32_t& status) {
  StagingRing& ring = ctx.session.staging_ring();
  const auto* src = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(a.src));
  const size_t n = pieces(a.count);
  auto issue = [&](size_t i) {
    int32_t earlier = cudaSuccess;
    uint8_t* buf = ring.acquire(i, &earlier);
    int32_t st = ring.copy(i, buf, src + i * kPiece, piece_size(a.count, i), cudaMemcpyDeviceToHost, stream);
    return earlier != cudaSuccess ? earlier : st;
  };
  // The first piece decides the call's status: nothing is sent before it is known.
  int32_t st = cudaSuccess;
  size_t issued = 0;
  for (; issued < std::min(n, StagingRing::kSlots) && st == cudaSuccess; ++issued) st = issue(issued);
  int32_t first = cudaSuccess;
  ring.acquire(0, &first);
  if (st == cudaSuccess) st = first;
  if (st != cudaSuccess) {
    for (size_t i = 1; i < issued; ++i) ring.acquire(i, &first);
    status = st;
    if (async) (void)ctx.session.send(wire::FrameKind::kData, 0, ctx.seq, {});  // ends the client's landing
    return true;
  }
  // Later pieces are sent as they come off the device; a slot is refilled once its piece is sent.
  // A failure past the first piece (a device fault meanwhile) sends zeros for the rest and is
  // reported as the call's asynchronous error.
  int32_t late = cudaSuccess;
  size_t next = 0;
  auto next_piece = [&]() -> std::span<const uint8_t> {
    size_t i = next++;
    if (i > 0 && i - 1 + StagingRing::kSlots < n && late == cudaSuccess) late = issue(i - 1 + StagingRing::kSlots);
    int32_t done = cudaSuccess;
    uint8_t* buf = ring.acquire(i, &done);
    if (late == cudaSuccess) late = done;
    if (late != cudaSuccess) std::memset(buf, 0, piece_size(a.count, i));
    return {buf, piece_size(a.count, i)};
  };
  wire::Encoder reply;
  reply.put<int32_t>(cudaSuccess);
  (void)ctx.session.send_streamed(async ? wire::FrameKind::kData : wire::FrameKind::kReply,
                                  async ? 0 : ctx.method, ctx.seq,
                                  async ? std::span<const uint8_t>() : reply.payload(), a.count, next_piece);
  ctx.replied = true;
  status = late;
  return true;
}

}  // namespace handlers
}  // namespace rgpu::server
