// What a generated dispatcher (or a hand-written server handler) sees of its session: the
// library tables of the backend, the handle map, and the call's bulk data.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <span>
#include <vector>

#include "server/session/handle_table.h"

namespace rgpu::gen::cudart {
struct Api;
}

namespace rgpu::server {

class Session;

struct CallContext {
  Session& session;
  const gen::cudart::Api& cudart;   // the backend's CUDA Runtime entry points
  HandleTable& handles;
  std::span<const uint8_t> bulk_in;  // bulk data received with the call (H2D source)
  // Bulk data to send back after the reply payload (D2H destination bytes). Points at memory that
  // stays valid until the reply is sent (a staging buffer owned by the session).
  std::vector<iovec>* bulk_out;
  uint64_t seq;
};

}  // namespace rgpu::server
