// Movable memory and its swap (see swap_space.h).
#include "server/session/swap_space.h"

#include <sys/mman.h>

#include <algorithm>
#include <thread>

#include "common/host_memory.h"
#include "gen/cudart/cudart_api.h"
#include "server/backends/backend.h"

namespace rgpu::server {
namespace {

Status cuda_status(const char* what, cudaError_t e) {
  return e == cudaSuccess ? Status::ok() : RGPU_ERROR(kUnavailable, std::string(what) + " failed (cudaError " + std::to_string(e) + ")");
}

// Host memory a host copy needs must be free, with at least this much left: a copy that filled
// the host's memory would have the kernel kill a process instead.
constexpr uint64_t kHostReserve = 1ull << 30;

Status host_room_for(uint64_t bytes) {
  const std::optional<uint64_t> free_host = host_available_bytes();
  if (!free_host || *free_host >= bytes + kHostReserve) return Status::ok();
  return RGPU_ERROR(kUnavailable, "the host has " + std::to_string(*free_host >> 20) + " MiB free; a host copy of " +
                                      std::to_string(bytes >> 20) + " MiB would leave it less than 1 GiB (give the GPU host "
                                      "more memory, or lower policy.memory_overcommit)");
}

// A range's host copy, made and pinned.
Result<uint8_t*> make_host_copy(Backend& backend, uint64_t size) {
  uint8_t* host = map_populated(size);
  if (!host) return RGPU_ERROR(kUnavailable, "no host memory to swap " + std::to_string(size >> 20) + " MiB out to");
  if (int32_t st = backend.host_register(host, size); st != cudaSuccess) {
    munmap(host, size);
    return cuda_status("pinning the host copy", static_cast<cudaError_t>(st));
  }
  return host;
}

}  // namespace

SwapSpace::SwapSpace(Backend& backend) : backend_(backend) {}

SwapSpace::~SwapSpace() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  prepared_.notify_all();
  if (preparer_.joinable()) preparer_.join();
  if (stream_ && backend_.cudart().cudaStreamDestroy) backend_.cudart().cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
  for (auto& [address, r] : ranges_) drop_host(r);
}

void SwapSpace::drop_host(Range& r) {
  if (!r.host) return;
  pinned_ -= r.size;
  (void)backend_.host_unregister(r.host);
  munmap(r.host, r.size);
  r.host = nullptr;
}

bool SwapSpace::allocate(uint64_t size, void** out, int32_t* status) {
  if (size < kMovableFrom) return false;
  const uint64_t g = backend_.movable_granularity();
  const uint64_t rounded = (size + g - 1) / g * g;
  std::lock_guard<std::mutex> lock(mu_);
  if (swapped_) {  // never: calls run only while swapped in
    *status = cudaErrorIllegalState;
    return true;
  }
  uint64_t address = 0;
  *status = backend_.movable_alloc(rounded, &address);
  if (*status != cudaSuccess) return true;
  Range r;
  r.size = rounded;
  r.id = next_id_++;
  ranges_[address] = r;
  movable_ += rounded;
  *out = reinterpret_cast<void*>(address);
  if (!preparer_.joinable()) preparer_ = std::thread([this] { prepare_loop(); });
  prepared_.notify_all();
  return true;
}

void SwapSpace::prepare_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    auto todo = std::find_if(ranges_.begin(), ranges_.end(),
                             [](const auto& kv) { return !kv.second.host && !kv.second.preparing && !kv.second.unprepared; });
    if (stopping_) return;
    if (todo == ranges_.end()) {
      prepared_.wait(lock);
      continue;
    }
    const uint64_t address = todo->first, id = todo->second.id, size = todo->second.size;
    if (!host_room_for(size).is_ok()) {
      todo->second.unprepared = true;
      continue;
    }
    todo->second.preparing = true;
    lock.unlock();
    Result<uint8_t*> made = make_host_copy(backend_, size);
    uint8_t* host = made.is_ok() ? *made : nullptr;
    lock.lock();
    auto it = ranges_.find(address);
    if (it != ranges_.end() && it->second.id == id) {
      it->second.preparing = false;
      it->second.host = host;
      it->second.unprepared = !host;
      if (host) pinned_ += size;
    } else if (host) {  // freed meanwhile
      (void)backend_.host_unregister(host);
      munmap(host, size);
    }
    prepared_.notify_all();
  }
}

