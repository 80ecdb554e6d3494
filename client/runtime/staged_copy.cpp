// Pageable copies through shared staging chunks (see staged_copy.h).
#include "client/runtime/staged_copy.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "client/runtime/call.h"
#include "client/runtime/chunk_pipeline.h"
#include "client/runtime/device.h"
#include "client/runtime/pipe.h"
#include "client/runtime/shared_host.h"
#include "common/config.h"
#include "common/worker_team.h"
#include "common/wire/codec.h"
#include "common/wire/copy_args.h"
#include "common/wire/internal_calls.h"

namespace rgpu::client {
namespace {

const Tunable kChunkMb{"RGPU_STAGING_CHUNK_MB", "8", "size of a shared staging chunk for pageable copies (MiB)"};
const Tunable kChunks{"RGPU_STAGING_CHUNKS", "4", "shared staging chunks for pageable copies (2 to 16)"};
const Tunable kStagingThreads{"RGPU_STAGING_THREADS", "4",
                               "threads that copy a pageable copy's chunk to or from shared staging (1 to 16): one "
                               "core's memcpy is slower than the GPU's copy"};
const Tunable kStagedFromKb{"RGPU_STAGED_FROM_KB", "1024",
                            "smallest pageable copy (KiB) staged through shared memory; smaller ones ride the socket, "
                            "which sends an H2D copy without a round trip"};

// The ring: chunks of one shared allocation, and a call in flight per chunk. One staged copy at a
// time uses it.
struct Ring {
  struct Slot {
    wire::Encoder args;
    std::vector<uint8_t> reply;
    Waiter waiter;
  };
  std::mutex mu;
  bool tried = false;
  uint8_t* base = nullptr;
  uint64_t id = 0;
  size_t chunk = 0;
  std::unique_ptr<Slot[]> slots;
  size_t count = 0;
  std::unique_ptr<WorkerTeam> team;  // the memcpy's threads (none: the caller's alone)

  // Made on the first staged copy (mu held); false when it cannot be (said once by share_region).
  bool ready_locked() {
    if (tried) return base != nullptr;
    tried = true;
    chunk = static_cast<size_t>(std::clamp<int64_t>(kChunkMb.get_int(), 1, 256)) << 20;
    count = static_cast<size_t>(std::clamp<int64_t>(kChunks.get_int(), 2, 16));
    uint64_t device = 0;  // a staging area is no kernel's memory
    base = static_cast<uint8_t*>(share_region(chunk * count, &id, &device));
    if (!base) return false;
    slots = std::make_unique<Slot[]>(count);
    const auto threads = static_cast<size_t>(std::clamp<int64_t>(kStagingThreads.get_int(), 1, 16));
    if (threads > 1) team = std::make_unique<WorkerTeam>(threads);
    return true;
  }
};

Ring& ring() {
  static Ring* r = new Ring();  // leaked like the pipe: copies may run from static destructors
  return *r;
}

}  // namespace

bool copy_staged(void* device, void* host, size_t n, cudaMemcpyKind kind, bool async, uint64_t stream,
                 bool per_thread, int32_t* status) {
  static const size_t from = static_cast<size_t>(std::max<int64_t>(kStagedFromKb.get_int(), 1)) << 10;
  if (n < from || !shares_memory()) return false;
  Ring& r = ring();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.ready_locked()) return false;
  Pipe& pipe = Pipe::get();
  pipe.wait_landings(host, n);  // a D2H still landing there from the socket path comes first
  const int on_device = current_device();
  const bool h2d = kind == cudaMemcpyHostToDevice;
  auto* program = static_cast<uint8_t*>(host);
  ChunkSteps steps;
  steps.host = [&](size_t slot, uint64_t offset, size_t len) {
    uint8_t* staged = r.base + slot * r.chunk;
    // The chunk in pieces of 64 KiB multiples, one per thread of the team.
    const size_t pieces = r.team && len >= (1u << 20) ? r.team->size() : 1;
    const size_t piece = ((len + pieces - 1) / pieces + 0xffff) & ~size_t{0xffff};
    auto copy_piece = [&](size_t k) {
      const size_t at = std::min(k * piece, len);
      const size_t n = std::min(piece, len - at);
      if (h2d) std::memcpy(staged + at, program + offset + at, n);
      else std::memcpy(program + offset + at, staged + at, n);
    };
    if (pieces == 1) copy_piece(0);
    else r.team->run(pieces, copy_piece);
  };
  steps.issue = [&](size_t slot, uint64_t offset, size_t len) -> int32_t {
    Ring::Slot& s = r.slots[slot];
    wire::SharedCopy a{};
    a.device = reinterpret_cast<uint64_t>(device) + offset;
    a.shared = r.id;
    a.offset = slot * r.chunk;
    a.count = len;
    a.stream = stream;
    a.kind = kind;
    a.async = async ? 1 : 0;
    a.per_thread = per_thread ? 1 : 0;
    a.wait_stream = async ? 1 : 0;  // the reply says the chunk is free again
    s.args.clear();
    s.args.put(a);
    s.waiter.payload = &s.reply;
    s.waiter.done.store(false, std::memory_order_relaxed);
    s.waiter.lost = false;
    return pipe.send_call(wire::kCallSharedCopy, s.args, on_device, &s.waiter) ? 0 : kStatusUnavailable;
  };
  steps.finish = [&](size_t slot) -> int32_t {
    Ring::Slot& s = r.slots[slot];
    pipe.wait(s.waiter);
    if (s.waiter.lost) return kStatusUnavailable;
    wire::Decoder reply(s.reply);
    const auto st = reply.get<int32_t>();
    return reply.ok() ? st : kStatusUnavailable;
  };
  *status = h2d ? run_h2d_chunks(n, r.chunk, r.count, steps) : run_d2h_chunks(n, r.chunk, r.count, steps);
  return true;
}

}  // namespace rgpu::client
