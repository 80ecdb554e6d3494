// A stream or event wait that ends within microseconds (a short kernel just launched, or nothing
// pending at all) is answered on the session thread: handing it to a wait thread costs more than
// the wait. The session thread polls the stream or event only while no other call is waiting to
// be read, so no client thread is held up (but for a read-back of mapped memory sent right behind
// the wait, which waits for it anyway: wire::kFlagReadBackFollows); anything longer goes to the
// BlockingPool.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "common/wire/frame.h"
#include "server/session/handle_table.h"

namespace rgpu::gen::cudart {
struct Api;
}

namespace rgpu::server {

// True when the blocking call `h` (stream or event synchronisation) has nothing left to wait for,
// found by polling its stream or event until `input_pending()` says another call has arrived or the
// budget is spent. Other blocking calls (cudaDeviceSynchronize) are never served inline.
bool wait_ends_now(const gen::cudart::Api& rt, const HandleTable& handles, const wire::FrameHeader& h,
                   std::span<const uint8_t> payload, const std::function<bool()>& input_pending);

}  // namespace rgpu::server
