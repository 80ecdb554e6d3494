// The driver API's module calls (common/wire/internal_calls.h): a variable of a loaded module by
// name, and the unload of a module. Modules come from the ModuleLoad control message
// (Session::load_module); the client names them by its module id.
#include <cuda_runtime_api.h>

#include <string>

#include "common/wire/internal_calls.h"
#include "server/session/internal_handlers.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {

bool module_global(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto id = in.get<uint64_t>();
  std::string name(in.get_string());
  if (!in.ok() || !in.at_end()) return false;
  void* module = ctx.session.module(id);
  if (!module) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  uint64_t address = 0, size = 0;
  status = ctx.session.backend().module_global(module, name, &address, &size);
  if (status == cudaSuccess) {
    out.put<uint64_t>(address);
    out.put<uint64_t>(size);
  }
  return true;
}

bool module_unload(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  auto id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return false;
  void* module = ctx.session.module(id);
  if (!module) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  status = ctx.session.backend().unload_module(module);
  if (status == cudaSuccess) ctx.session.forget_module(id);
  return true;
}

}  // namespace rgpu::server::handlers
