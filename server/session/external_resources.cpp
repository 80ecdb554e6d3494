// Imports of external memory and semaphores: the descriptor came with the call (a same-host
// client's Unix socket, SCM_RIGHTS) and goes to the backend's import, which owns it from a
// successful import on (CUDA closes it when the object is destroyed); a failed import closes it
// here, so none is left behind. The new object is bound to the client's id like a stream.
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "common/log.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

// The received descriptor, or -1 with `status` set when there is none or the id is taken.
int take_import_descriptor(CallContext& ctx, uint64_t id, const char* what, int32_t& status) {
  const int fd = ctx.session.take_descriptor();  // taken whatever the answer: none is left behind
  if (fd < 0) {
    RGPU_LOG_WARN("%s came without its descriptor", what);
    status = cudaErrorInvalidValue;
  } else if (HandleTable::is_builtin(id)) {
    ::close(fd);
    status = cudaErrorInvalidValue;
    return -1;
  }
  return fd;
}

}  // namespace

// In: the new id, the size, the flags (an opaque descriptor's import).
bool cudaImportExternalMemory(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto id = in.get<uint64_t>();
  const auto size = in.get<uint64_t>();
  const auto flags = in.get<uint32_t>();
  if (!in.ok() || !in.at_end()) return false;
  const int fd = take_import_descriptor(ctx, id, "cudaImportExternalMemory", status);
  if (fd < 0) return true;
  if (!ctx.cudart.cudaImportExternalMemory) {
    ::close(fd);
    return (status = cudaErrorNotSupported), true;
  }
  cudaExternalMemoryHandleDesc desc{};
  desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
  desc.handle.fd = fd;
  desc.size = size;
  desc.flags = flags;
  cudaExternalMemory_t memory = nullptr;
  status = ctx.cudart.cudaImportExternalMemory(&memory, &desc);
  if (status != cudaSuccess) ::close(fd);
  else ctx.handles.bind(HandleKind::kExternalMemory, id, memory);
  return true;
}

// In: the new id, the handle type (an opaque or a timeline semaphore's descriptor), the flags.
bool cudaImportExternalSemaphore(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto id = in.get<uint64_t>();
  const auto type = static_cast<cudaExternalSemaphoreHandleType>(in.get<uint32_t>());
  const auto flags = in.get<uint32_t>();
  if (!in.ok() || !in.at_end()) return false;
  const int fd = take_import_descriptor(ctx, id, "cudaImportExternalSemaphore", status);
  if (fd < 0) return true;
  if (type != cudaExternalSemaphoreHandleTypeOpaqueFd && type != cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd) {
    ::close(fd);
    return (status = cudaErrorInvalidValue), true;
  }
  if (!ctx.cudart.cudaImportExternalSemaphore) {
    ::close(fd);
    return (status = cudaErrorNotSupported), true;
  }
  cudaExternalSemaphoreHandleDesc desc{};
  desc.type = type;
  desc.handle.fd = fd;
  desc.flags = flags;
  cudaExternalSemaphore_t semaphore = nullptr;
  status = ctx.cudart.cudaImportExternalSemaphore(&semaphore, &desc);
  if (status != cudaSuccess) ::close(fd);
  else ctx.handles.bind(HandleKind::kExternalSemaphore, id, semaphore);
  return true;
}

}  // namespace rgpu::server::handlers
