// cuFFT's multi-GPU descriptors (cudaLibXtDesc, cufftXt.h), kept as mirrors in this process: the
// caller reads a descriptor's buffers (desc->descriptor->data[i], the server's device addresses) to
// run its own kernels on them, so cufftXtMalloc copies the server's descriptor into a mirror whose
// address is the descriptor's id (the transforms' generated stubs send it; the server resolves it
// to its own descriptor). A session sees one GPU, so a descriptor holds one buffer, in natural
// order, and cufftXtMemcpy is the runtime's copy of it.
#include <cuda_runtime_api.h>
#include <cufftXt.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "client/runtime/call.h"
#include "codegen/support/gen_marshal.h"
#include "gen/cufft/cufft_ids.h"

namespace {

struct Mirror {
  cudaLibXtDesc lib{};
  cudaXtDesc xt{};
};

// The mirrors alive, by the address handed to the caller.
struct Mirrors {
  std::mutex mu;
  std::unordered_set<const cudaLibXtDesc*> live;
};

Mirrors& mirrors() {
  static Mirrors* m = new Mirrors();  // leaked: a plan cache may free descriptors at exit
  return *m;
}

bool is_mirror(const void* p) {
  std::lock_guard lock(mirrors().mu);
  return mirrors().live.count(static_cast<const cudaLibXtDesc*>(p)) != 0;
}

// The one buffer of a mirror the caller named, or null when it names none of ours.
const cudaXtDesc* buffer_of(const void* p) {
  return is_mirror(p) ? static_cast<const cudaLibXtDesc*>(p)->descriptor : nullptr;
}

uint64_t id_of(const cudaLibXtDesc* d) { return reinterpret_cast<uintptr_t>(d); }

}  // namespace

extern "C" {  // exported by the shim's version script

cufftResult cufftXtMalloc(cufftHandle plan, cudaLibXtDesc** descriptor, cufftXtSubFormat format) {
  if (!descriptor) return CUFFT_INVALID_VALUE;
  auto mirror = std::make_unique<Mirror>();
  rgpu::client::Call call(rgpu::gen::cufft::k_cufftXtMalloc, rgpu::client::CallClass::kSync);
  call.args().put<uint64_t>(rgpu::gen::handle_id(plan));
  call.args().put<int32_t>(format);
  call.args().put<uint64_t>(id_of(&mirror->lib));
  const int32_t status = call.invoke();
  if (status == rgpu::client::kStatusUnavailable) return CUFFT_SETUP_FAILED;
  if (status != CUFFT_SUCCESS) return static_cast<cufftResult>(status);
  rgpu::wire::Decoder& r = call.results();
  mirror->lib.version = r.get<int32_t>();
  mirror->lib.library = static_cast<libFormat>(r.get<int32_t>());
  mirror->lib.subFormat = r.get<int32_t>();
  mirror->xt.version = r.get<int32_t>();
  mirror->xt.nGPUs = r.get<int32_t>();
  if (!r.ok() || mirror->xt.nGPUs < 1 || mirror->xt.nGPUs > MAX_CUDA_DESCRIPTOR_GPUS) return CUFFT_INTERNAL_ERROR;
  for (int i = 0; i < mirror->xt.nGPUs; ++i) {
    mirror->xt.GPUs[i] = r.get<int32_t>();
    mirror->xt.data[i] = reinterpret_cast<void*>(static_cast<uintptr_t>(r.get<uint64_t>()));
    mirror->xt.size[i] = static_cast<size_t>(r.get<uint64_t>());
  }
  if (!r.ok() || !r.at_end()) return CUFFT_INTERNAL_ERROR;
  mirror->lib.descriptor = &mirror->xt;
  *descriptor = &mirror->lib;
  std::lock_guard lock(mirrors().mu);
  mirrors().live.insert(&mirror.release()->lib);
  return CUFFT_SUCCESS;
}

cufftResult cufftXtFree(cudaLibXtDesc* descriptor) {
  if (!is_mirror(descriptor)) return CUFFT_INVALID_VALUE;
  rgpu::client::Call call(rgpu::gen::cufft::k_cufftXtFree, rgpu::client::CallClass::kSync);
  call.args().put<uint64_t>(id_of(descriptor));
  const int32_t status = call.invoke();
  if (status == rgpu::client::kStatusUnavailable) return CUFFT_SETUP_FAILED;
  if (status != CUFFT_SUCCESS) return static_cast<cufftResult>(status);
  {
    std::lock_guard lock(mirrors().mu);
    mirrors().live.erase(descriptor);
  }
  delete reinterpret_cast<Mirror*>(descriptor);  // lib is Mirror's first member
  return CUFFT_SUCCESS;
}

// The plan is not consulted: a one-GPU descriptor's buffer is in natural order whatever the plan.
cufftResult cufftXtMemcpy(cufftHandle, void* dstPointer, void* srcPointer, cufftXtCopyType type) {
  const cudaXtDesc* dst = type == CUFFT_COPY_DEVICE_TO_HOST ? nullptr : buffer_of(dstPointer);
  const cudaXtDesc* src = type == CUFFT_COPY_HOST_TO_DEVICE ? nullptr : buffer_of(srcPointer);
  cudaError_t err;
  switch (type) {
    case CUFFT_COPY_HOST_TO_DEVICE:
      if (!dst || !srcPointer) return CUFFT_INVALID_VALUE;
      if (dst->nGPUs != 1) return CUFFT_NOT_SUPPORTED;
      err = cudaMemcpy(dst->data[0], srcPointer, dst->size[0], cudaMemcpyHostToDevice);
      break;
    case CUFFT_COPY_DEVICE_TO_HOST:
      if (!src || !dstPointer) return CUFFT_INVALID_VALUE;
      if (src->nGPUs != 1) return CUFFT_NOT_SUPPORTED;
      err = cudaMemcpy(dstPointer, src->data[0], src->size[0], cudaMemcpyDeviceToHost);
      break;
    case CUFFT_COPY_DEVICE_TO_DEVICE:
      if (!dst || !src || dst->size[0] != src->size[0]) return CUFFT_INVALID_VALUE;
      if (dst->nGPUs != 1 || src->nGPUs != 1) return CUFFT_NOT_SUPPORTED;
      err = cudaMemcpy(dst->data[0], src->data[0], src->size[0], cudaMemcpyDeviceToDevice);
      break;
    default:
      return CUFFT_INVALID_VALUE;
  }
  return err == cudaSuccess ? CUFFT_SUCCESS : CUFFT_EXEC_FAILED;
}

}  // extern "C"
