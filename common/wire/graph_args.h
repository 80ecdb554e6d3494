// The wire form of graph node enumeration (cudaGraphGetNodes, cudaGraphGetRootNodes), written by
// the client's graph.cpp and read by the server's. Nodes are made by the server (capture, graph
// building): one the client added by hand keeps the id the client chose; any other is given its own
// address, bound in the session's handle table before it is returned.
#pragma once

#include <cstdint>

namespace rgpu::wire {

struct GraphNodesQuery {
  uint64_t graph;       // client graph id
  uint64_t capacity;    // *numNodes on entry
  uint32_t want_nodes;  // the caller passed a node array (else: count only)
  uint32_t pad;
};
// Reply: u64 count, then min(count, capacity) u64 node ids when want_nodes.

// Host memory cannot take part in a graph across the network, so a host<->device copy captured
// into a graph goes through a "mirror": a pinned server buffer that the captured copy node reads
// (H2D) or writes (D2H). Before each launch the client refreshes every H2D mirror of the graph;
// after a D2H copy node runs, a captured host node sends the mirror's bytes back (kMirror frame)
// and the client writes them to the user's buffer before the stream's synchronisation returns.
struct CaptureCopy {
  uint64_t mirror;   // client-chosen mirror id
  uint64_t device;   // the device address copied to (H2D) or from (D2H)
  uint64_t count;
  int32_t kind;      // cudaMemcpyHostToDevice or cudaMemcpyDeviceToHost
  uint32_t pad;
  uint64_t stream;   // client stream id (capturing)
};

struct MirrorRefresh {
  uint64_t mirror;
  uint64_t stream;   // the stream the graph is about to be launched on
};

}  // namespace rgpu::wire
