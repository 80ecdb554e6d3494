// The client's connection settings (see settings.h).
#include "client/runtime/settings.h"

namespace rgpu::client {

const Tunable kServerAddress{"RGPU_SERVER", "127.0.0.1:7070", "rgpud address (host:port) the client connects to"};
const Tunable kToken{"RGPU_TOKEN", "", "shared secret for the challenge-response handshake with rgpud"};
const Tunable kHandshakeTimeout{"RGPU_HANDSHAKE_TIMEOUT_S", "60",
                                "how long the client waits for rgpud's welcome (its GPU start-up included)"};

}  // namespace rgpu::client
