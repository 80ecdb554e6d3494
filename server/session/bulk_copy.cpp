// The bulk path (see bulk_copy.h).
#include "server/session/bulk_copy.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/wire/internal_calls.h"
#include "gen/cudart/cudart_api.h"
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

Status send_pieces(transport::Connection& conn, const wire::FrameHeader& h, std::span<const uint8_t> payload,
                   const std::function<std::span<const uint8_t>()>& next_piece) {
  iovec head[2] = {{const_cast<wire::FrameHeader*>(&h), sizeof h}, {const_cast<uint8_t*>(payload.data()), payload.size()}};
  RGPU_TRY(conn.send_bytes({head, payload.empty() ? 1u : 2u}));
  for (uint64_t sent = 0; sent < h.bulk_len;) {
    std::span<const uint8_t> piece = next_piece();
    if (piece.empty() || piece.size() > h.bulk_len - sent)
      return RGPU_ERROR(kInternal, "a streamed frame's pieces do not add up to its length");
    iovec v{const_cast<uint8_t*>(piece.data()), piece.size()};
    RGPU_TRY(conn.send_bytes({&v, 1}));
    sent += piece.size();
  }
  return Status::ok();
}

namespace handlers {
namespace {

struct Pieces {
  uint64_t total;
  size_t size;
  size_t count() const { return static_cast<size_t>((total + size - 1) / size); }
  size_t at(size_t i) const { return static_cast<size_t>(std::min<uint64_t>(size, total - i * size)); }
};

// Moves n bytes from `reader` through `ring` to device memory at dst. Returns the copy's status;
// after a failure the rest is still read, so the byte stream stays in step (a read failure stops
// it: the reader keeps that error for the caller). A ring without its buffers (no host memory for
// them) fails the copy, its bytes skipped.
int32_t h2d_through(StagingRing& ring, BulkReader& reader, uint8_t* dst, uint64_t n, cudaStream_t stream) {
  if (!ring.complete()) {
    (void)reader.skip(n);
    return cudaErrorMemoryAllocation;
  }
  Pieces p{n, ring.slot_bytes()};
  int32_t status = cudaSuccess;
  for (size_t i = 0; i < p.count(); ++i) {
    int32_t earlier = cudaSuccess;
    uint8_t* buf = ring.acquire(i, &earlier);
    if (status == cudaSuccess) status = earlier;
    if (!reader.read(buf, p.at(i)).is_ok()) return status;
    if (status == cudaSuccess) status = ring.copy(i, dst + i * p.size, buf, p.at(i), cudaMemcpyHostToDevice, stream);
  }
  return status;
}

// Moves n bytes of device memory at src through `ring`. The first piece decides the copy's status:
// nothing is sent before it is known, and on failure that status is returned and `send` is not
// called. Otherwise `send(next_piece)` sends the bytes as next_piece hands them over, each piece
// once the device has copied it, a slot refilled once its piece is sent. A failure past the first
// piece (a device fault meanwhile) sends zeros for the rest and lands in *late. A ring without its
// buffers fails the copy before anything is sent.
int32_t d2h_through(StagingRing& ring, const uint8_t* src, uint64_t n, cudaStream_t stream,
                    const std::function<void(const std::function<std::span<const uint8_t>()>&)>& send,
                    int32_t* late) {
  *late = cudaSuccess;
  if (!ring.complete()) return cudaErrorMemoryAllocation;
  Pieces p{n, ring.slot_bytes()};
  const size_t count = p.count();
  auto issue = [&](size_t i) {
    int32_t earlier = cudaSuccess;
    uint8_t* buf = ring.acquire(i, &earlier);
    int32_t st = ring.copy(i, buf, src + i * p.size, p.at(i), cudaMemcpyDeviceToHost, stream);
    return earlier != cudaSuccess ? earlier : st;
  };
  int32_t st = n > 0 ? ring.probe(src + n - 1, stream) : cudaSuccess;
  size_t issued = 0;
  for (; issued < std::min(count, StagingRing::kSlots) && st == cudaSuccess; ++issued) st = issue(issued);
  int32_t first = cudaSuccess;
  if (count > 0) ring.acquire(0, &first);
  if (st == cudaSuccess) st = first;
  if (st != cudaSuccess) {
    for (size_t i = 1; i < issued; ++i) ring.acquire(i, &first);
    return st;
  }
  size_t next = 0;
  send([&]() -> std::span<const uint8_t> {
    size_t i = next++;
    if (i > 0 && i - 1 + StagingRing::kSlots < count && *late == cudaSuccess) *late = issue(i - 1 + StagingRing::kSlots);
    int32_t done = cudaSuccess;
    uint8_t* buf = ring.acquire(i, &done);
    if (*late == cudaSuccess) *late = done;
    if (*late != cudaSuccess) std::memset(buf, 0, p.at(i));
    return {buf, p.at(i)};
  });
  return cudaSuccess;
}

}  // namespace

bool streamed_h2d(CallContext& ctx, const wire::Copy1D& a, cudaStream_t stream, int32_t& status) {
  if (!ctx.bulk_reader || ctx.bulk_reader->left() != a.count) return false;
  status = h2d_through(ctx.session.staging_ring(), *ctx.bulk_reader,
                       reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(a.dst)), a.count, stream);
  return true;
}

