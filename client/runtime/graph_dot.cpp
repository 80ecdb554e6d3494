// cudaGraphDebugDotPrint: the graph lives on the server, whose backend renders it as DOT text
// (server/session/graph_dot.cpp); the file is written here, at the program's path on its own host.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string_view>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "gen/cudart/cudart_ids.h"

namespace rgpu::client {
namespace {

cudaError_t write_file(const char* path, std::string_view text) {
  std::FILE* f = std::fopen(path, "wb");
  if (!f) return cudaErrorOperatingSystem;
  bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && written ? cudaSuccess : cudaErrorOperatingSystem;
}

cudaError_t dot_print(cudaGraph_t graph, const char* path, unsigned int flags) {
  if (!path || !*path) return cudaErrorInvalidValue;
  Call call(gen::cudart::k_cudaGraphDebugDotPrint, CallClass::kSync);
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(graph));
  call.args().put<uint32_t>(flags);
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st != cudaSuccess) return st;
  std::string_view text = call.results().get_string();
  if (!call.results().ok()) return cudaErrorUnknown;
  return write_file(path, text);
}

}  // namespace
}  // namespace rgpu::client

extern "C" cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned int flags) {
  return rgpu::client::cudart_finish(rgpu::client::dot_print(graph, path, flags));
}
