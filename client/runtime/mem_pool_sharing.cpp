// Memory pools shared between processes served by one rgpud. Natively an exported pool is a POSIX
// descriptor the driver makes, which the program passes to another process (over a Unix socket,
// or by inheritance) for it to import. Here the driver's descriptor stays with the exporting
// session on the server (server/session/pool_shares.h); the program gets a stand-in descriptor of
// its own, a sealed memfd holding the exporting session's id and the export's secret, which it
// passes on like the real one, and an import reads it back and sends it to the server. A fabric
// handle is bytes, not a descriptor, and travels as it is. A pointer imported from a shared pool
// joins the memory map with the extent the server found, as memory opened from an IPC handle does.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/device_allocation.h"
#include "codegen/support/gen_marshal.h"
#include "common/log.h"
#include "gen/cudart/cudart_ids.h"

using rgpu::client::cudart_finish;
namespace ids = rgpu::gen::cudart;

namespace {

using Secret = std::array<uint8_t, 32>;

// The stand-in descriptor's bytes.
struct StandIn {
  char magic[16];
  uint64_t session;
  Secret secret;
};
constexpr char kMagic[16] = "rgpu pool share";

// Invokes `call`; its status, or cudaErrorUnknown when a success came without its reply.
cudaError_t ask(rgpu::client::Call& call) {
  const int32_t rc = call.invoke();
  if (rc != cudaSuccess) return static_cast<cudaError_t>(rc);
  return call.replied() ? cudaSuccess : cudaErrorUnknown;
}

// A sealed memfd holding `s`, or -1.
int make_stand_in(const StandIn& s) {
  const int fd = memfd_create("rgpu-pool-share", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return -1;
  if (pwrite(fd, &s, sizeof s, 0) != static_cast<ssize_t>(sizeof s) ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool read_stand_in(int fd, StandIn* s) {
  return pread(fd, s, sizeof *s, 0) == static_cast<ssize_t>(sizeof *s) &&
         std::memcmp(s->magic, kMagic, sizeof kMagic) == 0;
}

}  // namespace

extern "C" cudaError_t cudaMemPoolExportToShareableHandle(void* shareableHandle, cudaMemPool_t memPool,
                                                          cudaMemAllocationHandleType handleType, unsigned int flags) {
  if (!shareableHandle ||
      (handleType != cudaMemHandleTypePosixFileDescriptor && handleType != cudaMemHandleTypeFabric))
    return cudart_finish(cudaErrorInvalidValue);
  rgpu::client::Call call(ids::k_cudaMemPoolExportToShareableHandle, rgpu::client::CallClass::kSync);
  call.args().put<uint64_t>(rgpu::gen::handle_id(memPool));
  call.args().put<uint32_t>(handleType);
  call.args().put<uint32_t>(flags);
  if (cudaError_t st = ask(call); st != cudaSuccess) return cudart_finish(st);
  if (handleType == cudaMemHandleTypeFabric) {
    const auto handle = call.results().get<cudaMemFabricHandle_t>();
    if (!call.results().ok()) return cudart_finish(cudaErrorUnknown);
    std::memcpy(shareableHandle, &handle, sizeof handle);
    return cudaSuccess;
  }
  StandIn s{};
  std::memcpy(s.magic, kMagic, sizeof kMagic);
  s.session = call.results().get<uint64_t>();
  s.secret = call.results().get<Secret>();
  if (!call.results().ok()) return cudart_finish(cudaErrorUnknown);
  const int fd = make_stand_in(s);
  if (fd < 0) {
    RGPU_LOG_WARN("cudaMemPoolExportToShareableHandle: no memfd for the exported pool's descriptor: %s",
                  std::strerror(errno));
    return cudart_finish(cudaErrorOperatingSystem);
  }
  *static_cast<int*>(shareableHandle) = fd;
  return cudaSuccess;
}

extern "C" cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t* memPool, void* shareableHandle,
                                                            cudaMemAllocationHandleType handleType,
                                                            unsigned int flags) {
  if (!memPool) return cudart_finish(cudaErrorInvalidValue);
  rgpu::client::Call call(ids::k_cudaMemPoolImportFromShareableHandle, rgpu::client::CallClass::kSync);
  const uint64_t id = rgpu::client::new_handle_id();
  call.args().put<uint64_t>(id);
  call.args().put<uint32_t>(handleType);
  call.args().put<uint32_t>(flags);
  if (handleType == cudaMemHandleTypeFabric) {
    if (!shareableHandle) return cudart_finish(cudaErrorInvalidValue);
    cudaMemFabricHandle_t handle;
    std::memcpy(&handle, shareableHandle, sizeof handle);
    call.args().put(handle);
  } else if (handleType == cudaMemHandleTypePosixFileDescriptor) {
    const int fd = static_cast<int>(reinterpret_cast<intptr_t>(shareableHandle));
    StandIn s{};
    if (!read_stand_in(fd, &s)) {
      RGPU_LOG_WARN("cudaMemPoolImportFromShareableHandle: descriptor %d is not a pool exported through rgpu "
                    "(cudaMemPoolExportToShareableHandle's descriptor, passed on unchanged)", fd);
      return cudart_finish(cudaErrorInvalidValue);
    }
    call.args().put<uint64_t>(s.session);
    call.args().put(s.secret);
  } else {
    return cudart_finish(cudaErrorInvalidValue);
  }
  if (cudaError_t st = ask(call); st != cudaSuccess) return cudart_finish(st);
  *memPool = rgpu::gen::handle_from_id<cudaMemPool_t>(id);
  return cudaSuccess;
}

extern "C" cudaError_t cudaMemPoolImportPointer(void** ptr, cudaMemPool_t memPool,
                                                cudaMemPoolPtrExportData* exportData) {
  if (!ptr || !exportData) return cudart_finish(cudaErrorInvalidValue);
  rgpu::client::Call call(ids::k_cudaMemPoolImportPointer, rgpu::client::CallClass::kSync);
  call.args().put<uint64_t>(rgpu::gen::handle_id(memPool));
  call.args().put(*exportData);
  if (cudaError_t st = ask(call); st != cudaSuccess) return cudart_finish(st);
  const auto address = call.results().get<uint64_t>();
  const auto size = call.results().get<uint64_t>();
  if (!call.results().ok()) return cudart_finish(cudaErrorUnknown);
  *ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(address));
  rgpu::client::record_mapping(*ptr, size, "memory imported from a shared pool");
  return cudaSuccess;
}
