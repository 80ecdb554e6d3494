// Movable memory and its swap (see swap_space.h).
#include "server/session/swap_space.h"

#include <sys/mman.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "common/host_memory.h"
#include "gen/cudart/cudart_api.h"
#include "server/backends/backend.h"

namespace rgpu::server {
namespace {

// Host-side copies between pageable and pinned memory run on several threads, which live as long
// as the worker: one thread's memcpy is slower than the GPU's copy engine (55 GB/s), and starting
// threads for each 64 MiB chunk cost a tenth of a 40 GiB swap on the H200.
class CopyPool {
 public:
  static CopyPool& get() {
    static CopyPool* pool = new CopyPool(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));  // never joined: the worker _exits
    return *pool;
  }
  void copy(uint8_t* dst, const uint8_t* src, uint64_t n) {
    const uint64_t part = (n / parts_ + 4095) / 4096 * 4096;
    std::unique_lock<std::mutex> lock(mu_);
    dst_ = dst, src_ = src, n_ = n, part_ = part;
    pending_ = parts_ - 1;
    ++generation_;
    go_.notify_all();
    lock.unlock();
    run_part(0);
    lock.lock();
    done_.wait(lock, [&] { return pending_ == 0; });
  }

 private:
  explicit CopyPool(unsigned parts) : parts_(parts) {
    for (unsigned t = 1; t < parts_; ++t) std::thread([this, t] { serve(t); }).detach();
  }
  void run_part(unsigned t) {
    const uint64_t off = t * part_;
    if (off < n_) std::memcpy(dst_ + off, src_ + off, std::min(part_, n_ - off));
  }
  void serve(unsigned t) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        go_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
      }
      run_part(t);
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  const unsigned parts_;
  std::mutex mu_;
  std::condition_variable go_, done_;
  uint64_t generation_ = 0;
  unsigned pending_ = 0;
  uint8_t* dst_ = nullptr;
  const uint8_t* src_ = nullptr;
  uint64_t n_ = 0, part_ = 0;
};

constexpr uint64_t kHugePage = 2u << 20;

// A range's host copy: 2 MiB aligned and advised for transparent huge pages, so that filling it
// takes one page fault per 2 MiB, not per 4 KiB.
uint8_t* map_host(uint64_t size) {
  void* p = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  auto base = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (base + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > base) munmap(p, aligned - base);
  const uintptr_t end = base + size + kHugePage;
  if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
  (void)madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
  return reinterpret_cast<uint8_t*>(aligned);
}

Status cuda_status(const char* what, cudaError_t e) {
  return e == cudaSuccess ? Status::ok() : RGPU_ERROR(kUnavailable, std::string(what) + " failed (cudaError " + std::to_string(e) + ")");
}

}  // namespace

SwapSpace::SwapSpace(Backend& backend) : backend_(backend) {}

SwapSpace::~SwapSpace() {
  const auto& rt = backend_.cudart();
  for (int i = 0; i < 2; ++i) {
    if (done_[i] && rt.cudaEventDestroy) rt.cudaEventDestroy(static_cast<cudaEvent_t>(done_[i]));
    if (!staging_[i]) continue;
    if (pinned_) (void)rt.cudaFreeHost(staging_[i]);
    else std::free(staging_[i]);
  }
  if (stream_ && rt.cudaStreamDestroy) rt.cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
  for (auto& [address, r] : ranges_)
    if (r.host) munmap(r.host, r.size);
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
  ranges_[address] = Range{rounded, nullptr, false};
  movable_ += rounded;
  *out = reinterpret_cast<void*>(address);
  return true;
}

bool SwapSpace::free(const void* p, int32_t* status) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ranges_.find(reinterpret_cast<uintptr_t>(p));
  if (it == ranges_.end()) return false;
  *status = backend_.movable_free(it->first);
  if (*status == cudaSuccess) {
    if (it->second.host) munmap(it->second.host, it->second.size);
    movable_ -= it->second.size;
    ranges_.erase(it);
  }
  return true;
}

uint64_t SwapSpace::movable_bytes() const { return swapped_ ? 0 : movable_.load(); }

uint64_t SwapSpace::host_bytes() const { return host_; }

bool SwapSpace::swapped() const { return swapped_; }

Status SwapSpace::ensure_staging() {
  if (staging_[0]) return Status::ok();
  const auto& rt = backend_.cudart();
  if (!rt.cudaStreamCreateWithFlags || !rt.cudaEventCreateWithFlags || !rt.cudaMemcpyAsync ||
      !rt.cudaEventRecord || !rt.cudaEventSynchronize || !rt.cudaStreamSynchronize)
    return RGPU_ERROR(kUnavailable, "the backend cannot copy asynchronously: no swap");
  cudaStream_t stream = nullptr;
  RGPU_TRY(cuda_status("creating the swap stream", rt.cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)));
  stream_ = stream;
  for (int i = 0; i < 2; ++i) {
    cudaEvent_t ev = nullptr;
    RGPU_TRY(cuda_status("creating a swap event", rt.cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)));
    done_[i] = ev;
    // Pinned; the emulated backend, whose device memory is host memory, has no pinning to offer.
    pinned_ = rt.cudaMallocHost && rt.cudaFreeHost;
    if (pinned_) {
      RGPU_TRY(cuda_status("pinning the swap staging buffers", rt.cudaMallocHost(&staging_[i], kStagingBytes)));
    } else if (!(staging_[i] = std::malloc(kStagingBytes))) {
      return RGPU_ERROR(kUnavailable, "no host memory for the swap staging buffers");
    }
  }
  return Status::ok();
}

