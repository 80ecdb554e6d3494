// The calls of host memory shared by a same-host client (shared_host.h): kCallShareHost maps and
// pins the memfd that came with the call, kCallSharedCopy copies between the device and it in the
// copy's own order (cudaMemcpyAsync from pinned memory is asynchronous: the client sees D2H bytes
// after its stream or event synchronisation, as CUDA promises), kCallUnshareHost waits for the
// devices that copied to or from it and lets it go.
#include <unistd.h>

#include <algorithm>

#include <cuda_runtime_api.h>

#include "common/config.h"
#include "common/log.h"
#include "common/wire/copy_args.h"
#include "gen/cudart/cudart_api.h"
#include "server/session/internal_handlers.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

const Tunable kAcceptShared{"RGPU_ACCEPT_SHARED_MEMORY", "1",
                            "1: rgpud maps and pins the pinned memory a client on its host shares with its session "
                            "(copies of it cross no socket); 0: it refuses, and such copies go through the socket"};

}  // namespace

bool share_host(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  const auto id = in.get<uint64_t>();
  const auto size = in.get<uint64_t>();
  const auto want = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return false;
  const int fd = ctx.session.take_descriptor();  // taken whatever the answer: none is left behind
  static const bool accept = kAcceptShared.get_bool();
  if (!accept) {
    if (fd >= 0) ::close(fd);
    status = cudaErrorNotSupported;
    return true;
  }
  if (fd < 0) RGPU_LOG_WARN("shared host memory %llu came without its descriptor", static_cast<unsigned long long>(id));
  uint64_t address = 0;
  status = ctx.session.shared_host().add(id, fd, size, want, &address);
  out.put<uint64_t>(address);
  return true;
}

bool unshare_host(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return false;
  // The copies queued before this call may still read or write the pages, and so may the current
  // device's kernels (the pages are mapped memory too): each such device finishes its work first
  // (cudaFreeHost synchronises too).
  const auto& rt = ctx.cudart;
  int current = 0;
  if (rt.cudaGetDevice && rt.cudaSetDevice && rt.cudaDeviceSynchronize && rt.cudaGetDevice(&current) == cudaSuccess) {
    const uint64_t devices = ctx.session.shared_host().devices(id) | uint64_t{1} << std::clamp(current, 0, 63);
    for (int d = 0; d < 64; ++d) {
      if (!(devices >> d & 1)) continue;
      if (rt.cudaSetDevice(d) == cudaSuccess) (void)rt.cudaDeviceSynchronize();
    }
    (void)rt.cudaSetDevice(current);
  }
  status = ctx.session.shared_host().remove(id);
  return true;
}

bool shared_copy(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto a = in.get<wire::SharedCopy>();
  if (!in.ok() || !in.at_end() || !ctx.bulk_in.empty() || ctx.bulk_reader) return false;
  const auto kind = static_cast<cudaMemcpyKind>(a.kind);
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToHost) return false;
  const auto& rt = ctx.cudart;
  int device = 0;
  if (rt.cudaGetDevice) (void)rt.cudaGetDevice(&device);
  void* host = ctx.session.shared_host().find(a.shared, a.offset, a.count, device);
  if (!host) {
    status = cudaErrorInvalidValue;
    return true;
  }
  auto* dev = reinterpret_cast<void*>(static_cast<uintptr_t>(a.device));
  void* dst = kind == cudaMemcpyHostToDevice ? dev : host;
  const void* src = kind == cudaMemcpyHostToDevice ? host : dev;
  if (a.async) {
    auto copy = a.per_thread ? rt.cudaMemcpyAsync_ptsz : rt.cudaMemcpyAsync;
    cudaStream_t stream{};
    if (!copy) {
      status = cudaErrorNotSupported;
    } else if (!ctx.handles.resolve(HandleKind::kStream, a.stream, &stream)) {
      status = cudaErrorInvalidResourceHandle;
    } else {
      status = copy(dst, src, a.count, kind, stream);
      if (status == cudaSuccess && a.wait_stream)
        status = rt.cudaStreamSynchronize ? rt.cudaStreamSynchronize(stream) : cudaErrorNotSupported;
    }
    return true;
  }
  auto copy = a.per_thread ? rt.cudaMemcpy_ptds : rt.cudaMemcpy;
  status = copy ? copy(dst, src, a.count, kind) : cudaErrorNotSupported;
  return true;
}

}  // namespace rgpu::server::handlers
