// The loopback implementation of the client call interface (client/runtime/call.h) for tests.
#include <atomic>
#include <memory>

#include "client/runtime/call.h"
#include "gen/cublas/cublas_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "gen/cudnn/cudnn_api.h"
#include "tests/codegen/loopback.h"
#include "server/session/call_context.h"

namespace rgpu::server {
class Session {};  // the generated dispatch never touches it
}  // namespace rgpu::server

namespace rgpu::test {

namespace {
std::unique_ptr<Loopback> g_loopback = std::make_unique<Loopback>();
}  // namespace

Loopback& loopback() { return *g_loopback; }

void reset_loopback() { g_loopback = std::make_unique<Loopback>(); }

bool dispatch_bytes(uint32_t id, const std::vector<uint8_t>& payload, int32_t* status, std::vector<uint8_t>* out) {
  static server::Session session;
  std::vector<iovec> bulk_out;
  static const gen::cublas::Api no_cublas;  // the fake library is named cudart; cuBLAS and cuDNN stay empty
  static const gen::cudnn::Api no_cudnn;
  server::CallContext ctx{session, loopback().api, no_cublas, no_cudnn, loopback().handles, {}, &bulk_out, 0};
  wire::Decoder in(payload);
  wire::Encoder enc;
  *status = 0;
  bool ok = gen::cudart::dispatch(ctx, id, in, enc, *status);
  out->assign(enc.payload().begin(), enc.payload().end());
  return ok;
}

}  // namespace rgpu::test

namespace rgpu::client {

CallBuffers::~CallBuffers() = default;

namespace {
thread_local CallBuffers t_buffers;
}  // namespace

Call::Call(uint32_t call_id, CallClass cls) : id_(call_id), cls_(cls), buffers_(&t_buffers) { buffers_->args.clear(); }
Call::~Call() = default;

void Call::expect_reply_bulk(void* dst, size_t n) {
  reply_bulk_ = dst;
  reply_bulk_len_ = n;
}

int32_t Call::invoke() {
  auto& l = test::loopback();
  if (!l.connected) return kStatusUnavailable;
  ++l.calls_sent;
  std::vector<uint8_t> payload(buffers_->args.payload().begin(), buffers_->args.payload().end());
  l.last_well_formed = test::dispatch_bytes(id_, payload, &l.last_status, &l.reply);
  results_ = wire::Decoder(l.reply);
  replied_ = true;
  return l.last_well_formed ? l.last_status : -2;
}

int32_t Call::post() {
  auto& l = test::loopback();
  if (!l.connected) return kStatusUnavailable;
  ++l.calls_sent;
  std::vector<uint8_t> payload(buffers_->args.payload().begin(), buffers_->args.payload().end());
  std::vector<uint8_t> ignored;
  l.last_well_formed = test::dispatch_bytes(id_, payload, &l.last_async_status, &ignored);
  return 0;
}

uint64_t new_handle_id() {
  static std::atomic<uint64_t> next{0x100};
  return next++;
}

void report_unsupported(const char* name) { test::loopback().unsupported_reported.emplace_back(name); }

}  // namespace rgpu::client