Status SwapSpace::copy(uint64_t device, uint8_t* host, uint64_t bytes, bool to_host) {
  const auto& rt = backend_.cudart();
  auto stream = static_cast<cudaStream_t>(stream_);
  auto dev = [&](uint64_t off) { return reinterpret_cast<void*>(device + off); };
  const uint64_t chunks = (bytes + kStagingBytes - 1) / kStagingBytes;
  auto len = [&](uint64_t k) { return std::min(kStagingBytes, bytes - k * kStagingBytes); };
  auto issue = [&](uint64_t k) -> Status {
    const int b = static_cast<int>(k % 2);
    const uint64_t off = k * kStagingBytes;
    RGPU_TRY(cuda_status("a swap copy",
                         to_host ? rt.cudaMemcpyAsync(staging_[b], dev(off), len(k), cudaMemcpyDeviceToHost, stream)
                                 : rt.cudaMemcpyAsync(dev(off), staging_[b], len(k), cudaMemcpyHostToDevice, stream)));
    return cuda_status("a swap event", rt.cudaEventRecord(static_cast<cudaEvent_t>(done_[b]), stream));
  };
  auto wait = [&](uint64_t k) {
    return cuda_status("a swap copy", rt.cudaEventSynchronize(static_cast<cudaEvent_t>(done_[k % 2])));
  };
  if (to_host) {
    // The GPU fills one buffer while the host empties the other.
    if (chunks) RGPU_TRY(issue(0));
    for (uint64_t k = 0; k < chunks; ++k) {
      if (k + 1 < chunks) RGPU_TRY(issue(k + 1));
      RGPU_TRY(wait(k));
      CopyPool::get().copy(host + k * kStagingBytes, static_cast<const uint8_t*>(staging_[k % 2]), len(k));
    }
  } else {
    for (uint64_t k = 0; k < chunks; ++k) {
      if (k >= 2) RGPU_TRY(wait(k - 2));  // the buffer's previous copy has left it
      CopyPool::get().copy(static_cast<uint8_t*>(staging_[k % 2]), host + k * kStagingBytes, len(k));
      RGPU_TRY(issue(k));
    }
  }
  return cuda_status("a swap copy", rt.cudaStreamSynchronize(stream));
}

Result<uint64_t> SwapSpace::swap_out() {
  std::lock_guard<std::mutex> lock(mu_);
  if (swapped_) return host_.load();
  RGPU_TRY(ensure_staging());
  // Host memory the move needs that is not there yet must be free: a swap-out that filled the
  // host's memory would have the kernel kill a process instead.
  uint64_t fresh = 0;
  for (const auto& [address, r] : ranges_) fresh += r.host ? 0 : r.size;
  constexpr uint64_t kHostReserve = 1ull << 30;
  if (std::optional<uint64_t> free_host = host_available_bytes(); fresh > 0 && free_host && *free_host < fresh + kHostReserve)
    return RGPU_ERROR(kUnavailable, "the host has " + std::to_string(*free_host >> 20) + " MiB free; swapping out " +
                                        std::to_string(fresh >> 20) + " MiB would leave it less than 1 GiB (give the GPU host more "
                                        "memory, or lower policy.memory_overcommit)");
  uint64_t moved = 0;
  for (auto& [address, r] : ranges_) {
    // The host copy of an earlier swap is kept (its pages lazily freed), so this one rarely faults.
    if (!r.host) r.host = map_host(r.size);
    Status st = !r.host ? RGPU_ERROR(kUnavailable, "no host memory to swap " + std::to_string(r.size >> 20) + " MiB out to")
                        : copy(address, r.host, r.size, true);
    if (st.is_ok()) st = cuda_status("releasing swapped device memory", static_cast<cudaError_t>(backend_.movable_release(address)));
    if (!st.is_ok()) {
      // What was released already comes back, so the session stays whole.
      for (auto& [a, back] : ranges_) {
        if (!back.out) continue;
        if (backend_.movable_restore(a) == cudaSuccess && copy(a, back.host, back.size, false).is_ok()) back.out = false;
      }
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
    // Kept for the next swap-out; the kernel may take its pages back meanwhile if it needs them.
    (void)madvise(r.host, r.size, MADV_FREE);
  }
  swapped_ = false;
  host_ = 0;
  return Status::ok();
}

}  // namespace rgpu::server
