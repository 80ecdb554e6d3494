// The io_context that owns every synchronous socket of this process (TCP and Unix alike).
#pragma once

#include <boost/asio/io_context.hpp>

#include "common/status.h"

namespace rgpu::transport {

// No thread runs this context: synchronous socket calls never enter its event loop, a socket only
// needs an owner. It is never destroyed, so sockets may die at any time, even in static destructors.
boost::asio::io_context& sync_context();

// In a child just forked: gives sync_context() an epoll set of its own (see transport.h's
// after_fork_in_child). Before the child closes the parent's sockets: each must still be open.
Status sync_context_after_fork();

}  // namespace rgpu::transport
