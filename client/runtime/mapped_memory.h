// Mapped (zero-copy) host memory across the network. With unified addressing every pinned host
// allocation (cudaMallocHost, cudaHostAlloc, cudaHostRegister) is device-accessible at its host
// address. The client keeps such memory where it is; an allocation is *exposed* to the GPU the first
// time cudaHostGetDevicePointer is asked about it or a kernel receives a pointer into it. The server
// then backs it with a device-mapped mirror, placed at the client's own address when that address
// is free on the GPU host (nested pointers then work unchanged), elsewhere otherwise (launch
// arguments are rewritten; pointers stored inside memory are not). Coherence, by twin and diff as
// in a multiple-writer distributed shared memory, with no page protection and no signal handler:
//  - before every forwarded call (a kernel or graph launch, a copy, a library call: any may make the
//    GPU read it), the bytes the host changed in any exposed allocation since the last exchange
//    (found against a twin, the client's copy of what the mirror holds) are written into the
//    mirror, in call order ahead of that call; the server checks that each byte it replaces is
//    still the twin's (else the GPU wrote it too: a conflict, the write's asynchronous error
//    cudaErrorIllegalState);
//  - after a call that completes device work (cudaDeviceSynchronize, cudaStreamSynchronize,
//    cudaEventSynchronize, a query answering cudaSuccess), if device work was issued since the last
//    exchange, each exposed allocation is read back and the bytes the GPU changed are stored into
//    host memory; bytes the host changed meanwhile are kept (and sent before the next work). The
//    reads go right behind the synchronising call, before its reply (the server runs them once it
//    has returned), so the two cost one round trip; a query answering cudaErrorNotReady drops what
//    they read. A byte
//    both sides changed is a conflict (concurrent CPU and GPU writes, atomics included, cannot be
//    coherent across a network): the host's byte is kept, a message names it and the synchronising
//    call returns cudaErrorIllegalState.
// Memory shared with a session on the server's host (shared_host.h) is none of this: the worker maps
// the client's own pages for the device, so a kernel reads and writes them in place, coherent as
// natively, and they are never exposed, exchanged or read back.
// docs/mapped-memory.md says what is coherent when, and what does not work.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <cuda_runtime_api.h>

#include "client/runtime/modules.h"

namespace rgpu::client {

// The address the GPU uses for host pointer `p` inside a pinned allocation (exposing it).
// cudaErrorInvalidValue when `p` is not in one.
cudaError_t mapped_device_pointer(const void* p, void** out);

// A launch's packed arguments: every pointer-sized parameter holding an address inside a pinned
// host allocation exposes that allocation and becomes the GPU's address for it. Called before the
// launch is sent.
cudaError_t mapped_prepare_launch(uint8_t* args, const std::vector<KernelRecord::Param>& params);

// Sends the host's changes to exposed memory, and notes that device work may follow. A relaxed load
// when nothing is exposed.
void mapped_before_device_work();
// Before forwarded call `id` (Call::post and invoke): mapped_before_device_work(), except for the
// calls after which a read-back follows (it merges the host's changes itself).
void mapped_before_call(uint32_t id);

// Whether a read-back will follow call `id` (MappedReadBack): its frame says so, so that the server
// may wait for the call in place (wire::kFlagReadBackFollows).
bool mapped_read_back_follows(uint32_t id);

// The read-back of exposed memory behind a call that may complete device work. Made right after
// the call is sent, with `follows` as mapped_read_back_follows(id) said before it was sent (the
// call's frame carries that answer, so the read is sent exactly when the frame said it would be):
// it then sends a read of each exposed allocation and holds the exposures' lock (no host change
// may reach a mirror between those reads and their merge) until finish().
class MappedReadBack {
 public:
  MappedReadBack(uint32_t id, bool follows);
  ~MappedReadBack();
  MappedReadBack(const MappedReadBack&) = delete;
  MappedReadBack& operator=(const MappedReadBack&) = delete;
  // After the call returned `status`: waits for the reads and, when the call succeeded, stores the
  // GPU's changes into host memory. Returns the status the caller should report.
  int32_t finish(int32_t status);

 private:
  struct Reads;
  uint32_t id_;
  std::unique_lock<std::mutex> lock_;
  std::unique_ptr<Reads> reads_;  // null when nothing is to be read back
};

// cudaFreeHost / cudaHostUnregister of an allocation starting at `base`: its mirror is released.
void mapped_forget(const void* base);

}  // namespace rgpu::client
