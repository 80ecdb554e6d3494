// The emulated cuBLAS entry points by name: the resolver given to gen::cublas::load_api. Each entry
// is checked at compile time to have exactly the type of the real function in cublas_api.h.
#include <string_view>
#include <type_traits>

#include "server/backends/emulated/cublas.h"

namespace rgpu::server::emulated {
namespace {

struct Entry {
  const char* name;
  void* fn;
};

template <typename Real, typename Emulated>
void* checked(Emulated fn) {
  static_assert(std::is_same_v<Emulated, Real>, "an emulated function's type differs from cublas_api.h");
  return reinterpret_cast<void*>(fn);
}

#define RGPU_EMULATED(fn) Entry{#fn, checked<decltype(&::fn)>(&emulated::fn)}

const Entry kTable[] = {
    RGPU_EMULATED(cublasCreate_v2),         RGPU_EMULATED(cublasDestroy_v2), RGPU_EMULATED(cublasSetStream_v2),
    RGPU_EMULATED(cublasSetPointerMode_v2), RGPU_EMULATED(cublasSetMathMode), RGPU_EMULATED(cublasSgemm_v2),
    RGPU_EMULATED(cublasSdot_v2),
};

#undef RGPU_EMULATED

}  // namespace

void* resolve_cublas(const char* name, void*) {
  if (!name) return nullptr;
  for (const Entry& e : kTable) {
    if (std::string_view(name) == e.name) return e.fn;
  }
  return nullptr;
}

}  // namespace rgpu::server::emulated
