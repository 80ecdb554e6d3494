// The client's connection settings (see settings.h).
#include "client/runtime/settings.h"

namespace rgpu::client {

const Tunable kServerAddress{"RGPU_SERVER", "127.0.0.1:7070", "rgpud address (host:port) the client connects to"};
const Tunable kToken{"RGPU_TOKEN", "", "shared secret for the challenge-response handshake with rgpud"};

}  // namespace rgpu::client
