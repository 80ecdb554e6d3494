// Stream signals (wire::kCallStreamSignal): a client on rgpud's host that shares memory with its
// session learns that a stream's (or an event's) work is done from a word of a shared page, which
// the GPU sets behind that work, instead of from the reply to a synchronising call. The wait skips
// the server's reply and the client's receiver thread, which on an H100 cost a same-host launch +
// sync 1.4 us of the 2.3 us it took over native.
//
// The word's other answer, "ask" (the value with wire::kSignalAsk: the server knows the wait must
// learn more; with wire::kSignalNever too, every wait of the session will, and no signal is sent
// again: a module may print, or a compute gate must see each wait), or a watch that runs out
// (RGPU_REPLY_POLL_US: a long kernel, or failed work, which never writes the word) sends the caller
// to the synchronising call, whose reply says how the work ended. So does a wait that must learn
// more than that the work is done, which the client knows of itself: bytes still to land from the
// pipe (an async D2H, a graph's D2H mirror), mapped memory to read back (mapped_memory.h), or, for
// an event, a capture under way; and so does any client that shares no memory (a TCP session,
// RGPU_SHARED_MEMORY=0) or sets RGPU_STREAM_SIGNALS=0.
//
// An event's signal waits on one stream of the session's per device, so a wait behind another
// thread's longer one runs its watch out and asks: slower, never early.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rgpu::client {

// Waits for the work queued so far on client stream `stream` (the per-thread variant's stream 0 is
// the thread's default stream) through a signal; true when the word said it is done, false when the
// caller is to make the synchronising call (which then waits for the same work). `what` names the
// wait for RGPU_TRACE_WAITS.
bool wait_through_signal(uint64_t stream, bool per_thread, const char* what);

// Likewise for the work client event `event` stands for (cudaEventSynchronize); never while a
// capture is under way.
bool wait_for_event_through_signal(uint64_t event);

// A small synchronous D2H copy (at most kSignalReadMax bytes) from device address `src` on the
// default stream, through a slot of the shared page and a signal: the GPU's copy lands in the slot,
// the caller copies it out once the word says so. kAnswered: `dst` holds the bytes. kAsk: the
// caller is to make its copy the usual way, then release the slot (the usual copy, on the same
// stream, waits for the slot's copy too). kNotTaken: nothing was sent.
inline constexpr size_t kSignalReadMax = 256;
class SignalRead {
 public:
  enum Outcome { kNotTaken, kAnswered, kAsk };
  SignalRead(void* dst, const void* src, size_t n, bool per_thread);
  ~SignalRead();  // releases the slot
  SignalRead(const SignalRead&) = delete;
  SignalRead& operator=(const SignalRead&) = delete;
  Outcome outcome() const { return outcome_; }

 private:
  int slot_ = -1;
  Outcome outcome_ = kNotTaken;
};

}  // namespace rgpu::client
