// cuRAND's quasi-random tables for the client's copies (client/curand/tables.cpp): the library's
// own host memory, sent as the reply's bulk, straight from where the library keeps it.
#include <curand.h>
#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <initializer_list>

#include "common/curand_tables.h"
#include "codegen/support/gen_marshal.h"
#include "common/wire/codec.h"
#include "gen/curand/curand_api.h"
#include "gen/curand/curand_handlers.h"
#include "server/session/call_context.h"

namespace rgpu::server::handlers {
namespace {

// The library's answer for a table: the direction vectors take a set, the scramble constants none.
template <typename T>
curandStatus_t ask(curandStatus_t (*fn)(T**, curandDirectionVectorSet_t), int32_t set, T** table) {
  return fn(table, static_cast<curandDirectionVectorSet_t>(set));
}
template <typename T>
curandStatus_t ask(curandStatus_t (*fn)(T**), int32_t, T** table) {
  return fn(table);
}

// Sends `size` bytes of the table of T that `fn` answers for the set the client names (one of
// `sets`, for a function that takes one); `fn` null: the backend has no such function, said once
// in the log, as the generated dispatch says it.
template <typename T, typename Fn>
bool send_table(CallContext& ctx, wire::Decoder& in, int32_t& status, Fn fn, const char* name, size_t size,
                std::initializer_list<int32_t> sets = {}) {
  const int32_t set = in.get<int32_t>();
  if (!in.ok() || !in.at_end()) return false;
  if (!fn) {
    static std::atomic<bool> logged{false};
    gen::report_not_available(logged, name);
    status = CURAND_STATUS_INTERNAL_ERROR;  // cuRAND has no "not supported"
    return true;
  }
  if (sets.size() != 0 && std::find(sets.begin(), sets.end(), set) == sets.end()) {
    status = CURAND_STATUS_OUT_OF_RANGE;  // no set of that width
    return true;
  }
  T* table = nullptr;
  status = ask(fn, set, &table);
  if (status == CURAND_STATUS_SUCCESS && table) ctx.bulk_out->push_back(iovec{static_cast<void*>(table), size});
  return true;
}

}  // namespace

bool curandGetDirectionVectors32(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return send_table<curandDirectionVectors32_t>(
      ctx, in, status, ctx.curand.curandGetDirectionVectors32, "curandGetDirectionVectors32",
      curand_tables::kDirectionVectors32Bytes,
      {CURAND_DIRECTION_VECTORS_32_JOEKUO6, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6});
}

bool curandGetDirectionVectors64(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return send_table<curandDirectionVectors64_t>(
      ctx, in, status, ctx.curand.curandGetDirectionVectors64, "curandGetDirectionVectors64",
      curand_tables::kDirectionVectors64Bytes,
      {CURAND_DIRECTION_VECTORS_64_JOEKUO6, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6});
}

bool curandGetScrambleConstants32(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return send_table<unsigned int>(ctx, in, status, ctx.curand.curandGetScrambleConstants32,
                                  "curandGetScrambleConstants32", curand_tables::kScrambleConstants32Bytes);
}

bool curandGetScrambleConstants64(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return send_table<unsigned long long>(ctx, in, status, ctx.curand.curandGetScrambleConstants64,
                                        "curandGetScrambleConstants64", curand_tables::kScrambleConstants64Bytes);
}

}  // namespace rgpu::server::handlers
