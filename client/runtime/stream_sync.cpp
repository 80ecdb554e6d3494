// cudaStreamSynchronize for a client on rgpud's host that shares memory with its session
// (shared_host.h): the caller sends a stream signal (wire::kCallStreamSignal) naming a word of a page
// it shares, and watches the word, which the GPU sets once the stream's work is done. No reply comes:
// the wait skips the server's reply and the client's receiver thread, which on an H100 cost a launch +
// sync 1.4 us of the 2.3 us it took over native.
//
// The word's other answer, "ask" (the value with wire::kSignalAsk), or a watch that runs out
// (RGPU_REPLY_POLL_US: a long kernel, or failed work, which never writes the word) leads to the
// synchronising call, whose reply says how the work ended. So does a wait that must learn more than
// that the work is done, which the client knows of itself: bytes still to land from the pipe (an
// async D2H, a graph's D2H mirror) or mapped memory to read back (mapped_memory.h); and so does
// any client that shares no memory (a TCP session, RGPU_SHARED_MEMORY=0) or sets
// RGPU_STREAM_SIGNALS=0.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/device.h"
#include "client/runtime/mapped_memory.h"
#include "client/runtime/pipe.h"
#include "client/runtime/shared_host.h"
#include "codegen/support/gen_marshal.h"
#include "common/config.h"
#include "common/spin.h"
#include "common/wire/internal_calls.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudart/cudart_remote.h"

namespace rgpu::client {
namespace {

const Tunable kStreamSignals{"RGPU_STREAM_SIGNALS", "1",
                             "1: a client on rgpud's host that shares memory with its session learns that a stream's "
                             "work is done from a word the GPU sets (cudaStreamSynchronize); 0: from the reply to the "
                             "synchronising call"};

// One shared page of words, made at the first wait that can use it. A wait takes the next value and
// the word it names (value % kWords); values grow to kSignalAsk - 1 and start again at 1. A word is
// used again only 1024 waits later: a write of an older value that lands late (a long-running stream
// whose waiter asked meanwhile) costs the wait that finds it only its watch, since values never repeat
// that soon.
class SignalPage {
 public:
  static constexpr uint32_t kWords = 1024;

  // The page, or null when this client shares no memory or sharing it failed.
  static SignalPage* get() {
    static SignalPage* page = make();  // kept for the process's life, as the pipe is
    return page;
  }

  struct Slot {
    uint32_t value;
    uint32_t* word;
    uint64_t offset;
  };
  Slot next() {
    uint32_t v = next_.fetch_add(1, std::memory_order_relaxed) % (wire::kSignalAsk - 1) + 1;
    const uint32_t i = v % kWords;
    __atomic_store_n(&words_[i], 0u, __ATOMIC_RELAXED);
    return {v, &words_[i], i * sizeof(uint32_t)};
  }
  uint64_t id() const { return id_; }

 private:
  SignalPage(uint32_t* words, uint64_t id) : words_(words), id_(id) {}
  static SignalPage* make() {
    if (!kStreamSignals.get_bool() || !shares_memory()) return nullptr;
    uint64_t id = 0, device = 0;
    void* p = share_region(kWords * sizeof(uint32_t), &id, &device);
    return p ? new SignalPage(static_cast<uint32_t*>(p), id) : nullptr;
  }

  uint32_t* words_;
  uint64_t id_;
  std::atomic<uint32_t> next_{0};
};

// Waits for `stream` through the signal page: true when its word said the work is done, false when
// the caller is to ask with the synchronising call.
bool wait_for_signal(cudaStream_t stream, bool per_thread) {
  Pipe& pipe = Pipe::get();
  if (!pipe.available() || pipe.deliveries_pending() ||
      mapped_read_back_follows(per_thread ? gen::cudart::k_cudaStreamSynchronize_ptsz
                                          : gen::cudart::k_cudaStreamSynchronize))
    return false;
  SignalPage* page = SignalPage::get();
  if (!page) return false;
  trace_wait(per_thread ? "cudaStreamSynchronize_ptsz" : "cudaStreamSynchronize");
  const SignalPage::Slot slot = page->next();
  thread_local wire::Encoder args;
  args.clear();
  args.put<uint64_t>(gen::handle_id(stream));
  args.put<uint8_t>(per_thread ? 1 : 0);
  args.put<uint64_t>(page->id());
  args.put<uint64_t>(slot.offset);
  args.put<uint32_t>(slot.value);
  if (!pipe.send_call(wire::kCallStreamSignal, args, current_device(), nullptr, nullptr, 0, -1, /*now=*/true))
    return false;
  uint32_t seen = 0;
  spin_for(Pipe::reply_poll(), SpinRules{.yield = !polling_pays()}, [&] {
    seen = __atomic_load_n(slot.word, __ATOMIC_ACQUIRE);
    return seen == slot.value || seen == (slot.value | wire::kSignalAsk);
  });
  const bool answered = seen == slot.value;
  pipe.count_signal_wait(answered);
  return answered;
}

cudaError_t synchronize(cudaStream_t stream, bool per_thread) {
  if (wait_for_signal(stream, per_thread)) return cudart_finish(cudaSuccess);
  namespace remote = gen::cudart::remote;
  return cudart_finish(per_thread ? remote::cudaStreamSynchronize_ptsz(stream) : remote::cudaStreamSynchronize(stream));
}

}  // namespace
}  // namespace rgpu::client

extern "C" cudaError_t cudaStreamSynchronize(cudaStream_t stream) { return rgpu::client::synchronize(stream, false); }

extern "C" cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  return rgpu::client::synchronize(stream, true);
}
