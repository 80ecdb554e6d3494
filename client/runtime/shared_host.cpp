// Shared pinned host memory (see shared_host.h).
#include "client/runtime/shared_host.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "client/runtime/call.h"
#include "client/runtime/memory_map.h"
#include "client/runtime/pipe.h"
#include "client/runtime/settings.h"
#include "client/runtime/staged_copy.h"
#include "common/config.h"
#include "common/wire/copy_args.h"
#include "common/wire/internal_calls.h"
#include "transports/unix/unix_address.h"

namespace rgpu::client {
namespace {

const Tunable kSharedMemory{"RGPU_SHARED_MEMORY", "1",
                            "1: a client on rgpud's host (RGPU_SERVER=unix:PATH) shares its pinned memory with its "
                            "session, so copies of it move no bytes through the socket; 0: they do"};

std::atomic<bool> g_failed{false};        // sharing failed once: every later allocation is ordinary
std::atomic<uint64_t> g_live{0};          // shared allocations now: copies look them up only while any
std::atomic<uint64_t> g_next_id{1};

size_t page_rounded(size_t n) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return (std::max<size_t>(n, 1) + page - 1) / page * page;
}

void give_up(const std::string& why) {
  if (!g_failed.exchange(true))
    std::fprintf(stderr, "rgpu: pinned memory is not shared with rgpud (%s): its copies go through the socket\n",
                 why.c_str());
}

}  // namespace

// Only a session over a Unix socket shares memory: only then is the pipe asked for, so a TCP
// client's cudaMallocHost opens no session.
bool shares_memory() {
  static const bool on = kSharedMemory.get_bool() && transport::unix_socket::is_unix_address(server_address());
  if (!on || g_failed.load(std::memory_order_relaxed)) return false;
  Pipe& pipe = Pipe::get();
  return pipe.available() && pipe.carries_descriptors();
}

void* share_region(size_t len, uint64_t* id, uint64_t* device) {
  const int fd = ::memfd_create("rgpu-shared", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return give_up(std::string("memfd_create: ") + std::strerror(errno)), nullptr;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  // Sealed, so that the worker's mapping can never lose its pages (the worker checks the seal).
  if (::ftruncate(fd, static_cast<off_t>(len)) != 0) return nullptr;  // out of memory: the allocation fails
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    return give_up(std::string("sealing the memfd: ") + std::strerror(errno)), nullptr;
  void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return nullptr;
  *id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  Call call(wire::kCallShareHost, CallClass::kSync);
  call.args().put<uint64_t>(*id);
  call.args().put<uint64_t>(len);
  call.args().put<uint64_t>(reinterpret_cast<uintptr_t>(p));
  call.attach_descriptor(fd);
  int32_t st = call.invoke();
  *device = call.results().get<uint64_t>();
  if (st == 0 && !call.results().ok()) st = cudaErrorUnknown;
  if (st != 0) {
    ::munmap(p, len);
    give_up("the server answered " + std::to_string(st) + " to sharing " + std::to_string(len) + " bytes");
    return nullptr;
  }
  return p;
}

namespace {

// `size` bytes shared with the session, recorded in the memory map as pinned memory with `flags`
// (`owned`: cudaFreeHost's); null when sharing is off or fails, or, with `own_address`, when the
// GPU would see them at another address than the client (the worker has it taken).
void* share_allocation(size_t size, unsigned flags, bool owned, bool own_address) {
  if (!shares_memory()) return nullptr;
  uint64_t id = 0, device = 0;
  void* p = share_region(page_rounded(size), &id, &device);
  if (!p) return nullptr;
  g_live.fetch_add(1, std::memory_order_relaxed);
  if (own_address && device != reinterpret_cast<uintptr_t>(p)) {
    (void)shared_host_free(p, size, id);
    return nullptr;
  }
  MemoryMap::get().add_host(p, size, flags, owned, id, device);
  return p;
}

}  // namespace

void* shared_host_alloc(size_t size, unsigned flags) { return share_allocation(size, flags, true, false); }

void* shared_managed_alloc(size_t size) { return share_allocation(size, 0, false, true); }

cudaError_t shared_host_free(void* p, size_t size, uint64_t shared) {
  Call call(wire::kCallUnshareHost, CallClass::kSync);
  call.args().put<uint64_t>(shared);
  const int32_t st = call.invoke();
  // The worker unmapped its view (or its session is gone, and the mapping with it).
  ::munmap(p, page_rounded(size));
  g_live.fetch_sub(1, std::memory_order_relaxed);
  return st == kStatusUnavailable ? cudaSuccess : static_cast<cudaError_t>(st);
}

bool copy_shared(void* device, void* host, size_t n, cudaMemcpyKind kind, bool async, uint64_t stream, bool per_thread,
                 int32_t* status) {
  std::optional<Region> r;
  if (g_live.load(std::memory_order_relaxed) != 0) r = MemoryMap::get().find_host(host);
  const auto at = reinterpret_cast<uintptr_t>(host);
  if (!r || !r->shared || n > r->size - (at - r->base))
    return copy_staged(device, host, n, kind, async, stream, per_thread, status);
  // A D2H still landing from the socket path (a copy that reached past this allocation) comes first.
  Pipe::get().wait_landings(host, n);
  wire::SharedCopy a{};
  a.device = reinterpret_cast<uint64_t>(device);
  a.shared = r->shared;
  a.offset = at - r->base;
  a.count = n;
  a.stream = stream;
  a.kind = kind;
  a.async = async ? 1 : 0;
  a.per_thread = per_thread ? 1 : 0;
  // A synchronous copy waits: the program may reuse its pages the moment cudaMemcpy returns.
  Call call(wire::kCallSharedCopy, async ? CallClass::kAsync : CallClass::kSync);
  call.args().put(a);
  *status = async ? call.post() : call.invoke();
  return true;
}

}  // namespace rgpu::client
