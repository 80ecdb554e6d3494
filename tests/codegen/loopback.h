// A loopback call pipe for the round-trip test: rgpu::client::Call runs the generated server
// dispatch in-process against a fake backend, so generated stubs and dispatchers meet on real bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gen/cudart/cudart_api.h"
#include "server/session/handle_table.h"

namespace rgpu::test {

struct Loopback {
  gen::cudart::Api api;
  server::HandleTable handles;
  // What the last dispatched call did.
  bool last_well_formed = true;
  int32_t last_status = 0;
  int32_t last_async_status = 0;  // of the last posted (async) call
  bool connected = true;          // false: Call reports kStatusUnavailable
  int calls_sent = 0;
  std::vector<std::string> unsupported_reported;
  std::vector<uint8_t> reply;  // the last reply payload
};

Loopback& loopback();
// Back to a fresh session with the fake backend's Api loaded.
void reset_loopback();

// Runs one call as the session would: returns dispatch's result and fills status/out.
bool dispatch_bytes(uint32_t id, const std::vector<uint8_t>& payload, int32_t* status, std::vector<uint8_t>* out);

}  // namespace rgpu::test
