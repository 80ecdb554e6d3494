// The OpenSSL contexts of this process: one for accepting (rgpud), one for connecting (clients).
// TLS 1.3 only, AES-128-GCM first (the fastest where the CPU has AES instructions), no session
// tickets (a session is never resumed: every connection proves the token afresh).
#pragma once

#include <openssl/ssl.h>

#include <string>

#include "common/status.h"
#include "transports/tls/tls_session.h"

namespace rgpu::transport::tls {

// rgpud's context, with a key and self-signed certificate made when first asked for, held only in
// memory. Fails only when OpenSSL cannot make them.
Result<SSL_CTX*> server_context();
// Accepts whatever certificate the server shows: the token, proven both ways inside the channel
// and bound to it, is what authenticates (tls_session.h).
Result<SSL_CTX*> client_context();

// A session on a connected, non-blocking socket (not taken: the caller closes it), in the server's
// or the client's role. Writes never raise SIGPIPE (a client program may not ignore it).
Result<SslPtr> new_session(bool server, int fd);

// OpenSSL's error queue as one line (emptied), after `what`: "TLS handshake failed: ...".
std::string error_text(const std::string& what);

}  // namespace rgpu::transport::tls
