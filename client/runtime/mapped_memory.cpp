// Mapped (zero-copy) host memory: exposure, launch arguments, and the twin-and-diff exchange with
// the server's mirrors (see mapped_memory.h).
#include "client/runtime/mapped_memory.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>

#include "client/runtime/call.h"
#include "client/runtime/device.h"
#include "client/runtime/memory_map.h"
#include "client/runtime/pipe.h"
#include "common/wire/internal_calls.h"
#include "gen/cudart/cudart_ids.h"

namespace rgpu::client {
namespace {

constexpr uintptr_t kPage = 4096;
// The largest piece of a mirror written or read in one frame (below wire::kMaxBulk).
constexpr size_t kPiece = size_t{64} << 20;
// The granule of the first comparison: only a block that differs is compared byte by byte.
constexpr size_t kBlock = 64;

// One exposed allocation.
struct Exposed {
  uintptr_t base = 0;  // the client's allocation
  size_t size = 0;
  uint64_t mirror = 0;  // the server's mirror (its page-aligned start)
  uint64_t offset = 0;  // where `base` lies in the mirror
  std::vector<uint8_t> twin;  // what the mirror holds of [base, base + size), as last exchanged
  uint64_t address() const { return mirror + offset; }  // the GPU's address of `base`
};

// Outside the class, constant-initialised: the checks every call makes need no static guard.
std::atomic<bool> g_any{false};       // something is exposed: the one check of the fast paths
std::atomic<bool> g_unsynced{false};  // device work was issued since the last device-wide read-back

class Exposures {
 public:
  static Exposures& get() {
    static auto* e = new Exposures();  // outlives static destructors that may still launch
    return *e;
  }
  std::mutex mu;                      // held across each exchange, so twins change in call order
  std::map<uintptr_t, Exposed> by_base;
};

cudaError_t to_cuda(int32_t st) { return st == kStatusUnavailable ? cudaErrorNoDevice : static_cast<cudaError_t>(st); }

// The status a mapped-memory call's reply starts with.
int32_t reply_status(const std::vector<uint8_t>& reply) {
  wire::Decoder d(reply);
  const auto st = d.get<int32_t>();
  return d.ok() ? st : kStatusUnavailable;
}

// A call of the mapped-memory protocol, with its own buffers (it may run inside another call's
// path, whose per-thread buffers are in use). Sync when `reply` is given.
int32_t exchange(uint32_t id, const wire::Encoder& e, std::vector<uint8_t>* reply = nullptr) {
  Pipe& pipe = Pipe::get();
  if (!reply) return pipe.send_call(id, e, current_device(), nullptr) ? 0 : kStatusUnavailable;
  trace_wait(wire::internal_call_name(id));
  Waiter w;
  w.payload = reply;
  if (!pipe.send_call(id, e, current_device(), &w)) return kStatusUnavailable;
  pipe.wait(w);
  return w.lost ? kStatusUnavailable : reply_status(*reply);
}

// Byte runs of an allocation that go into its mirror in one write.
class WriteBatch {
 public:
  explicit WriteBatch(const Exposed& x) : x_(x) {}
  ~WriteBatch() { flush(); }
  // [off, off + n) of the twin (already updated) goes into the mirror, where the server expects
  // `old` (what the twin held).
  void add(size_t off, size_t n, const uint8_t* old) {
    if (old_.size() + n > kPiece / 2 || runs_.size() == kMaxRuns) flush();
    runs_.push_back({off, n});
    old_.insert(old_.end(), old, old + n);
  }

