// OpenSSL started without its exit handler, by every user of it (tokens, module hashes, TLS).
// OpenSSL frees its tables in an atexit handler registered at its first use, and that handler runs
// before the destructors of every static constructed earlier, a program's globals among them: a
// module loaded, a token signed or a TLS connection made from such a destructor used freed tables
// (a module loaded at exit crashed in SHA256). Started this way, the tables live until the process
// ends, which frees them.
#pragma once

namespace rgpu {

void start_openssl();

}  // namespace rgpu
