// rgpud's /metrics over HTTP (see metrics_server.h).
#include "server/daemon/metrics_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <optional>

#include "common/log.h"
#include "transports/stream_connection.h"
#include "transports/tcp/tcp_address.h"

namespace rgpu::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

constexpr size_t kMaxConnections = 16;
constexpr size_t kMaxRequest = 8 << 10;
constexpr auto kRequestTimeout = std::chrono::seconds(10);

}  // namespace

// One scraper's connection: requests answered in turn (Prometheus keeps it open between scrapes),
// until the scraper closes it, breaks the protocol or is silent for kRequestTimeout.
class MetricsServer::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(asio::ip::tcp::socket socket, std::shared_ptr<const Render> render, std::shared_ptr<size_t> open)
      : stream_(std::move(socket)), render_(std::move(render)), open_(std::move(open)) {
    ++*open_;
  }
  ~Connection() { --*open_; }

  void read() {
    parser_.emplace();
    parser_->header_limit(kMaxRequest);
    parser_->body_limit(kMaxRequest);
    stream_.expires_after(kRequestTimeout);
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->close();  // gone, silent, or not HTTP: nothing to answer
      self->answer(self->parser_->release());
    });
  }

 private:
  void answer(const http::request<http::string_body>& request) {
    auto response = std::make_shared<http::response<http::string_body>>();
    response->version(request.version());
    response->keep_alive(request.keep_alive());
    response->set(http::field::server, "rgpud");
    const beast::string_view target = request.target();
    const beast::string_view path = target.substr(0, target.find('?'));
    if (request.method() != http::verb::get) {
      response->result(http::status::method_not_allowed);
      response->set(http::field::allow, "GET");
      response->body() = "rgpud serves GET /metrics only\n";
    } else if (path != "/metrics") {
      response->result(http::status::not_found);
      response->body() = "rgpud serves its Prometheus metrics at /metrics\n";
    } else {
      response->result(http::status::ok);
      response->set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      response->body() = (*render_)();
    }
    if (response->result() != http::status::ok) response->set(http::field::content_type, "text/plain; charset=utf-8");
    response->prepare_payload();
    stream_.expires_after(kRequestTimeout);
    http::async_write(stream_, *response, [self = shared_from_this(), response](beast::error_code ec, size_t) {
      if (ec || !response->keep_alive()) return self->close();
      self->read();
    });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<const Render> render_;
  std::shared_ptr<size_t> open_;
};

Result<std::unique_ptr<MetricsServer>> MetricsServer::open(asio::io_context& io, const std::string& address,
                                                           Render render) {
  RGPU_ASSIGN_OR_RETURN(transport::tcp::HostPort hp, transport::tcp::parse_address(address));
  RGPU_ASSIGN_OR_RETURN(auto endpoints, transport::tcp::resolve(hp, /*passive=*/true));
  auto fail = [&](const char* step, const boost::system::error_code& ec) {
    return RGPU_ERROR(kUnavailable, std::string("cannot serve metrics on ") + address + ": " + step + ": " + ec.message());
  };
  asio::ip::tcp::acceptor acceptor(io);
  boost::system::error_code ec;
  acceptor.open(endpoints.front().protocol(), ec);
  if (ec) return fail("socket", ec);
  RGPU_TRY(transport::set_close_on_exec(acceptor.native_handle()));
  acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) return fail("SO_REUSEADDR", ec);
  acceptor.bind(endpoints.front(), ec);
  if (ec) return fail("bind", ec);
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen", ec);
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(acceptor), std::move(render)));
}

MetricsServer::MetricsServer(asio::ip::tcp::acceptor acceptor, Render render)
    : acceptor_(std::move(acceptor)),
      retry_(acceptor_.get_executor()),
      render_(std::make_shared<const Render>(std::move(render))) {
  boost::system::error_code ec;
  const asio::ip::tcp::endpoint bound = acceptor_.local_endpoint(ec);
  address_ = transport::tcp::format_endpoint(bound);
  loopback_ = transport::tcp::is_loopback(bound.address());
}

MetricsServer::~MetricsServer() = default;

void MetricsServer::start() { accept(); }

void MetricsServer::accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, asio::ip::tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      RGPU_LOG_WARN("metrics: accept on %s failed: %s; trying again in 1 s", address_.c_str(), ec.message().c_str());
      retry_.expires_after(std::chrono::seconds(1));
      retry_.async_wait([this](boost::system::error_code wait) {
        if (!wait) accept();
      });
      return;
    }
    // Close-on-exec as every socket of rgpud's (its forked workers close their copies of it).
    if (*open_ < kMaxConnections && transport::set_close_on_exec(socket.native_handle()).is_ok())
      std::make_shared<Connection>(std::move(socket), render_, open_)->read();
    accept();
  });
}

}  // namespace rgpu::server