 private:
  static constexpr size_t kMaxRuns = 4096;
  // Sent async, in call order: u64 mirror, u32 count, then count pairs of u64 offset (in the
  // mirror) and u64 length; as bulk, the bytes each run replaces, then its new bytes.
  void flush() {
    if (runs_.empty()) return;
    wire::Encoder e;
    e.put<uint64_t>(x_.mirror);
    e.put<uint32_t>(static_cast<uint32_t>(runs_.size()));
    for (auto [off, n] : runs_) {
      e.put<uint64_t>(x_.offset + off);
      e.put<uint64_t>(n);
    }
    e.add_bulk(old_.data(), old_.size());
    for (auto [off, n] : runs_) e.add_bulk(x_.twin.data() + off, n);
    exchange(wire::kCallMappedWrite, e);
    runs_.clear();
    old_.clear();
  }
  const Exposed& x_;
  std::vector<std::pair<size_t, size_t>> runs_;
  std::vector<uint8_t> old_;
};

// Sends exactly the bytes the host changed since the last exchange (the lock held): never a byte
// it did not change, which the GPU may have written meanwhile. An asynchronous D2H copy still
// landing in the allocation lands first: in stream order the work after it sees its bytes.
void push_locked(Exposed& x) {
  Pipe::get().wait_landings(reinterpret_cast<const void*>(x.base), x.size);
  const auto* host = reinterpret_cast<const uint8_t*>(x.base);
  uint8_t* twin = x.twin.data();
  // Usually nothing changed (every forwarded call comes here): one comparison of the whole says so.
  if (std::memcmp(host, twin, x.size) == 0) return;
  WriteBatch batch(x);
  std::vector<uint8_t> old;     // what the twin held in the run being collected
  size_t run = 0, run_len = 0;  // the run of changed bytes being collected
  for (size_t off = 0; off < x.size; off += kBlock) {
    const size_t len = std::min(kBlock, x.size - off);
    if (std::memcmp(host + off, twin + off, len) == 0) continue;
    for (size_t i = off; i < off + len; ++i) {
      const uint8_t b = host[i];  // read once: another thread may be writing it
      if (b == twin[i]) continue;
      if (!run_len || run + run_len != i) {
        if (run_len) batch.add(run, run_len, old.data());
        run = i, run_len = 0;
        old.clear();
      }
      old.push_back(twin[i]);
      ++run_len;
      twin[i] = b;
    }
  }
  if (run_len) batch.add(run, run_len, old.data());
}

// Stores what the GPU changed (the lock held): bytes where `mirror` (x.size bytes, just read)
// differs from the twin. Returns how many of them the host had changed too (kept, and sent before
// the next work).
size_t merge_locked(Exposed& x, const uint8_t* mirror) {
  auto* host = reinterpret_cast<uint8_t*>(x.base);
  size_t conflicts = 0;
  for (size_t off = 0; off < x.size; off += kBlock) {
    const size_t len = std::min(kBlock, x.size - off);
    if (std::memcmp(mirror + off, x.twin.data() + off, len) == 0) continue;
    for (size_t i = off; i < off + len; ++i) {
      if (mirror[i] == x.twin[i]) continue;
      if (host[i] == x.twin[i])
        host[i] = mirror[i];
      else if (host[i] != mirror[i])
        ++conflicts;
      x.twin[i] = mirror[i];
    }
  }
  return conflicts;
}

// The exposed allocation holding `a` (the lock held), or null.
Exposed* find_locked(Exposures& ex, uintptr_t a) {
  auto it = ex.by_base.upper_bound(a);
  if (it == ex.by_base.begin()) return nullptr;
  --it;
  return a < it->second.base + it->second.size ? &it->second : nullptr;
}

// Exposes the pinned allocation `r` (the lock held): the server makes its mirror and gets its bytes
// (those that are not zero).
cudaError_t expose_locked(Exposures& ex, const Region& r, Exposed** out) {
  if ((*out = find_locked(ex, r.base)) != nullptr) return cudaSuccess;
  const uintptr_t page = r.base & ~(kPage - 1);
  const uintptr_t end = (r.base + r.size + kPage - 1) & ~(kPage - 1);
  wire::Encoder e;
  e.put<uint64_t>(page);
  e.put<uint64_t>(end - page);
  std::vector<uint8_t> reply;
  const cudaError_t st = to_cuda(exchange(wire::kCallMappedExpose, e, &reply));
  if (st != cudaSuccess) return st;
  wire::Decoder d(reply);
  d.get<int32_t>();
  const auto mirror = d.get<uint64_t>();
  if (!d.ok()) return cudaErrorUnknown;
  Exposed& x = ex.by_base[r.base];
  x.base = r.base;
  x.size = r.size;
  x.mirror = mirror;
  x.offset = r.base - page;
  x.twin.assign(r.size, 0);  // a new mirror is zero-filled: only the nonzero blocks go
  push_locked(x);
  g_any.store(true, std::memory_order_release);
  *out = &x;
  return cudaSuccess;
}

void push_all_locked(Exposures& ex) {
  for (auto& [base, x] : ex.by_base) push_locked(x);
  g_unsynced.store(true, std::memory_order_relaxed);
}

// Calls after which device work the program waited for is complete.
bool completes_work(uint32_t id) {
  namespace ids = gen::cudart;
  return ids::is_blocking(id) || id == ids::k_cudaStreamQuery || id == ids::k_cudaStreamQuery_ptsz ||
         id == ids::k_cudaEventQuery;
}

}  // namespace

cudaError_t mapped_device_pointer(const void* p, void** out) {
  auto r = MemoryMap::get().find_host(p);
  if (!r) return cudaErrorInvalidValue;
  // Shared memory (shared_host.h) needs no mirror and no exchange: the worker maps it for the device.
  if (const uint64_t shared = r->shared_address(reinterpret_cast<uintptr_t>(p))) {
    *out = reinterpret_cast<void*>(shared);
    return cudaSuccess;
  }
  Exposures& ex = Exposures::get();
  std::lock_guard<std::mutex> lock(ex.mu);
  Exposed* x = nullptr;
  if (cudaError_t st = expose_locked(ex, *r, &x); st != cudaSuccess) return st;
  *out = reinterpret_cast<void*>(x->address() + (reinterpret_cast<uintptr_t>(p) - x->base));
  return cudaSuccess;
}

cudaError_t mapped_prepare_launch(uint8_t* args, const std::vector<KernelRecord::Param>& params) {
  MemoryMap& map = MemoryMap::get();
  Exposures& ex = Exposures::get();
  auto pointer_at = [&](const KernelRecord::Param& p, uint64_t* v) {
    if (p.size != sizeof(uint64_t) || p.offset % sizeof(uint64_t) != 0) return false;
    std::memcpy(v, args + p.offset, sizeof *v);
    return map.may_be_host(*v);
  };
  uint64_t v = 0;
  if (std::none_of(params.begin(), params.end(), [&](const auto& p) { return pointer_at(p, &v); })) return cudaSuccess;
  std::lock_guard<std::mutex> lock(ex.mu);
  for (const auto& p : params) {
    if (!pointer_at(p, &v)) continue;
    const void* ptr = reinterpret_cast<const void*>(v);
    auto r = map.find_host(ptr);
    // A value in a pinned range may still be a device address the server gave out (the two
    // address spaces are apart): device memory the client knows is never rewritten.
    if (!r || map.find_device(ptr)) continue;
    if (const uint64_t shared = r->shared_address(v)) {
      std::memcpy(args + p.offset, &shared, sizeof shared);
      continue;
    }
    Exposed* x = nullptr;
    if (cudaError_t st = expose_locked(ex, *r, &x); st != cudaSuccess) return st;
    const uint64_t device = x->address() + (v - x->base);
    std::memcpy(args + p.offset, &device, sizeof device);
  }
  return cudaSuccess;
}

void mapped_before_call(uint32_t id) {
  if (!g_any.load(std::memory_order_acquire)) return;
  if (completes_work(id)) return;  // the read-back after it must see the GPU's bytes first (conflicts)
  mapped_before_device_work();
}

void mapped_before_device_work() {
  if (!g_any.load(std::memory_order_acquire)) return;
  Exposures& ex = Exposures::get();
  std::lock_guard<std::mutex> lock(ex.mu);
  push_all_locked(ex);
}

// The reads of one read-back: every exposed allocation's mirror, laid end to end in `mirrors`, read
// in as few calls as the frame's bulk and range limits allow (usually one, whatever the number of
// allocations: each call is a frame each way, and a program such as PyTorch's batched solve exposes
// several small pointer arrays and synchronises several times a step).
struct MappedReadBack::Reads {
  struct Pull {
    Exposed* x;
    size_t at;  // where its bytes start in `mirrors`
  };
  struct Piece {
    Waiter waiter;
    std::vector<uint8_t> reply;
  };
  std::vector<Pull> pulls;
  std::vector<uint8_t> mirrors;
  std::deque<Piece> pieces;  // in place: a sent piece's waiter must not move
  bool unsent = false;       // a read could not be sent (the connection is gone)

