// The emulated cuBLASLt entry points by name (entry_table.h): the resolver given to gen::cublasLt::load_api.
#include "server/backends/emulated/cublaslt.h"
#include "server/backends/emulated/entry_table.h"

namespace rgpu::server::emulated {
namespace {

const Entry kTable[] = {
    RGPU_EMULATED(cublasLtCreate),
    RGPU_EMULATED(cublasLtDestroy),
    RGPU_EMULATED(cublasLtMatmulDescCreate),
    RGPU_EMULATED(cublasLtMatmulDescDestroy),
    RGPU_EMULATED(cublasLtMatmulDescSetAttribute),
    RGPU_EMULATED(cublasLtMatrixLayoutCreate),
    RGPU_EMULATED(cublasLtMatrixLayoutDestroy),
    RGPU_EMULATED(cublasLtMatrixLayoutSetAttribute),
    RGPU_EMULATED(cublasLtMatmulPreferenceCreate),
    RGPU_EMULATED(cublasLtMatmulPreferenceDestroy),
    RGPU_EMULATED(cublasLtMatmulPreferenceSetAttribute),
    RGPU_EMULATED(cublasLtMatmulAlgoGetHeuristic),
    RGPU_EMULATED(cublasLtMatmul),
};

}  // namespace

void* resolve_cublasLt(const char* name, void*) {
  if (!name) return nullptr;
  return find_entry(kTable, name);
}

}  // namespace rgpu::server::emulated
