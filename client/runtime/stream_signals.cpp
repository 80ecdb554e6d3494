// Stream signals (see stream_signals.h).
#include "client/runtime/stream_signals.h"

#include <atomic>
#include <cstring>

#include "client/runtime/call.h"
#include "client/runtime/capture.h"
#include "client/runtime/device.h"
#include "client/runtime/mapped_memory.h"
#include "client/runtime/pipe.h"
#include "client/runtime/shared_host.h"
#include "common/config.h"
#include "common/spin.h"
#include "common/wire/copy_args.h"
#include "common/wire/internal_calls.h"
#include "gen/cudart/cudart_ids.h"

namespace rgpu::client {
namespace {

const Tunable kStreamSignals{"RGPU_STREAM_SIGNALS", "1",
                             "1: a client on rgpud's host that shares memory with its session learns that a stream's "
                             "or an event's work is done (cudaStreamSynchronize, cudaEventSynchronize, a small "
                             "synchronous D2H copy) from a word the GPU sets; 0: from the reply to the synchronising "
                             "call"};

// The shared page: kWords words, then kSlots slots of kSignalReadMax bytes for small reads. A wait
// takes the next value and the word it names (value % kWords); values grow to kSignalNever - 1 and
// start again at 1. A word is used again only kWords waits later: a write of an older value that
// lands late (a long-running stream whose waiter asked meanwhile) costs the wait that finds it only
// its watch, since values never repeat that soon. A slot is the caller's alone until it releases it:
// a late copy must never land in another caller's bytes.
class SignalPage {
 public:
  static constexpr uint32_t kWords = 1024;
  static constexpr int kSlots = 64;
  static constexpr size_t kBytes = kWords * sizeof(uint32_t) + kSlots * kSignalReadMax;

  // The page, or null when this client shares no memory or sharing it failed.
  static SignalPage* get() {
    static SignalPage* page = make();  // kept for the process's life, as the pipe is
    return page;
  }

  struct Word {
    uint32_t value;
    uint32_t* at;
    uint64_t offset;
  };
  Word next_word() {
    const uint32_t v = next_.fetch_add(1, std::memory_order_relaxed) % (wire::kSignalNever - 1) + 1;
    const uint32_t i = v % kWords;
    __atomic_store_n(&words_[i], 0u, __ATOMIC_RELAXED);
    return {v, &words_[i], i * sizeof(uint32_t)};
  }
  // A free slot, or -1 when all are taken.
  int take_slot() {
    uint64_t free = ~taken_.load(std::memory_order_relaxed);
    while (free) {
      const int i = __builtin_ctzll(free);
      if (!(taken_.fetch_or(uint64_t{1} << i, std::memory_order_acquire) >> i & 1)) return i;
      free &= ~(uint64_t{1} << i);
    }
    return -1;
  }
  void release_slot(int i) { taken_.fetch_and(~(uint64_t{1} << i), std::memory_order_release); }
  uint8_t* slot(int i) { return base_ + slot_offset(i); }
  static uint64_t slot_offset(int i) { return kWords * sizeof(uint32_t) + static_cast<uint64_t>(i) * kSignalReadMax; }
  uint64_t id() const { return id_; }
  // The server said no wait of this session will be answered through the page.
  bool closed() const { return closed_.load(std::memory_order_relaxed); }
  void close() { closed_.store(true, std::memory_order_relaxed); }

 private:
  SignalPage(uint8_t* base, uint64_t id) : base_(base), words_(reinterpret_cast<uint32_t*>(base)), id_(id) {}
  static SignalPage* make() {
    if (!kStreamSignals.get_bool() || !shares_memory()) return nullptr;
    uint64_t id = 0, device = 0;
    void* p = share_region(kBytes, &id, &device);
    return p ? new SignalPage(static_cast<uint8_t*>(p), id) : nullptr;
  }

