// kCallErrorText: error names and descriptions come from the real CUDA runtime the backend
// loaded, so a remote program prints the same messages as a local one. The emulated backend has
// no runtime to ask; it answers with the error's number.
#include <dlfcn.h>

#include <string>

#include "server/session/internal_handlers.h"

namespace rgpu::server::handlers {

bool error_text(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)ctx;
  int32_t code = in.get<int32_t>();
  if (!in.ok() || !in.at_end()) return false;
  using Fn = const char* (*)(int);
  static void* lib = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
  static auto name_fn = lib ? reinterpret_cast<Fn>(dlsym(lib, "cudaGetErrorName")) : nullptr;
  static auto text_fn = lib ? reinterpret_cast<Fn>(dlsym(lib, "cudaGetErrorString")) : nullptr;
  std::string name = name_fn ? name_fn(code) : "cudaError " + std::to_string(code);
  std::string text = text_fn ? text_fn(code) : "CUDA error " + std::to_string(code) + " (emulated device)";
  out.put_string(name.c_str());
  out.put_string(text.c_str());
  status = 0;
  return true;
}

}  // namespace rgpu::server::handlers
