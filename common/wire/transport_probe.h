// The transport probe: what `rgpu bench transport` runs on a connection whose Hello says
// TransportProbe, to measure the physical floor between client and server (no GPU session, no
// dispatch). After the Welcome the client sends kCall frames with these methods; the server
// answers each with one kReply frame of the same seq.
#pragma once

#include <cstdint>

namespace rgpu::wire {

enum ProbeCall : uint32_t {
  kProbePing = 1,    // payload: any bytes; reply: the same payload (a round trip of that size)
  kProbeSink = 2,    // bulk: bytes the server reads and drops; reply: empty, once all have arrived
  kProbeSource = 3,  // payload: u64 byte count; reply: that many bytes of bulk
};

}  // namespace rgpu::wire
