// Emulated CUDA Runtime: cudaGraphDebugDotPrint. The emulator keeps a graph as the list of its
// nodes in the order they run (runtime_graph.cpp), not their dependencies: the DOT text shows each
// node with its kind, and the order as edges, a chain that is one valid serialisation of the graph.
#include <cstdio>
#include <cstring>
#include <string>

#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

// The names CUDA's own DOT output gives node kinds.
const char* kind_name(cudaGraphNodeType type) {
  switch (type) {
    case cudaGraphNodeTypeKernel: return "KERNEL";
    case cudaGraphNodeTypeMemcpy: return "MEMCPY";
    case cudaGraphNodeTypeMemset: return "MEMSET";
    case cudaGraphNodeTypeHost: return "HOST";
    case cudaGraphNodeTypeGraph: return "CHILD_GRAPH";
    case cudaGraphNodeTypeEmpty: return "EMPTY";
    case cudaGraphNodeTypeWaitEvent: return "WAIT_EVENT";
    case cudaGraphNodeTypeEventRecord: return "EVENT_RECORD";
    case cudaGraphNodeTypeMemAlloc: return "MEM_ALLOC";
    case cudaGraphNodeTypeMemFree: return "MEM_FREE";
    case cudaGraphNodeTypeConditional: return "CONDITIONAL";
    default: return "NODE";
  }
}

std::string render(const Graph& graph) {
  std::string dot = "digraph dot {\n  // rgpu emulated backend: nodes in the order they run\n";
  char line[128];
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    std::snprintf(line, sizeof line, "  node%zu [shape=\"rectangle\" label=\"%zu\\n%s\"];\n", i, i,
                  kind_name(graph.nodes[i]->type));
    dot += line;
  }
  for (size_t i = 1; i < graph.nodes.size(); ++i) {
    std::snprintf(line, sizeof line, "  node%zu -> node%zu;\n", i - 1, i);
    dot += line;
  }
  return dot + "}\n";
}

}  // namespace

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned int flags) {
  (void)flags;  // every flag adds detail the emulator does not keep
  if (!path) return cudaErrorInvalidValue;
  std::string dot;
  {
    std::lock_guard lock(state().mu);
    auto it = state().graphs.find(graph);
    if (it == state().graphs.end()) return cudaErrorInvalidResourceHandle;
    dot = render(*it->second);
  }
  std::FILE* f = std::fopen(path, "wb");
  if (!f) return cudaErrorOperatingSystem;
  bool written = std::fwrite(dot.data(), 1, dot.size(), f) == dot.size();
  return std::fclose(f) == 0 && written ? cudaSuccess : cudaErrorOperatingSystem;
}

}  // namespace rgpu::server::emulated
