// The session's input from its client, and the waits for its host callbacks to return.
//
// A host function the server put in a stream (callbacks.cpp) sends the client a kCallback frame and
// must then wait until the client says, with a kCallbackReturned frame, that its function has
// returned: only then may the stream's later work start, as natively. That acknowledgement comes on
// the connection the session thread reads, behind whatever the client sent before it. The session
// thread reads frames between calls, but it can itself be stuck inside a call that waits for the
// very stream the host function holds: a synchronous cudaMemcpy on the legacy stream, a cudaFree, a
// library call that syncs, a compute gate draining the session's work, or, on the emulated backend,
// the host function itself, which runs inline inside cudaLaunchHostFunc or cudaGraphLaunch. Nobody
// would read the acknowledgement then.
//
// So the session thread lends the connection while it executes a call (lend()/reclaim(), one store
// and one compare-and-swap per call: no lock, no allocation). A waiting host function that finds
// the session thread inside the same call for a look (kLook), or that runs on the session thread
// itself, reads the client's frames in its place: the acknowledgements it applies, every other frame
// it stashes, in order, for the session thread to run before it reads the connection again. A
// streamed call's bulk still unread (a large H2D copy, read by its handler piece by piece, which may
// be the very call stuck behind the host function) is first read into memory, so the frames behind
// it come within reach. While the session thread reads (it holds the input), nothing else does: it
// will see the acknowledgement itself. Every wait ends at once when the session ends (end()).
//
// Acknowledgements come in the order of the callback frames: the server numbers them (1, 2, ...)
// under its send lock, so that wire order is number order, and the client's receiver runs callbacks
// one at a time in frame order and acknowledges each after its function returned. Anything else (an
// unknown or repeated number, a payload) is a protocol error, and ends the session like any other.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "common/status.h"
#include "common/wire/frame.h"
#include "server/session/call_context.h"
#include "transports/transport.h"

namespace rgpu::server {

class SessionInput {
 public:
  // How long the session thread must stay inside one call before a waiting host function reads for
  // it; also how often a waiter looks.
  static constexpr auto kLook = std::chrono::milliseconds(1);

  explicit SessionInput(transport::Connection& conn) : conn_(conn) {}
  SessionInput(const SessionInput&) = delete;
  SessionInput& operator=(const SessionInput&) = delete;

  // A frame a waiter read for the session thread, or why the input failed under it (then the last).
  struct Stashed {
    wire::FrameHeader header{};
    std::vector<uint8_t> payload;
    std::vector<uint8_t> bulk;
    Status failure = Status::ok();  // not ok: no frame; the session ends with this
  };

  // --- The session thread ---
  // The thread that reads (and runs the session); set before the first frame.
  void read_on_this_thread() { session_thread_ = std::this_thread::get_id(); }
  // Around the execution of a call: while lent, a waiting host function may read the connection.
  // reclaim() waits while one reads a frame.
  void lend();
  void reclaim();
  // Frames read by a waiter, to run before the next one from the connection.
  bool has_stashed() const { return stashed_.load(std::memory_order_acquire) > 0; }
  bool take_stashed(Stashed* out);
  // A kCallbackReturned frame the session thread read (its payload and bulk already read).
  Status callback_returned(const wire::FrameHeader& h);

  // The bulk of a streamed call (a large H2D copy), read by its handler piece by piece while the
  // input is lent: each read takes the input back for its length. A waiter that must get past it
  // reads the rest into memory first, and the handler's later reads come from there.
  class StreamedBulk final : public BulkReader {
   public:
    StreamedBulk(SessionInput& input, uint64_t n);
    ~StreamedBulk() override;
    Status read(void* dst, size_t n) override;
    Status skip(uint64_t n) override;
    uint64_t left() const override { return left_; }
    // Takes what the handler left (it failed early) and says whether the connection held up.
    Status finish();

   private:
    friend class SessionInput;
    Status take(void* dst, uint64_t n);
    Status kept(Status st);
    Status spill();  // a waiter's: the rest into memory

    SessionInput& input_;
    uint64_t left_;
    std::vector<uint8_t> spilled_;
    size_t spilled_at_ = 0;
    bool spilled_all_ = false;
    Status status_ = Status::ok();
  };

  // --- Any thread ---
  // The number of the next callback frame; call under the send lock that sends it.
  uint64_t next_callback() { return sent_.fetch_add(1, std::memory_order_relaxed) + 1; }
  // Waits until the client acknowledged callback `number`, or the session ended. False when the
  // session ended first (or could not wait: see the .cpp).
  bool wait_returned(uint64_t number);
  // The session ends: every wait returns at once, and later ones do not wait.
  void end();
  bool ended() const;

 private:
  enum : uint64_t { kReading = 0, kLent = 1, kPumping = 2, kModeMask = 3 };
  // A waiter holding the input (the state was `lent`): reads the rest of a streamed call's bulk, or
  // one frame if one comes within a look. Puts the input back as it found it.
  void pump(uint64_t lent);
  Status read_one();
  void fail(Status why);  // the input failed under a waiter: stashed last, and every wait ends
  Status apply_return(uint64_t number);  // with mu_ held

  transport::Connection& conn_;
  std::thread::id session_thread_;
  // kReading: the session thread holds the input; kLent: it executes a call, the input is free;
  // kPumping: a waiter reads. The bits above count lends, so a waiter tells a call that goes on
  // from a new one.
  std::atomic<uint64_t> state_{kReading};
  uint64_t lends_ = 0;                  // session thread
  StreamedBulk* streamed_ = nullptr;    // the streamed call in progress: set while reading, used while pumping
  std::atomic<bool> failed_{false};     // the input failed under a waiter: no more pumping
  std::atomic<uint64_t> sent_{0};       // callback frames numbered so far
  std::atomic<size_t> stashed_{0};

  mutable std::mutex mu_;
  std::condition_variable returned_cv_;
  uint64_t returned_ = 0;  // the last acknowledged callback
  bool ended_ = false;
  std::deque<Stashed> stash_;
};

// Lends the input for a scope (the execution of one call).
class LentInput {
 public:
  explicit LentInput(SessionInput& input) : input_(input) { input_.lend(); }
  ~LentInput() { input_.reclaim(); }
  LentInput(const LentInput&) = delete;
  LentInput& operator=(const LentInput&) = delete;

 private:
  SessionInput& input_;
};

}  // namespace rgpu::server
