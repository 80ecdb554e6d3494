// UcxConnection: the Connection interface over librgpu_transport_ucx.so's endpoint.
#include "transports/ucx/ucx_connection.h"

#include <algorithm>
#include <vector>

#include "common/config.h"
#include "transports/ucx/ucx_plugin.h"

namespace rgpu::transport::ucx {

namespace {

const Tunable kUcxSpin{"RGPU_UCX_SPIN_US", "20",
                       "how long a UCX send or receive polls before it sleeps on the worker's descriptor, in "
                       "microseconds"};
const Tunable kUcxRmaMin{"RGPU_UCX_RMA_MIN", "262144",
                         "the smallest bulk segment a UCX connection sends by one-sided RMA (the peer reads it with "
                         "ucp_get), in bytes; 0: every byte through UCX's stream"};

// The address swap's bound, like a TCP connect's: a peer that does not answer is unreachable.
constexpr int kSwapTimeoutMs = 10'000;
// What skip() reads into at a time.
constexpr size_t kSkipChunk = 256 << 10;

}  // namespace

UcxConnection::UcxConnection(const rgpu_ucx_ops* ops, rgpu_ucx_endpoint* endpoint, std::unique_ptr<Connection> lifeline)
    : ops_(ops), endpoint_(endpoint), lifeline_(std::move(lifeline)), peer_("ucx, paired over " + lifeline_->peer()) {}

UcxConnection::~UcxConnection() { ops_->close(endpoint_); }  // then the lifeline closes

Status UcxConnection::error(int result, const rgpu_ucx_message& why, uint64_t done, uint64_t want) const {
  std::string progress = " after " + std::to_string(done) + " of " + std::to_string(want) + " bytes";
  if (shut_down_.load(std::memory_order_acquire))
    return RGPU_ERROR(kClosed, "connection " + peer_ + " was shut down (" + why.text + progress + ")");
  if (result == RGPU_UCX_CLOSED) return RGPU_ERROR(kClosed, "peer " + peer_ + " closed the connection (" + why.text + progress + ")");
  if (result == RGPU_UCX_PROTOCOL) return RGPU_ERROR(kProtocol, "peer " + peer_ + ": " + why.text);
  return RGPU_ERROR(kIo, "connection " + peer_ + ": " + why.text + progress);
}

Status UcxConnection::send_bytes(std::span<const iovec> segments) {
  uint64_t total = 0;
  for (const iovec& segment : segments) total += segment.iov_len;
  rgpu_ucx_message why{};
  const int result = ops_->send(endpoint_, segments.data(), segments.size(), &why);
  return result == RGPU_UCX_OK ? Status::ok() : error(result, why, 0, total);
}

Status UcxConnection::recv_exact(void* dst, size_t n) {
  auto* out = static_cast<uint8_t*>(dst);
  for (size_t done = 0; done < n;) {
    size_t got = 0;
    rgpu_ucx_message why{};
    const int result = ops_->recv(endpoint_, out + done, n - done, &got, &why);
    if (result != RGPU_UCX_OK) return error(result, why, done, n);
    done += got;
  }
  return Status::ok();
}

Status UcxConnection::skip(uint64_t n) {
  std::vector<uint8_t> scratch(static_cast<size_t>(std::min<uint64_t>(n, kSkipChunk)));
  for (uint64_t left = n; left > 0;) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(left, scratch.size()));
    RGPU_TRY(recv_exact(scratch.data(), chunk));
    left -= chunk;
  }
  return Status::ok();
}

void UcxConnection::shutdown() {
  shut_down_.store(true, std::memory_order_release);
  ops_->shutdown(endpoint_);
  lifeline_->shutdown();  // the peer hears of it there
}

Result<std::unique_ptr<Connection>> upgrade(std::unique_ptr<Connection> lifeline, bool accepting) {
  if (lifeline->encrypted())
    return RGPU_ERROR(kInvalidArgument, "UCX carries bytes unencrypted: it does not continue the TLS connection " +
                                            lifeline->peer() + " (RGPU_TLS=off allows plain connections)");
  if (lifeline->descriptor() < 0)
    return RGPU_ERROR(kInvalidArgument, "connection " + lifeline->peer() + " is not a socket UCX can pair over");
  RGPU_ASSIGN_OR_RETURN(const rgpu_ucx_ops* ops, plugin());
  rgpu_ucx_message why{};
  const int spin = static_cast<int>(std::clamp<int64_t>(kUcxSpin.get_int(), 0, 1'000'000));
  const auto rma_min = static_cast<size_t>(std::max<int64_t>(kUcxRmaMin.get_int(), 0));
  rgpu_ucx_endpoint* endpoint =
      ops->open(lifeline->descriptor(), accepting ? 1 : 0, kSwapTimeoutMs, spin, rma_min, &why);
  if (!endpoint) return RGPU_ERROR(kUnavailable, "UCX over " + lifeline->peer() + ": " + why.text);
  return std::unique_ptr<Connection>(new UcxConnection(ops, endpoint, std::move(lifeline)));
}

}  // namespace rgpu::transport::ucx
