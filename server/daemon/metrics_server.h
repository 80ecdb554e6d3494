// rgpud's /metrics over HTTP (Boost.Beast): GET /metrics answers Prometheus's text format
// (server/pool/pool_metrics.h), anything else 404 (405 for a method other than GET).
//
// It runs on the pool service's io_context (server/daemon/pool_service.h), not on a thread of its
// own: the page is rendered from the pool's view, which only that thread may read, and every I/O
// here is asynchronous, so a slow or idle scraper never holds that thread; rendering a page is a
// walk over the sessions, as `rgpu pool` is. A thread of its own would still have to hand each
// scrape to the pool's thread and wait for it. Bounded: 16 connections at once, a request of at
// most 8 KiB, 10 s to send it.
#pragma once

#include <utility>  // before Boost.Asio: Boost 1.74 uses std::exchange without including it

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <functional>
#include <memory>
#include <string>

#include "common/status.h"

namespace rgpu::server {

class MetricsServer {
 public:
  using Render = std::function<std::string()>;  // the page, on the io_context's thread

  // Binds `address` (HOST:PORT; port 0 picks a free one). Serves nothing until start().
  static Result<std::unique_ptr<MetricsServer>> open(boost::asio::io_context& io, const std::string& address,
                                                     Render render);
  ~MetricsServer();

  // Accepts connections; on the io_context's thread.
  void start();
  const std::string& address() const { return address_; }  // with the real port
  bool is_loopback() const { return loopback_; }

 private:
  class Connection;
  MetricsServer(boost::asio::ip::tcp::acceptor acceptor, Render render);
  void accept();

  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;  // after a failed accept (out of descriptors): a pause, not a spin
  std::shared_ptr<const Render> render_;  // shared with the connections, which may outlive this
  std::string address_;
  bool loopback_ = false;
  std::shared_ptr<size_t> open_ = std::make_shared<size_t>(0);  // connections now; each holds it
};

}  // namespace rgpu::server
