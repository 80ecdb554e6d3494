// Movable memory and its swap (see swap_space.h).
#include "server/session/swap_space.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "gen/cudart/cudart_api.h"
#include "server/backends/backend.h"

namespace rgpu::server {
namespace {

// Host-side copies between pageable and pinned memory run on several threads: one thread's memcpy
// (with first-touch page faults on the way out) is slower than the GPU's copy engine.
void parallel_copy(uint8_t* dst, const uint8_t* src, uint64_t n) {
  static const unsigned threads = std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u);
  const uint64_t part = (n / threads + 4095) / 4096 * 4096;
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t * part < n; ++t)
    pool.emplace_back([=] { std::memcpy(dst + t * part, src + t * part, std::min(part, n - t * part)); });
  std::memcpy(dst, src, std::min(part, n));
  for (std::thread& th : pool) th.join();
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
  ranges_[address] = Range{rounded, nullptr};
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
      parallel_copy(host + k * kStagingBytes, static_cast<const uint8_t*>(staging_[k % 2]), len(k));
    }
  } else {
    for (uint64_t k = 0; k < chunks; ++k) {
      if (k >= 2) RGPU_TRY(wait(k - 2));  // the buffer's previous copy has left it
      parallel_copy(static_cast<uint8_t*>(staging_[k % 2]), host + k * kStagingBytes, len(k));
      RGPU_TRY(issue(k));
    }
  }
  return cuda_status("a swap copy", rt.cudaStreamSynchronize(stream));
}

Result<uint64_t> SwapSpace::swap_out() {
  std::lock_guard<std::mutex> lock(mu_);
  if (swapped_) return host_.load();
  RGPU_TRY(ensure_staging());
  uint64_t moved = 0;
  for (auto& [address, r] : ranges_) {
    void* p = mmap(nullptr, r.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    Status st = p == MAP_FAILED ? RGPU_ERROR(kUnavailable, "no host memory to swap " + std::to_string(r.size >> 20) + " MiB out to")
                                : copy(address, static_cast<uint8_t*>(p), r.size, true);
    if (st.is_ok()) st = cuda_status("releasing swapped device memory", static_cast<cudaError_t>(backend_.movable_release(address)));
    if (!st.is_ok()) {
      if (p != MAP_FAILED) munmap(p, r.size);
      // What was released already comes back, so the session stays whole.
      for (auto& [a, back] : ranges_) {
        if (!back.host) continue;
        if (backend_.movable_restore(a) == cudaSuccess && copy(a, back.host, back.size, false).is_ok()) {
          munmap(back.host, back.size);
          back.host = nullptr;
        }
      }
      host_ = 0;
      return st;
    }
    r.host = static_cast<uint8_t*>(p);
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
    if (!r.host) continue;
    RGPU_TRY(cuda_status("backing swapped memory again", static_cast<cudaError_t>(backend_.movable_restore(address))));
    RGPU_TRY(copy(address, r.host, r.size, false));
    munmap(r.host, r.size);
    r.host = nullptr;
    host_ -= r.size;
  }
  swapped_ = false;
  host_ = 0;
  return Status::ok();
}

}  // namespace rgpu::server