  // Sends the read of mirrors[start, start + len): the ranges of the allocations it spans, in order.
  bool send(size_t start, size_t len, const std::vector<std::pair<size_t, size_t>>& ranges) {
    wire::Encoder e;
    e.put<uint32_t>(static_cast<uint32_t>(ranges.size()));
    for (auto [pull, from] : ranges) {
      const Pull& p = pulls[pull];
      const size_t end = std::min(p.x->size, start + len - p.at);  // where the window ends in it
      e.put<uint64_t>(p.x->mirror);
      e.put<uint64_t>(p.x->offset + from);
      e.put<uint64_t>(end - from);
    }
    Piece& piece = pieces.emplace_back();
    piece.waiter.payload = &piece.reply;
    piece.waiter.bulk_dst = mirrors.data() + start;
    piece.waiter.bulk_len = len;
    if (Pipe::get().send_call(wire::kCallMappedRead, e, current_device(), &piece.waiter)) return true;
    pieces.pop_back();
    unsent = true;
    return false;
  }

  void wait_all() {
    for (Piece& p : pieces) Pipe::get().wait_behind(p.waiter);
  }
};

bool mapped_read_back_follows(uint32_t id) {
  return g_any.load(std::memory_order_acquire) && g_unsynced.load(std::memory_order_relaxed) && completes_work(id);
}

MappedReadBack::MappedReadBack(uint32_t id, bool follows) : id_(id) {
  if (!follows) return;
  Exposures& ex = Exposures::get();
  lock_ = std::unique_lock<std::mutex>(ex.mu);
  reads_ = std::make_unique<Reads>();
  size_t total = 0;
  for (auto& [base, x] : ex.by_base) {
    reads_->pulls.push_back({&x, total});
    total += x.size;
  }
  reads_->mirrors.resize(total);
  // Windows of at most kPiece bytes and kMaxMappedReadRanges ranges over the allocations end to end.
  std::vector<std::pair<size_t, size_t>> ranges;  // (pull, offset within its allocation)
  size_t start = 0;
  for (size_t k = 0; k < reads_->pulls.size(); ++k) {
    const Reads::Pull& p = reads_->pulls[k];
    for (size_t from = 0; from < p.x->size;) {
      const size_t room = kPiece - (p.at + from - start);
      const size_t take = std::min(room, p.x->size - from);
      ranges.emplace_back(k, from);
      from += take;
      const size_t end = p.at + from;
      if (end - start == kPiece || ranges.size() == wire::kMaxMappedReadRanges) {
        if (!reads_->send(start, end - start, ranges)) return;
        ranges.clear();
        start = end;
      }
    }
  }
  if (!ranges.empty()) (void)reads_->send(start, total - start, ranges);
}

MappedReadBack::~MappedReadBack() {
  if (reads_) reads_->wait_all();  // the replies land in reads_
}

int32_t MappedReadBack::finish(int32_t status) {
  if (!reads_) return status;
  reads_->wait_all();
  const std::unique_ptr<Reads> reads = std::move(reads_);
  // A query that found work still running (or a failed call): what was read is dropped.
  if (status != cudaSuccess) return status;
  if (reads->unsent) return to_cuda(kStatusUnavailable);
  for (Reads::Piece& p : reads->pieces)
    if (int32_t st = p.waiter.lost ? kStatusUnavailable : reply_status(p.reply); st != cudaSuccess) return to_cuda(st);
  // Only a device-wide synchronisation completes all of it: after a stream's or an event's, work
  // of other streams may still write, so later synchronisations read back again.
  if (id_ == gen::cudart::k_cudaDeviceSynchronize) g_unsynced.store(false, std::memory_order_relaxed);
  for (Reads::Pull& pull : reads->pulls) {
    const size_t conflicts = merge_locked(*pull.x, reads->mirrors.data() + pull.at);
    if (conflicts == 0) continue;
    const Exposed& x = *pull.x;
    std::fprintf(stderr,
                 "rgpu: the host and the GPU both changed %zu byte(s) of mapped host memory at %p (%zu bytes) between "
                 "two synchronisations; concurrent CPU and GPU writes to one location cannot be kept coherent across "
                 "the network: the host's bytes are kept (cudaErrorIllegalState)\n",
                 conflicts, reinterpret_cast<void*>(x.base), x.size);
    status = cudaErrorIllegalState;
  }
  return status;
}

void mapped_forget(const void* base) {
  if (!g_any.load(std::memory_order_acquire)) return;
  Exposures& ex = Exposures::get();
  std::lock_guard<std::mutex> lock(ex.mu);
  auto it = ex.by_base.find(reinterpret_cast<uintptr_t>(base));
  if (it == ex.by_base.end()) return;
  wire::Encoder e;
  e.put<uint64_t>(it->second.mirror);
  exchange(wire::kCallMappedRelease, e);
  ex.by_base.erase(it);
  g_any.store(!ex.by_base.empty(), std::memory_order_release);
  if (ex.by_base.empty()) g_unsynced.store(false, std::memory_order_relaxed);
}

}  // namespace rgpu::client