  uint8_t* base_;
  uint32_t* words_;
  uint64_t id_;
  std::atomic<uint32_t> next_{0};
  std::atomic<uint64_t> taken_{0};
  std::atomic<bool> closed_{false};
  static_assert(kSlots == 64, "one bit of taken_ per slot");
};

// The page when a wait that `sync_call` (the synchronising call's id) would make can be answered
// through it now, else null (first: a client without one learns that from a static).
SignalPage* usable_page(uint32_t sync_call) {
  SignalPage* page = SignalPage::get();
  if (!page || page->closed()) return nullptr;
  Pipe& pipe = Pipe::get();
  if (!pipe.available() || pipe.deliveries_pending() || mapped_read_back_follows(sync_call)) return nullptr;
  return page;
}

uint32_t stream_sync_call(bool per_thread) {
  return per_thread ? gen::cudart::k_cudaStreamSynchronize_ptsz : gen::cudart::k_cudaStreamSynchronize;
}

bool signal_and_watch(SignalPage& page, uint64_t id, wire::SignalWaited waited, const char* what) {
  Pipe& pipe = Pipe::get();
  trace_wait(what);
  const SignalPage::Word word = page.next_word();
  thread_local wire::Encoder args;
  args.clear();
  args.put<uint64_t>(id);
  args.put<uint8_t>(waited);
  args.put<uint64_t>(page.id());
  args.put<uint64_t>(word.offset);
  args.put<uint32_t>(word.value);
  if (!pipe.send_call(wire::kCallStreamSignal, args, current_device(), nullptr, nullptr, 0, -1, /*now=*/true))
    return false;
  uint32_t seen = 0;
  spin_for(Pipe::reply_poll(), SpinRules{.yield = !polling_pays()}, [&] {
    seen = __atomic_load_n(word.at, __ATOMIC_ACQUIRE);
    return seen == word.value || (seen & ~(wire::kSignalAsk | wire::kSignalNever)) == word.value;
  });
  if (seen == (word.value | wire::kSignalAsk | wire::kSignalNever)) page.close();
  const bool answered = seen == word.value;
  pipe.count_signal_wait(answered);
  return answered;
}

wire::SignalWaited stream_waited(bool per_thread) {
  return per_thread ? wire::kSignalPerThreadStream : wire::kSignalStream;
}

}  // namespace

bool wait_through_signal(uint64_t stream, bool per_thread, const char* what) {
  SignalPage* page = usable_page(stream_sync_call(per_thread));
  return page && signal_and_watch(*page, stream, stream_waited(per_thread), what);
}

bool wait_for_event_through_signal(uint64_t event) {
  // An event recorded inside a capture would pull the session's signal stream into it; and while a
  // capture is under way the call itself may have an error to give.
  if (capture_under_way()) return false;
  SignalPage* page = usable_page(gen::cudart::k_cudaEventSynchronize);
  return page && signal_and_watch(*page, event, wire::kSignalEvent, "cudaEventSynchronize");
}

SignalRead::SignalRead(void* dst, const void* src, size_t n, bool per_thread) {
  SignalPage* page = n <= kSignalReadMax ? usable_page(stream_sync_call(per_thread)) : nullptr;
  if (!page || (slot_ = page->take_slot()) < 0) return;
  wire::SharedCopy a{};
  a.device = reinterpret_cast<uint64_t>(src);
  a.shared = page->id();
  a.offset = SignalPage::slot_offset(slot_);
  a.count = n;
  a.stream = per_thread ? reinterpret_cast<uint64_t>(cudaStreamPerThread) : 0;
  a.kind = cudaMemcpyDeviceToHost;
  a.async = 1;
  a.per_thread = per_thread ? 1 : 0;
  Call call(wire::kCallSharedCopy, CallClass::kAsync);
  call.args().put(a);
  if (call.post() != 0) {
    outcome_ = kAsk;  // the usual copy reports what became of the session
    return;
  }
  if (!signal_and_watch(*page, a.stream, stream_waited(per_thread), per_thread ? "cudaMemcpy_ptds" : "cudaMemcpy")) {
    outcome_ = kAsk;
    return;
  }
  std::memcpy(dst, page->slot(slot_), n);
  outcome_ = kAnswered;
}

SignalRead::~SignalRead() {
  if (slot_ >= 0) SignalPage::get()->release_slot(slot_);
}

}  // namespace rgpu::client
