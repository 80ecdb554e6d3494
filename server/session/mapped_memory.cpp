// Handlers of the mapped-memory calls (common/wire/internal_calls.h): a client's pinned range
// exposed to the GPU through a mirror (mapped_mirrors.h), the bytes the client changed written into
// it, the bytes the GPU may have changed read back, and its release.
#include <cuda_runtime_api.h>

#include <cstring>

#include "common/wire/frame.h"
#include "server/session/internal_handlers.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {

bool mapped_expose(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  const auto want = in.get<uint64_t>();
  const auto size = in.get<uint64_t>();
  if (!in.ok() || !in.at_end() || !ctx.bulk_in.empty()) return false;
  uint64_t address = 0;
  status = ctx.session.mapped_mirrors().expose(want, size, &address);
  out.put<uint64_t>(address);
  return true;
}

bool mapped_write(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto address = in.get<uint64_t>();
  const auto offset = in.get<uint64_t>();
  if (!in.ok() || !in.at_end() || ctx.bulk_reader) return false;
  uint8_t* host = ctx.session.mapped_mirrors().host_range(address, offset, ctx.bulk_in.size());
  if (!host) {
    status = cudaErrorInvalidValue;
    return true;
  }
  std::memcpy(host, ctx.bulk_in.data(), ctx.bulk_in.size());
  status = cudaSuccess;
  return true;
}

bool mapped_read(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto address = in.get<uint64_t>();
  const auto offset = in.get<uint64_t>();
  const auto length = in.get<uint64_t>();
  if (!in.ok() || !in.at_end() || !ctx.bulk_in.empty() || length > wire::kMaxBulk) return false;
  uint8_t* host = ctx.session.mapped_mirrors().host_range(address, offset, length);
  if (!host) {
    status = cudaErrorInvalidValue;
    return true;
  }
  if (length) ctx.bulk_out->push_back(iovec{host, length});
  status = cudaSuccess;
  return true;
}

bool mapped_release(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto address = in.get<uint64_t>();
  if (!in.ok() || !in.at_end() || !ctx.bulk_in.empty()) return false;
  status = ctx.session.mapped_mirrors().release(address);
  return true;
}

}  // namespace rgpu::server::handlers
