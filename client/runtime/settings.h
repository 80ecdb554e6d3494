// The client's connection settings, shared by the shim and the rgpu command.
#pragma once

#include "common/config.h"

namespace rgpu::client {

extern const Tunable kServerAddress;  // RGPU_SERVER
extern const Tunable kToken;          // RGPU_TOKEN
extern const Tunable kHandshakeTimeout;  // RGPU_HANDSHAKE_TIMEOUT_S

}  // namespace rgpu::client
