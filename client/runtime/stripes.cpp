// Striped copies (see stripes.h).
#include "client/runtime/stripes.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <atomic>

#include "client/runtime/call.h"
#include "client/runtime/pipe.h"
#include "client/runtime/settings.h"
#include "common/config.h"
#include "common/wire/copy_args.h"
#include "common/wire/internal_calls.h"

namespace rgpu::client {
namespace {

const Tunable kStripes{"RGPU_STRIPES", wire::kDefaultStripes,
                       "how many TCP connections a large cudaMemcpy or cudaMemcpyAsync is spread over (1: no striping)"};
const Tunable kStripeMinMb{"RGPU_STRIPE_MIN_MB", "16", "smallest cudaMemcpy or cudaMemcpyAsync (MiB) that is striped"};

size_t stripe_count() {
  static const size_t n = static_cast<size_t>(std::clamp<int64_t>(kStripes.get_int(), 1, 64));
  return n;
}

// Slice k of a copy of n bytes over `stripes` connections: the server computes the same.
struct Slice {
  uint64_t offset;
  uint64_t length;
};
Slice slice(uint64_t n, size_t stripes, size_t k) {
  const uint64_t size = ((n + stripes - 1) / stripes + 4095) & ~uint64_t{4095};
  uint64_t offset = std::min<uint64_t>(k * size, n);
  return {offset, std::min<uint64_t>(size, n - offset)};
}

}  // namespace

Stripes& Stripes::get() {
  static Stripes* s = new Stripes();  // leaked like the pipe: copies may run from static destructors
  return *s;
}

bool Stripes::use_locked(size_t n) {
  static const size_t min_bytes = static_cast<size_t>(std::max<int64_t>(kStripeMinMb.get_int(), 1)) << 20;
  if (stripe_count() < 2 || n < min_bytes) return false;
  if (opened_) return conns_.size() == stripe_count();
  opened_ = true;
  Pipe& pipe = Pipe::get();
  if (!pipe.available()) return false;
  // rgpud hands a stripe's socket to the session's worker, which cannot take a TLS session with it.
  if (pipe.encrypted()) return false;
  transport::ClientIdentity id = pipe.identity();
  id.role = transport::Role::kStripe;
  id.transport.clear();  // a stripe stays on its socket, whatever the pipe continued on
  id.session_id = pipe.welcome().session_id;
  id.session_secret = pipe.welcome().session_secret;
  for (size_t k = 0; k < stripe_count(); ++k) {
    transport::Welcome w;
    auto conn = transport::connect_and_handshake(pipe.server_address(), id, kToken.get(), &w,
                                                 std::chrono::seconds(kHandshakeTimeout.get_int()));
    const Status st = conn.status();
    if (!st.is_ok()) {
      std::fprintf(stderr, "rgpu: large copies will not be striped: stripe connection %zu failed: %s\n", k + 1,
                   st.message().substr(0, st.message().find('\n')).c_str());
      conns_.clear();
      return false;
    }
    conns_.push_back(std::move(*conn));
  }
  team_ = std::make_unique<WorkerTeam>(conns_.size());
  receive_team_ = std::make_unique<WorkerTeam>(conns_.size());
  return true;
}

bool Stripes::copy_h2d(void* dst, const void* src, size_t n, int32_t* status, const uint64_t* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!use_locked(n)) return false;
  Pipe::get().wait_landings(src, n);
  wire::StripedCopy sc{};
  sc.copy = wire::Copy1D{reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), n,
                         cudaMemcpyHostToDevice, -1, stream ? *stream : 0, -1, 0};
  sc.transfer = next_transfer_++;
  sc.stripes = static_cast<uint32_t>(conns_.size());
  sc.on_stream = stream ? 1 : 0;
  // The slices go first: under RGPU_SYNC the call below waits for the server, which waits for them.
  std::atomic<bool> ok{true};
  auto send = [&](size_t k) {
    Slice s = slice(n, conns_.size(), k);
    auto h = wire::make_header(wire::FrameKind::kData, 0, sc.transfer, sizeof s.offset, s.length);
    iovec bulk{static_cast<uint8_t*>(const_cast<void*>(src)) + s.offset, s.length};
    if (!conns_[k]
             ->send_frame(h, {reinterpret_cast<const uint8_t*>(&s.offset), sizeof s.offset},
                          s.length ? std::span<const iovec>(&bulk, 1) : std::span<const iovec>())
             .is_ok())
      ok = false;
  };
  team_->start(conns_.size(), send);
  Call call(wire::kCallStripedCopy, CallClass::kAsync);
  call.args().put(sc);
  *status = call.post();
  team_->wait();
  if (!ok) std::fprintf(stderr, "rgpu: a stripe connection failed during a copy\n");
  return true;
}

bool Stripes::copy_d2h(void* dst, const void* src, size_t n, int32_t* status, const uint64_t* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!use_locked(n)) return false;
  wire::StripedCopy sc{};
  sc.copy = wire::Copy1D{reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), n,
                         cudaMemcpyDeviceToHost, -1, stream ? *stream : 0, -1, 0};
  sc.transfer = next_transfer_++;
  sc.stripes = static_cast<uint32_t>(conns_.size());
  sc.on_stream = stream ? 1 : 0;
  // The receiver lands the slices where the call's reply bulk, or its async landing, would go.
  Call call(wire::kCallStripedCopy, stream ? CallClass::kAsync : CallClass::kSync);
  call.args().put(sc);
  call.expect_reply_bulk(dst, n);
  *status = stream ? call.post() : call.invoke();
  return true;
}

bool Stripes::land(void* dst, size_t n, uint64_t transfer, uint64_t count, uint32_t stripes) {
  if (stripes != conns_.size() || !receive_team_) return false;
  if (n != count) dst = nullptr;
  // Every stripe carries one slice of the copy, wherever it belongs.
  std::atomic<bool> ok{true};
  auto receive = [&](size_t k) {
    wire::FrameHeader h;
    uint64_t offset = 0;
    const bool got = conns_[k]->recv_header(h).is_ok() && h.payload_len == sizeof offset &&
                     conns_[k]->recv_exact(&offset, sizeof offset).is_ok() && h.seq == transfer &&
                     offset <= count && h.bulk_len <= count - offset &&
                     (dst ? conns_[k]->recv_exact(static_cast<uint8_t*>(dst) + offset, h.bulk_len)
                          : conns_[k]->skip(h.bulk_len))
                         .is_ok();
    if (!got) ok = false;
  };
  receive_team_->run(conns_.size(), receive);
  if (!ok) std::fprintf(stderr, "rgpu: a stripe connection failed during a copy\n");
  return ok;
}

}  // namespace rgpu::client
