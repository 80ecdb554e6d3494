// Moving a connection between processes of one host. rgpud forks a worker per connection; a
// stripe connection (an extra data connection of a session, see control.fbs ConnectionRole) lands
// in a fresh worker, which hands its descriptor to the session's worker over a Unix socket in the
// abstract namespace (SCM_RIGHTS) together with a short message (the session secret).
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "common/status.h"
#include "transports/transport.h"

namespace rgpu::transport {

// A listening Unix socket named `name` in the abstract namespace (no file; gone with the process).
Result<int> listen_local(const std::string& name);
Result<int> connect_local(const std::string& name);

// One sendmsg of `segments` (at most IOV_MAX of them) over the Unix socket `via` with a duplicate
// of `fd` attached to its first byte (SCM_RIGHTS); EINTR is retried. The bytes sent, or -1 (errno).
ssize_t send_with_descriptor(int via, std::span<const iovec> segments, int fd);
// Sends `fd` and `message` (at most 256 bytes) over the Unix socket `via`.
Status send_descriptor(int via, int fd, std::span<const uint8_t> message);
// Receives one descriptor and exactly message.size() bytes sent with it.
Result<int> receive_descriptor(int via, std::span<uint8_t> message);

// A Connection over a received descriptor (a connected, plain TCP or Unix socket).
Result<std::unique_ptr<Connection>> adopt_descriptor(int fd);

}  // namespace rgpu::transport