bool streamed_d2h(CallContext& ctx, const wire::Copy1D& a, cudaStream_t stream, int32_t& status) {
  wire::Encoder reply;
  reply.put<int32_t>(cudaSuccess);
  auto h = wire::make_header(wire::FrameKind::kReply, ctx.method, ctx.seq, static_cast<uint32_t>(reply.payload().size()),
                             a.count);
  int32_t late = cudaSuccess;
  status = d2h_through(ctx.session.staging_ring(), reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(a.src)),
                       a.count, stream,
                       [&](const std::function<std::span<const uint8_t>()>& next_piece) {
                         // The device's earlier work is done: async D2H copies it covers go first.
                         ctx.session.landings().settle(ctx.seq);
                         (void)ctx.session.send_streamed(h, reply.payload(), next_piece);
                         ctx.replied = true;
                       },
                       &late);
  if (status == cudaSuccess) status = late;  // a failure before any byte is the reply's status
  return true;
}

namespace {

// The bulk of one slice, read from its stripe connection.
class StripeReader final : public BulkReader {
 public:
  StripeReader(transport::Connection& conn, uint64_t n) : conn_(conn), left_(n) {}
  Status read(void* dst, size_t n) override {
    if (n > left_) return RGPU_ERROR(kProtocol, "read past a slice");
    left_ -= n;
    return kept(conn_.recv_exact(dst, n));
  }
  Status skip(uint64_t n) override {
    if (n > left_) return RGPU_ERROR(kProtocol, "skipped past a slice");
    left_ -= n;
    return kept(conn_.skip(n));
  }
  uint64_t left() const override { return left_; }
  Status status = Status::ok();

 private:
  Status kept(Status st) {
    if (!st.is_ok() && status.is_ok()) status = st;
    return st;
  }
  transport::Connection& conn_;
  uint64_t left_;
};

// One stripe's part of a striped H2D copy, on a thread of its own.
struct SliceJob {
  transport::Connection* conn;
  StagingRing* ring;
  uint64_t received = 0;  // the length of the slice that came
  int32_t status = cudaSuccess;
  Status io = Status::ok();
};

// `stream` null and `discard`: the copy's stream is unknown, so its bytes are read and dropped
// (the stripes must stay in step with the pipe) and the copy fails.
void receive_slice(SliceJob& job, const wire::StripedCopy& sc, cudaStream_t stream, bool discard) {
  wire::FrameHeader h;
  job.io = job.conn->recv_header(h);
  uint64_t offset = 0;
  if (job.io.is_ok()) job.io = job.conn->recv_exact(&offset, sizeof offset);
  if (!job.io.is_ok()) return;
  if (h.kind != static_cast<uint16_t>(wire::FrameKind::kData) || h.seq != sc.transfer || h.payload_len != 8 ||
      offset > sc.copy.count || h.bulk_len > sc.copy.count - offset) {
    job.io = RGPU_ERROR(kProtocol, "a stripe sent a slice that is not part of the copy");
    return;
  }
  job.received = h.bulk_len;
  if (discard) {
    job.io = job.conn->skip(h.bulk_len);
    job.status = cudaErrorInvalidResourceHandle;
    return;
  }
  StripeReader reader(*job.conn, h.bulk_len);
  job.status = h2d_through(*job.ring, reader, reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(sc.copy.dst)) + offset,
                           h.bulk_len, stream);
  job.io = reader.status;
}

