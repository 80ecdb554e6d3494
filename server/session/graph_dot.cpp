// cudaGraphDebugDotPrint on the server: the backend writes the graph's DOT text to a file of the
// worker's own (a private temporary file, removed at once), and the text goes back to the client,
// which writes the program's path on its own host (client/runtime/graph_dot.cpp).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "common/wire/codec.h"
#include "common/wire/frame.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"

namespace rgpu::server::handlers {
namespace {

// A reply must fit one frame, with room for its head.
constexpr size_t kMaxDotBytes = wire::kMaxPayload - 4096;

// The contents of `path`, or false when it cannot be read or is larger than a reply can carry.
bool read_text(const std::string& path, std::string* text) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  text->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !f.bad() && text->size() <= kMaxDotBytes;
}

}  // namespace

// in: u64 graph id, u32 flags; out (on success): the DOT text as bytes.
bool cudaGraphDebugDotPrint(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto graph_id = in.get<uint64_t>();
  auto flags = in.get<uint32_t>();
  if (!in.ok() || !in.at_end()) return false;
  auto print = ctx.cudart.cudaGraphDebugDotPrint;
  if (!print) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaGraph_t graph{};
  if (!ctx.handles.resolve(HandleKind::kGraph, graph_id, &graph)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/rgpu-graph-XXXXXX.dot";
  int fd = mkstemps(path.data(), 4);
  if (fd < 0) {
    status = cudaErrorOperatingSystem;
    return true;
  }
  close(fd);
  status = print(graph, path.c_str(), flags);
  std::string text;
  if (status == cudaSuccess && !read_text(path, &text)) status = cudaErrorOperatingSystem;
  std::remove(path.c_str());
  if (status == cudaSuccess) out.put_bytes(text.data(), text.size());
  return true;
}

}  // namespace rgpu::server::handlers
