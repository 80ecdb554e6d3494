// cuGetProcAddress: this shim's own entry points, by name and the CUDA version the caller was
// built for, from the generated table (gen/cuda/cuda_proc_table.cpp; codegen/src/proc_versions.h
// says how the table is derived from cudaTypedefs.h). No traffic.
#include <cuda.h>

#include "codegen/support/proc_table.h"

namespace rgpu::gen::cuda {
extern const ProcTable kProcTable;
}

extern "C" CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                        CUdriverProcAddressQueryResult* symbolStatus) {
  if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  // CU_GET_PROC_ADDRESS_DEFAULT means the legacy default stream here: the driver has no build-time
  // default of its own.
  bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  const rgpu::gen::ProcEntry* e = nullptr;
  switch (rgpu::gen::find_proc(rgpu::gen::cuda::kProcTable, symbol, cudaVersion, per_thread, &e)) {
    case rgpu::gen::ProcLookup::kFound:
      *pfn = reinterpret_cast<void*>(e->fn);
      if (symbolStatus) *symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    case rgpu::gen::ProcLookup::kVersionTooOld:
      if (symbolStatus) *symbolStatus = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
      return CUDA_SUCCESS;
    case rgpu::gen::ProcLookup::kNotFound:
      break;
  }
  // As the driver does (documented, and seen on the H200's driver 580): not finding a symbol is an
  // answer, not an error — success, a null pointer, and the reason in symbolStatus.
  if (symbolStatus) *symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_SUCCESS;
}

// The CUDA 11.3 form (no query result); cuda.h maps the name to _v2, the export is this one.
#undef cuGetProcAddress
extern "C" CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, nullptr);
}
