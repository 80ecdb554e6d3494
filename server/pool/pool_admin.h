// The pool's control API: one table of handlers (name, help, whether it changes state, who may
// call it), each answering a request in text (the table `rgpu pool` prints) or JSON (`--json`).
// Callable in-process, so tests need no socket; rgpud's parent answers the control connections'
// requests with it (server/daemon/pool_service).
//
// Requests: `pool` (admin: every GPU and session), `ls` (any tenant: the GPUs and its own
// sessions; the admin sees all), `set TARGET memory=... compute=... compute_limit=... when_free=1`
// (admin), `tenant list|add|remove` (admin), `help`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "server/pool/pool.h"

namespace rgpu::pool {

struct AdminCaller {
  bool admin = false;
  std::string tenant;  // the tenant whose token the caller proved ("" for the admin token)
};

struct AdminRequest {
  std::string verb;
  std::vector<std::string> args;  // positional first, then key=value
  bool json = false;
};

struct AdminReply {
  bool ok = false;
  std::string text;  // the answer, or the error (saying what to do)
  Actions actions;   // what the caller must carry out (a set's new slices)
  bool tenants_changed = false;  // a tenant was added or removed: the handshake's tokens change
};

AdminReply handle_admin(Pool& pool, const AdminCaller& caller, const AdminRequest& request, TimePoint now);

}  // namespace rgpu::pool
