// The emulated cuBLAS entry points by name (entry_table.h): the resolver given to gen::cublas::load_api.
#include <string_view>

#include <cublas.h>  // the legacy API's declarations, which the entries are checked against

#include "server/backends/emulated/entry_table.h"
#include "server/backends/emulated/cublas.h"

namespace rgpu::server::emulated {
namespace {

const Entry kTable[] = {
    RGPU_EMULATED(cublasCreate_v2),         RGPU_EMULATED(cublasDestroy_v2), RGPU_EMULATED(cublasSetStream_v2),
    RGPU_EMULATED(cublasSetPointerMode_v2), RGPU_EMULATED(cublasSetMathMode), RGPU_EMULATED(cublasSgemm_v2),
    RGPU_EMULATED(cublasSdot_v2),           RGPU_EMULATED(cublasSaxpy_v2_64), RGPU_EMULATED(cublasSrot_v2),
    RGPU_EMULATED(cublasSgetrsBatched),     RGPU_EMULATED(cublasInit),        RGPU_EMULATED(cublasShutdown),
    RGPU_EMULATED(cublasGetError),          RGPU_EMULATED(cublasSetKernelStream), RGPU_EMULATED(cublasSaxpy),
    RGPU_EMULATED(cublasSdot),              RGPU_EMULATED(cublasSgemm),       RGPU_EMULATED(cublasSetVector),
    RGPU_EMULATED(cublasGetVector),
};

}  // namespace

void* resolve_cublas(const char* name, void*) {
  if (!name) return nullptr;
  return find_entry(kTable, name);
}

}  // namespace rgpu::server::emulated
