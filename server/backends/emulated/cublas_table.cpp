// The emulated cuBLAS entry points by name (entry_table.h): the resolver given to gen::cublas::load_api.
#include <string_view>

#include "server/backends/emulated/entry_table.h"
#include "server/backends/emulated/cublas.h"

namespace rgpu::server::emulated {
namespace {

const Entry kTable[] = {
    RGPU_EMULATED(cublasCreate_v2),         RGPU_EMULATED(cublasDestroy_v2), RGPU_EMULATED(cublasSetStream_v2),
    RGPU_EMULATED(cublasSetPointerMode_v2), RGPU_EMULATED(cublasSetMathMode), RGPU_EMULATED(cublasSgemm_v2),
    RGPU_EMULATED(cublasSdot_v2),           RGPU_EMULATED(cublasSaxpy_v2_64), RGPU_EMULATED(cublasSrot_v2),
    RGPU_EMULATED(cublasSgetrsBatched),
};

}  // namespace

void* resolve_cublas(const char* name, void*) {
  if (!name) return nullptr;
  return find_entry(kTable, name);
}

}  // namespace rgpu::server::emulated