// The slices of a striped H2D copy, one from each stripe at once, into device memory on `stream`.
bool striped_h2d(CallContext& ctx, const wire::StripedCopy& sc, cudaStream_t stream, bool unknown_stream,
                 int32_t& status) {
  std::vector<transport::Connection*> conns = ctx.session.stripes().first(sc.stripes);
  int device = 0;
  if (ctx.cudart.cudaGetDevice) ctx.cudart.cudaGetDevice(&device);
  std::vector<SliceJob> jobs(sc.stripes);
  for (uint32_t k = 0; k < sc.stripes; ++k) {
    jobs[k].conn = conns[k];
    jobs[k].ring = &ctx.session.staging_ring(static_cast<int>(k));
  }
  auto move_slice = [&ctx, &jobs, &sc, device, stream, unknown_stream](size_t k) {
    if (ctx.cudart.cudaSetDevice) ctx.cudart.cudaSetDevice(device);
    receive_slice(jobs[k], sc, stream, unknown_stream);
  };
  ctx.session.stripe_team(sc.stripes).run(sc.stripes, move_slice);
  status = cudaSuccess;
  uint64_t received = 0;
  for (const SliceJob& job : jobs) {
    if (!job.io.is_ok()) {
      ctx.session.abort(job.io);
      return true;
    }
    if (status == cudaSuccess) status = job.status;
    received += job.received;
  }
  ctx.session.count_striped(received, 0);
  if (received != sc.copy.count) ctx.session.abort(RGPU_ERROR(kProtocol, "the slices of a striped copy do not add up to it"));
  return true;
}

}  // namespace

bool striped_copy(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  auto sc = in.get<wire::StripedCopy>();
  if (!in.ok() || !in.at_end() || sc.stripes == 0 || sc.stripes > 64 || !ctx.bulk_in.empty() || sc.on_stream > 1 ||
      sc.copy.count == 0)
    return false;
  auto kind = static_cast<cudaMemcpyKind>(sc.copy.kind);
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToHost) return false;
  // The client stripes only over stripes it was welcomed on.
  if (ctx.session.stripes().first(sc.stripes).size() != sc.stripes) return false;
  // A synchronous copy is on the legacy default stream (per-thread default streams are per thread,
  // and the stripes' threads are not the client's); an asynchronous one on its own stream.
  cudaStream_t stream = nullptr;
  const bool unknown_stream = sc.on_stream && !ctx.handles.resolve(HandleKind::kStream, sc.copy.stream, &stream);
  if (kind == cudaMemcpyHostToDevice) return striped_h2d(ctx, sc, stream, unknown_stream, status);
  // D2H: issued on its stream on this thread, its slices sent once the stream gets there.
  const auto* src = reinterpret_cast<const void*>(static_cast<uintptr_t>(sc.copy.src));
  if (unknown_stream) {
    status = cudaErrorInvalidResourceHandle;
  } else {
    status = ctx.session.landings().issue(ctx.seq, ctx.method, src, sc.copy.count, stream, {sc.stripes, sc.transfer},
                                          !sc.on_stream);
    if (status == cudaSuccess && !sc.on_stream) status = ctx.session.landings().finish_sync(ctx.seq);
  }
  // An async copy that failed at once still ends its landing, empty.
  if (status != cudaSuccess && sc.on_stream) (void)ctx.session.send(wire::FrameKind::kData, 0, ctx.seq, {});
  return true;
}

}  // namespace handlers
}  // namespace rgpu::server