bool SwapSpace::free(const void* p, int32_t* status) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ranges_.find(reinterpret_cast<uintptr_t>(p));
  if (it == ranges_.end()) return false;
  // A copy being made is dropped by the preparer when it finds the range gone.
  *status = backend_.movable_free(it->first);
  if (*status == cudaSuccess) {
    drop_host(it->second);
    movable_ -= it->second.size;
    ranges_.erase(it);
  }
  return true;
}

uint64_t SwapSpace::movable_bytes() const { return swapped_ ? 0 : movable_.load(); }

uint64_t SwapSpace::host_bytes() const { return host_; }

uint64_t SwapSpace::pinned_bytes() const { return pinned_; }

bool SwapSpace::swapped() const { return swapped_; }

Status SwapSpace::ensure_stream() {
  if (stream_) return Status::ok();
  const auto& rt = backend_.cudart();
  if (!rt.cudaStreamCreateWithFlags || !rt.cudaMemcpyAsync || !rt.cudaStreamSynchronize)
    return RGPU_ERROR(kUnavailable, "the backend cannot copy asynchronously: no swap");
  cudaStream_t stream = nullptr;
  RGPU_TRY(cuda_status("creating the swap stream", rt.cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)));
  stream_ = stream;
  return Status::ok();
}

Status SwapSpace::ensure_host(Range& r) {
  if (r.host) return Status::ok();
  RGPU_ASSIGN_OR_RETURN(r.host, make_host_copy(backend_, r.size));
  pinned_ += r.size;
  return Status::ok();
}

Status SwapSpace::copy(uint64_t device, uint8_t* host, uint64_t bytes, bool to_host) {
  const auto& rt = backend_.cudart();
  auto stream = static_cast<cudaStream_t>(stream_);
  auto* dev = reinterpret_cast<void*>(device);
  RGPU_TRY(cuda_status("a swap copy", to_host ? rt.cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, stream)
                                               : rt.cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream)));
  return cuda_status("a swap copy", rt.cudaStreamSynchronize(stream));
}

Result<uint64_t> SwapSpace::swap_out() {
  std::unique_lock<std::mutex> lock(mu_);
  if (swapped_) return host_.load();
  RGPU_TRY(ensure_stream());
  // A copy being made ahead is waited for rather than made twice.
  prepared_.wait(lock, [&] {
    return std::none_of(ranges_.begin(), ranges_.end(), [](const auto& kv) { return kv.second.preparing; });
  });
  // Host copies not made ahead must find room now.
  uint64_t fresh = 0;
  for (const auto& [address, r] : ranges_) fresh += r.host ? 0 : r.size;
  if (fresh > 0) RGPU_TRY(host_room_for(fresh));
  uint64_t moved = 0;
  for (auto& [address, r] : ranges_) {
    Status st = ensure_host(r);
    if (st.is_ok()) st = copy(address, r.host, r.size, true);
    if (st.is_ok()) st = cuda_status("releasing swapped device memory", static_cast<cudaError_t>(backend_.movable_release(address)));
    if (!st.is_ok()) {
      // What was released already comes back, so the session stays whole.
      for (auto& [a, back] : ranges_)
        if (back.out && backend_.movable_restore(a) == cudaSuccess && copy(a, back.host, back.size, false).is_ok()) back.out = false;
      host_ = 0;
      return st;
    }
    r.out = true;
    moved += r.size;
  }
  swapped_ = true;
  host_ = moved;
  return moved;
}

Status SwapSpace::swap_in() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!swapped_) return Status::ok();
  for (auto& [address, r] : ranges_) {
    if (!r.out) continue;
    RGPU_TRY(cuda_status("backing swapped memory again", static_cast<cudaError_t>(backend_.movable_restore(address))));
    RGPU_TRY(copy(address, r.host, r.size, false));
    r.out = false;
    host_ -= r.size;
  }
  swapped_ = false;
  host_ = 0;
  return Status::ok();
}

}  // namespace rgpu::server
