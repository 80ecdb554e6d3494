// The io_context that owns every TCP socket of this process.
#pragma once

#include <boost/asio/io_context.hpp>

namespace rgpu::transport::tcp {

// No thread runs this context: synchronous socket calls never enter its event loop, a socket only
// needs an owner. It is never destroyed, so sockets may die at any time, even in static destructors.
boost::asio::io_context& sync_context();

}  // namespace rgpu::transport::tcp
