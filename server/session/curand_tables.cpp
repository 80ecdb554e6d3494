// cuRAND's quasi-random tables for the client's copies (client/curand/tables.cpp): the library's
// own host memory, sent as the reply's bulk, straight from where the library keeps it.
#include <curand.h>
#include <sys/uio.h>

#include <atomic>

#include "common/curand_tables.h"
#include "codegen/support/gen_marshal.h"
#include "common/wire/codec.h"
#include "gen/curand/curand_api.h"
#include "gen/curand/curand_handlers.h"
#include "server/session/call_context.h"

namespace rgpu::server::handlers {
namespace {

// Sends `size` bytes from the table get() finds when the library answered it; `fn` null: the
// backend has no such function, said once in the log, as the generated dispatch says it.
template <typename Fn, typename Get>
bool send_table(CallContext& ctx, wire::Decoder& in, int32_t& status, Fn fn, const char* name, size_t size, Get get) {
  const int32_t set = in.get<int32_t>();
  if (!in.ok() || !in.at_end()) return false;
  if (!fn) {
    static std::atomic<bool> logged{false};
    gen::report_not_available(logged, name);
    status = CURAND_STATUS_INTERNAL_ERROR;  // cuRAND has no "not supported"
    return true;
  }
  const void* table = nullptr;
  status = get(set, &table);
  if (status == CURAND_STATUS_SUCCESS && table) ctx.bulk_out->push_back(iovec{const_cast<void*>(table), size});
  return true;
}

}  // namespace

bool curandGetDirectionVectors32(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  auto fn = ctx.curand.curandGetDirectionVectors32;
  return send_table(ctx, in, status, fn, "curandGetDirectionVectors32", curand_tables::kDirectionVectors32Bytes, [fn](int32_t set, const void** t) {
    if (set != CURAND_DIRECTION_VECTORS_32_JOEKUO6 && set != CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6)
      return static_cast<int32_t>(CURAND_STATUS_OUT_OF_RANGE);  // no other set is 32-bit
    curandDirectionVectors32_t* v = nullptr;
    const curandStatus_t st = fn(&v, static_cast<curandDirectionVectorSet_t>(set));
    *t = v;
    return static_cast<int32_t>(st);
  });
}

bool curandGetDirectionVectors64(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  auto fn = ctx.curand.curandGetDirectionVectors64;
  return send_table(ctx, in, status, fn, "curandGetDirectionVectors64", curand_tables::kDirectionVectors64Bytes, [fn](int32_t set, const void** t) {
    if (set != CURAND_DIRECTION_VECTORS_64_JOEKUO6 && set != CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6)
      return static_cast<int32_t>(CURAND_STATUS_OUT_OF_RANGE);  // no other set is 64-bit
    curandDirectionVectors64_t* v = nullptr;
    const curandStatus_t st = fn(&v, static_cast<curandDirectionVectorSet_t>(set));
    *t = v;
    return static_cast<int32_t>(st);
  });
}

bool curandGetScrambleConstants32(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  auto fn = ctx.curand.curandGetScrambleConstants32;
  return send_table(ctx, in, status, fn, "curandGetScrambleConstants32", curand_tables::kScrambleConstants32Bytes, [fn](int32_t, const void** t) {
    unsigned int* c = nullptr;
    const curandStatus_t st = fn(&c);
    *t = c;
    return static_cast<int32_t>(st);
  });
}

bool curandGetScrambleConstants64(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  auto fn = ctx.curand.curandGetScrambleConstants64;
  return send_table(ctx, in, status, fn, "curandGetScrambleConstants64", curand_tables::kScrambleConstants64Bytes, [fn](int32_t, const void** t) {
    unsigned long long* c = nullptr;
    const curandStatus_t st = fn(&c);
    *t = c;
    return static_cast<int32_t>(st);
  });
}

}  // namespace rgpu::server::handlers
