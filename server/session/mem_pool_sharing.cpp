// Memory pools shared between sessions of one rgpud. An export with a POSIX descriptor keeps the
// driver's descriptor in this worker (pool_shares.h) and answers with what names it, this session
// and a secret, which the client wraps in a stand-in descriptor; an import claims the descriptor
// from the exporting session's worker and gives it to the driver here. A fabric handle is 64 bytes
// the driver makes and takes on any host, so it travels as it is. A pointer imported from a shared
// pool maps memory the exporter holds, answered as an IPC handle's (mapped_extent.h).
#include <unistd.h>

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/log.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/mapped_extent.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

bool answer(int32_t& status, cudaError_t value) {
  status = value;
  return true;
}

}  // namespace

// In: the pool's id, the handle type, the flags. Out: for a descriptor, this session's id and the
// export's secret; for a fabric handle, its bytes.
bool cudaMemPoolExportToShareableHandle(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  const auto pool_id = in.get<uint64_t>();
  const auto type = static_cast<cudaMemAllocationHandleType>(in.get<uint32_t>());
  const auto flags = in.get<uint32_t>();
  if (!in.ok() || !in.at_end()) return false;
  if (!ctx.cudart.cudaMemPoolExportToShareableHandle) return answer(status, cudaErrorNotSupported);
  cudaMemPool_t pool{};
  if (!ctx.handles.resolve(HandleKind::kMemPool, pool_id, &pool)) return answer(status, cudaErrorInvalidResourceHandle);
  if (type == cudaMemHandleTypeFabric) {
    cudaMemFabricHandle_t handle{};
    status = ctx.cudart.cudaMemPoolExportToShareableHandle(&handle, pool, type, flags);
    if (status == cudaSuccess) out.put(handle);
    return true;
  }
  if (type != cudaMemHandleTypePosixFileDescriptor) return answer(status, cudaErrorInvalidValue);
  int fd = -1;
  status = ctx.cudart.cudaMemPoolExportToShareableHandle(&fd, pool, type, flags);
  if (status != cudaSuccess) return true;
  Result<PoolShares::Secret> secret = ctx.session.pool_shares().offer(fd);
  if (!secret.is_ok()) {
    RGPU_LOG_WARN("cudaMemPoolExportToShareableHandle: %s", secret.status().message().c_str());
    return answer(status, cudaErrorNotSupported);
  }
  out.put<uint64_t>(ctx.session.pool_shares().session_id());
  out.put(*secret);
  return true;
}

// In: the new pool's id, the handle type, the flags, then for a descriptor the exporting session's
// id and the export's secret, for a fabric handle its bytes.
bool cudaMemPoolImportFromShareableHandle(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto id = in.get<uint64_t>();
  const auto type = static_cast<cudaMemAllocationHandleType>(in.get<uint32_t>());
  const auto flags = in.get<uint32_t>();
  if (!in.ok() || HandleTable::is_builtin(id)) return false;
  cudaMemPool_t pool{};
  if (type == cudaMemHandleTypeFabric) {
    auto handle = in.get<cudaMemFabricHandle_t>();
    if (!in.ok() || !in.at_end()) return false;
    if (!ctx.cudart.cudaMemPoolImportFromShareableHandle) return answer(status, cudaErrorNotSupported);
    status = ctx.cudart.cudaMemPoolImportFromShareableHandle(&pool, &handle, type, flags);
  } else {
    const auto exporter = in.get<uint64_t>();
    const auto secret = in.get<PoolShares::Secret>();
    if (!in.ok() || !in.at_end() || type != cudaMemHandleTypePosixFileDescriptor) return false;
    if (!ctx.cudart.cudaMemPoolImportFromShareableHandle) return answer(status, cudaErrorNotSupported);
    Result<int> fd = ctx.session.pool_shares().claim(exporter, secret);
    if (!fd.is_ok()) {
      RGPU_LOG_WARN("cudaMemPoolImportFromShareableHandle: %s", fd.status().message().c_str());
      return answer(status, cudaErrorInvalidValue);
    }
    // The driver keeps what it needs of the descriptor; this one is ours to close.
    status = ctx.cudart.cudaMemPoolImportFromShareableHandle(&pool, reinterpret_cast<void*>(static_cast<intptr_t>(*fd)),
                                                             type, flags);
    ::close(*fd);
  }
  if (status == cudaSuccess) ctx.handles.bind_handle(HandleKind::kMemPool, id, pool);
  return true;
}

// In: the imported pool's id, the export data. Out: the address and the extent's size.
bool cudaMemPoolImportPointer(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  const auto pool_id = in.get<uint64_t>();
  auto data = in.get<cudaMemPoolPtrExportData>();
  if (!in.ok() || !in.at_end()) return false;
  if (!ctx.cudart.cudaMemPoolImportPointer) return answer(status, cudaErrorNotSupported);
  cudaMemPool_t pool{};
  if (!ctx.handles.resolve(HandleKind::kMemPool, pool_id, &pool)) return answer(status, cudaErrorInvalidResourceHandle);
  void* p = nullptr;
  status = ctx.cudart.cudaMemPoolImportPointer(&p, pool, &data);
  if (status != cudaSuccess) return true;
  put_mapped_extent(ctx, p, out);
  return true;
}

}  // namespace rgpu::server::handlers
