// Handlers of the mapped-memory calls (common/wire/internal_calls.h): a client's pinned range
// exposed to the GPU through a mirror (mapped_mirrors.h), the bytes the client changed written into
// it, the bytes the GPU may have changed read back, and its release.
#include <cuda_runtime_api.h>

#include <cstring>
#include <utility>
#include <vector>

#include "common/wire/frame.h"
#include "common/wire/internal_calls.h"
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

// Byte runs of one mirror: u64 address, u32 count, count pairs of u64 offset and u64 length; as
// bulk, the bytes each run replaces (as the client last knew them), then its new bytes. Every run
// is checked before any is written. A replaced byte that is not what the client expected was
// written by the GPU too: the host's byte wins, and the call fails with cudaErrorIllegalState
// (reported at the client's next synchronisation).
bool mapped_write(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto address = in.get<uint64_t>();
  const auto count = in.get<uint32_t>();
  if (!in.ok() || ctx.bulk_reader) return false;
  std::vector<std::pair<uint8_t*, uint64_t>> runs;
  uint64_t total = 0;
  status = cudaSuccess;
  for (uint32_t i = 0; i < count; ++i) {
    const auto offset = in.get<uint64_t>();
    const auto length = in.get<uint64_t>();
    if (!in.ok() || length > (ctx.bulk_in.size() - total) / 2) return false;
    total += 2 * length;
    uint8_t* host = ctx.session.mapped_mirrors().host_range(address, offset, length);
    if (!host) status = cudaErrorInvalidValue;
    runs.emplace_back(host, length);
  }
  if (!in.at_end() || total != ctx.bulk_in.size()) return false;
  if (status != cudaSuccess) return true;
  const uint8_t* expected = ctx.bulk_in.data();
  const uint8_t* bytes = expected + total / 2;
  for (auto [host, length] : runs) {
    if (std::memcmp(host, expected, length) != 0) status = cudaErrorIllegalState;
    std::memcpy(host, bytes, length);
    expected += length;
    bytes += length;
  }
  return true;
}

// Ranges of mirrors, read in one call: their bytes go out as the reply's bulk, one after the other,
// straight from the mirrors. A range outside its mirror fails the whole read, with no bytes.
bool mapped_read(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto count = in.get<uint32_t>();
  if (!in.ok() || count > wire::kMaxMappedReadRanges || !ctx.bulk_in.empty()) return false;
  uint64_t total = 0;
  status = cudaSuccess;
  const size_t first = ctx.bulk_out->size();
  for (uint32_t i = 0; i < count; ++i) {
    const auto address = in.get<uint64_t>();
    const auto offset = in.get<uint64_t>();
    const auto length = in.get<uint64_t>();
    if (!in.ok() || length > wire::kMaxBulk - total) return false;
    total += length;
    uint8_t* host = ctx.session.mapped_mirrors().host_range(address, offset, length);
    if (!host) status = cudaErrorInvalidValue;
    if (host && length) ctx.bulk_out->push_back(iovec{host, length});
  }
  if (!in.at_end()) return false;
  if (status != cudaSuccess) ctx.bulk_out->resize(first);
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
