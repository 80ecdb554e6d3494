// The wire form of graph queries that name nodes (cudaGraphGetNodes, cudaGraphGetEdges, ...), and
// of host copies captured into graphs. Nodes are made by the server (capture, graph building): one the client added by hand keeps the id the client chose; any other is given its own
// address, bound in the session's handle table before it is returned.
#pragma once

#include <cstdint>

namespace rgpu::wire {

// Every query that lists nodes (a graph's nodes, roots or edges, a node's dependencies or
// dependents), written by the client's graph_queries.cpp and read by the server's.
struct GraphNodesQuery {
  uint64_t subject;         // client graph id (nodes, roots, edges) or node id (its neighbours)
  uint64_t capacity;        // *numNodes on entry
  uint32_t want_nodes;      // the caller passed node arrays (else: count only)
  uint32_t want_edge_data;  // the caller passed an edge data array
};
// Reply: u64 count; then, for capacity' = min(count, capacity): when want_nodes, capacity' u64
// node ids per column (one column; two for edges: from, then to); when want_edge_data,
// capacity' cudaGraphEdgeData.

// A query answered by one handle the server names (cudaGraphNodeFindInClone, a node's child graph
// or event): in: u64 node id, u64 graph id (FindInClone's clone; else 0); out: u64 handle id.

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
