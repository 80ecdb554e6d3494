// The hand-written handlers the dispatch fuzzers leave out: the CUDA Runtime's (launches, copies,
// memory, graphs, callbacks) work on a live session (its memory slice, staging buffers, streams),
// which a fuzz context has none of. Each refuses its input.
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"

namespace rgpu::server {
class Session {};  // the generated dispatch and the handlers under fuzz never touch it
}  // namespace rgpu::server

namespace rgpu::fuzz {
server::Session& stand_in_session() {
  static server::Session session;
  return session;
}
}  // namespace rgpu::fuzz

#define RGPU_FUZZ_REFUSING_HANDLER(name)                                                             \
  bool rgpu::server::handlers::name(CallContext&, wire::Decoder&, wire::Encoder&, int32_t& status) { \
    status = 0;                                                                                      \
    return false;                                                                                    \
  }
RGPU_GEN_CUDART_HANDLERS(RGPU_FUZZ_REFUSING_HANDLER)
