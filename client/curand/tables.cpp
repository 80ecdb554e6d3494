// cuRAND's quasi-random tables, answered from a copy in this process: the library returns pointers
// into its own host memory, which is the server's, so the first call for a table copies it from the
// server (one round trip; 80 KB to 10 MB) and every call answers a pointer into the copy, which
// lives as long as the process, as the library's tables do.
#include <curand.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "client/runtime/call.h"
#include "common/curand_tables.h"
#include "gen/curand/curand_ids.h"

namespace {

namespace ids = rgpu::gen::curand;
using namespace rgpu::curand_tables;

// Each table is leaked where it is declared: the caller holds pointers into it, which its static
// destructors may still read.
struct Table {
  std::mutex mu;
  std::vector<uint8_t> bytes;  // empty until a copy succeeded
};

// *out: this process's copy of the table `call_id` answers for `set` (0 for the scramble
// constants, which have none), made on the first call that succeeds.
template <typename T>
curandStatus_t copy_of(Table& table, uint32_t call_id, int set, size_t size, T** out) {
  if (!out) return CURAND_STATUS_OUT_OF_RANGE;
  std::lock_guard lock(table.mu);
  if (table.bytes.empty()) {
    std::vector<uint8_t> bytes(size);
    rgpu::client::Call call(call_id, rgpu::client::CallClass::kSync);
    call.args().put<int32_t>(set);
    call.expect_reply_bulk(bytes.data(), size);
    const int32_t status = call.invoke();
    if (status == rgpu::client::kStatusUnavailable) return CURAND_STATUS_INITIALIZATION_FAILED;
    if (status != CURAND_STATUS_SUCCESS) return static_cast<curandStatus_t>(status);
    table.bytes = std::move(bytes);
  }
  *out = reinterpret_cast<T*>(table.bytes.data());
  return CURAND_STATUS_SUCCESS;
}

}  // namespace

extern "C" {  // exported by the shim's version script

curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t* vectors[], curandDirectionVectorSet_t set) {
  static Table &plain = *new Table(), &scrambled = *new Table();
  if (set != CURAND_DIRECTION_VECTORS_32_JOEKUO6 && set != CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6)
    return CURAND_STATUS_OUT_OF_RANGE;
  return copy_of(set == CURAND_DIRECTION_VECTORS_32_JOEKUO6 ? plain : scrambled, ids::k_curandGetDirectionVectors32,
                 set, kDirectionVectors32Bytes, vectors);
}

curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t* vectors[], curandDirectionVectorSet_t set) {
  static Table &plain = *new Table(), &scrambled = *new Table();
  if (set != CURAND_DIRECTION_VECTORS_64_JOEKUO6 && set != CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6)
    return CURAND_STATUS_OUT_OF_RANGE;
  return copy_of(set == CURAND_DIRECTION_VECTORS_64_JOEKUO6 ? plain : scrambled, ids::k_curandGetDirectionVectors64,
                 set, kDirectionVectors64Bytes, vectors);
}

curandStatus_t curandGetScrambleConstants32(unsigned int** constants) {
  static Table& table = *new Table();
  return copy_of(table, ids::k_curandGetScrambleConstants32, 0, kScrambleConstants32Bytes, constants);
}

curandStatus_t curandGetScrambleConstants64(unsigned long long** constants) {
  static Table& table = *new Table();
  return copy_of(table, ids::k_curandGetScrambleConstants64, 0, kScrambleConstants64Bytes, constants);
}

}  // extern "C"
