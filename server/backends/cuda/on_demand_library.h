// A CUDA library the cuda backend loads on a session's first call into it (cuBLAS, cuBLASLt, cuDNN,
// NVML): its generated entry-point table, empty until the load and for good when no candidate
// loads (every call then answers the library's not-supported status, and the dispatch says which).
#pragma once

#include <mutex>
#include <string>

#include "common/config.h"
#include "common/log.h"
#include "server/backends/cuda/shared_library.h"

namespace rgpu::server::cuda {

template <typename Api>
struct OnDemandLibrary {
  std::once_flag once;
  SharedLibrary library;
  Api api;
};

// Loads `lib` once from the first of `candidates` (a ':'-separated tunable) that opens; `advice`
// tells the operator what to install when none does. `load_api` is the generated gen::<lib>::load_api.
template <typename Api>
void load_on_demand(OnDemandLibrary<Api>& lib, const Tunable& candidates, const char* advice, const char* what,
                    void (*load_api)(Api&, void* (*)(const char*, void*), void*)) {
  std::call_once(lib.once, [&] {
    Result<SharedLibrary> library = SharedLibrary::open(split_candidates(candidates.get()), advice);
    if (!library.is_ok()) {
      RGPU_LOG_ERROR("%s", library.status().to_string().c_str());
      return;
    }
    lib.library = library.value();
    load_api(
        lib.api, [](const char* name, void* l) { return static_cast<const SharedLibrary*>(l)->symbol(name); },
        &lib.library);
    RGPU_LOG_DEBUG("%s loaded from %s", what, lib.library.path().c_str());
  });
}

}  // namespace rgpu::server::cuda
