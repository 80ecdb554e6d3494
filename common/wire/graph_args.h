// The wire form of graph node enumeration (cudaGraphGetNodes, cudaGraphGetRootNodes), written by
// the client's graph.cpp and read by the server's. Nodes are made by the server (capture, graph
// building), so their ids are chosen there: the node's own address, bound in the session's handle
// table before it is returned.
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

}  // namespace rgpu::wire
