// A stream or event wait that ends within microseconds (a short kernel just launched, or nothing
// pending at all) is answered on the session thread: handing it to a wait thread costs more than
// the wait. The session thread watches the stream or event only while no other call is waiting to
// be read, so no client thread is held up (but for a read-back of mapped memory sent right behind
// the wait, which waits for it anyway: wire::kFlagReadBackFollows); anything longer goes to the
// BlockingPool. A stream with a mark is watched for up to 1 ms (as long as the client polls for
// its reply), a wait without one for 50 us.
//
// A stream is watched through a mark (server/backends/stream_marks.h) where the backend can put
// one: memory, not the driver, says when its work is done, and the driver is asked only now and
// then. Work that is done without error needs no synchronising call in a session none of whose
// kernels prints (one costs 1.4-1.8 us even on an idle stream, and only such calls empty the
// device printf buffer), so the caller can answer the wait at once (Session::serve_call).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <span>

#include "common/wire/frame.h"
#include "server/session/handle_table.h"

namespace rgpu::server {

class Backend;

enum class InlineWait {
  kHandOver,  // still waiting when the budget ran out or another call came: a wait thread takes it
  kDone,      // the work is complete and nothing failed: the mark came back, or the driver said so
  kAnswered,  // the driver answered with an error: the call runs, to return it
};

// Watches the blocking call `h` (stream or event synchronisation) until it has nothing left to wait
// for, `input_pending()` says another call has arrived, or the budget is spent. Other blocking
// calls (cudaDeviceSynchronize) are never served inline: kHandOver.
InlineWait wait_inline(Backend& backend, const HandleTable& handles, const wire::FrameHeader& h,
                       std::span<const uint8_t> payload, const std::function<bool()>& input_pending);

// The stream a wait on client stream `id` waits for: the per-thread call's stream 0 is the calling
// thread's default stream (the legacy one's is nullptr). False for an unknown id.
bool waited_stream(const HandleTable& handles, uint64_t id, bool per_thread, cudaStream_t* out);

// Waits for the work queued on `stream` so far, the way a synchronous copy's own call would, and
// returns what that call would: through a mark where the backend can put one, watched for up to
// 1 ms, else (or after that) cudaStreamSynchronize. A synchronous small D2H copy is issued async
// and finished here: on an H100, copy + mark watched 6.33 us, the synchronous copy 7.31 us. Only
// for a session whose waits need no synchronising call (Session::answers_waits_from_marks).
cudaError_t finish_stream(Backend& backend, cudaStream_t stream);

}  // namespace rgpu::server
