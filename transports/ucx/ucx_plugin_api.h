// The C interface between rgpu_transports and librgpu_transport_ucx.so, the one library that links
// UCX. rgpu's binaries dlopen the library only when a ucx:// address is asked (ucx_plugin.cpp), so a
// host without UCX still runs rgpu. Plain C types across the boundary: the library shares no C++
// object, allocator state or static data with the binary that loads it.
//
// An endpoint is one UCP context, worker and endpoint, paired with a peer over a "lifeline": a
// connected stream socket the caller owns (TCP or Unix), on which the two ends swap UCP worker
// addresses and which then tells each end when the other goes (ucx_connection.h says why).
//
// Bulk data by one-sided RMA: a segment of a send of at least `rma_min` bytes does not ride the
// stream. The sender maps it (ucp_mem_map), sends a descriptor in its place (address, length,
// packed rkey), and the receiver reads it with ucp_get straight into the memory its recv names,
// then acknowledges it (an active message) so the sender's send returns. The receiver's pieces need
// not match the sender's segments: a get reads any part of the region.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

extern "C" {

// Bumped whenever a member of rgpu_ucx_ops changes: a library of another build is refused.
#define RGPU_UCX_PLUGIN_ABI 2
#define RGPU_UCX_PLUGIN_ENTRY "rgpu_ucx_plugin"

enum rgpu_ucx_result {
  RGPU_UCX_OK = 0,
  RGPU_UCX_CLOSED = 1,     // the peer went away, or shutdown() was called
  RGPU_UCX_FAILED = 2,     // UCX (or a system call) failed; the message says how
  RGPU_UCX_PROTOCOL = 3,   // the peer sent something no rgpu end sends
};

struct rgpu_ucx_message {
  char text[256];
};

struct rgpu_ucx_endpoint;

struct rgpu_ucx_ops {
  uint32_t abi;  // RGPU_UCX_PLUGIN_ABI
  // Makes a UCP context and worker (UCX's own configuration: UCX_TLS, UCX_NET_DEVICES ...), swaps
  // worker addresses with the peer over `lifeline_fd` (a blocking stream socket, left open and
  // owned by the caller) within `timeout_ms`, and connects. The connecting side (`accepting` 0)
  // speaks first and the accepting side answers, so that nothing arrives on the socket before the
  // side reading it has handed it over (a reader's read-ahead would take it). `spin_us`: how long a
  // waiting call polls before it sleeps on the worker's descriptor. `rma_min`: the smallest segment
  // sent by RMA, 0 for none (everything rides the stream; a peer's RMA segments are still read).
  // NULL on failure, with `why`.
  struct rgpu_ucx_endpoint* (*open)(int lifeline_fd, int accepting, int timeout_ms, int spin_us, size_t rma_min,
                                    struct rgpu_ucx_message* why);
  // Sends the segments in order; returns once UCX no longer needs them: a segment sent by RMA, once
  // the peer has read all of it. Thread-safe against recv.
  int (*send)(struct rgpu_ucx_endpoint* endpoint, const struct iovec* segments, size_t count,
              struct rgpu_ucx_message* why);
  // Receives at least one byte and at most `capacity` into `dst`; `*got` says how many. Of a segment
  // the peer sent by RMA, reads exactly min(capacity, what is left of it) with one get.
  int (*recv)(struct rgpu_ucx_endpoint* endpoint, void* dst, size_t capacity, size_t* got,
              struct rgpu_ucx_message* why);
  // Wakes every waiting send and recv with RGPU_UCX_CLOSED; later calls fail the same way.
  // Thread-safe, and safe from any thread.
  void (*shutdown)(struct rgpu_ucx_endpoint* endpoint);
  // Sends what is queued, tells the peer over the lifeline how many bytes it was sent (so it reads
  // them all before it reports the end), and frees everything. The caller closes the lifeline.
  void (*close)(struct rgpu_ucx_endpoint* endpoint);
};

// The library's one exported symbol.
const struct rgpu_ucx_ops* rgpu_ucx_plugin(void);

}  // extern "C"
