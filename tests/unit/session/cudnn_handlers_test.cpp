// The cuDNN handlers (server/session/cudnn_*.cpp) fed the wire form of common/wire/cudnn_args.h
// through the generated dispatch, against the emulated backend: backend attributes travel by
// their element size with handle and descriptor ids translated, malformed payloads are refused
// without a call (never a crash), unknown ids and types get cuDNN's statuses, and random bytes
// under every cuDNN call id are survived (ASan watches in CI).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common/wire/codec.h"
#include "common/wire/cudnn_args.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "gen/cudnn/cudnn_ids.h"
#include "server/backends/backend.h"
#include "server/session/call_context.h"
#include "server/session/session.h"
#include "tests/fuzz/scripted_connection.h"

namespace {

namespace ids = rgpu::gen::cudnn;
using rgpu::wire::Encoder;
using rgpu::wire::cudnn::TensorRecord;

struct Outcome {
  bool well_formed;
  int32_t status;
  std::vector<uint8_t> reply;
};

// One backend, session and handle table for the whole file: the handlers keep per-process state
// (the descriptor cache), as in a worker process.
struct Env {
  std::unique_ptr<rgpu::server::Backend> backend;
  std::vector<uint8_t> no_input;
  rgpu::fuzz::ScriptedConnection conn{no_input};
  std::unique_ptr<rgpu::server::Session> session;
  rgpu::server::HandleTable handles;
  Env() {
    setenv("RGPU_EMULATED_MEMORY_MB", "64", 1);
    backend = rgpu::server::make_emulated_backend();
    REQUIRE(backend->init().is_ok());
    session = std::make_unique<rgpu::server::Session>(1, conn, *backend, nullptr);
  }
  Outcome call(uint32_t id, const Encoder& args) {
    std::vector<iovec> bulk_out;
    rgpu::server::CallContext ctx{*session, backend->cudart(), backend->cublas(), backend->cudnn(),
                                  handles, {}, &bulk_out, 0};
    rgpu::wire::Decoder in(args.payload());
    Encoder out;
    Outcome o{false, -12345, {}};
    o.well_formed = ids::dispatch(ctx, id, in, out, o.status);
    o.reply.assign(out.payload().begin(), out.payload().end());
    return o;
  }
};

Env& env() {
  static Env* e = new Env;
  return *e;
}

constexpr uint64_t kHandle = 1000, kTensor = 2000;

void create_handle_and_tensor() {
  static bool done = false;
  if (done) return;
  Encoder h;
  h.put<uint64_t>(kHandle);
  REQUIRE(env().call(ids::k_cudnnCreate, h).status == CUDNN_STATUS_SUCCESS);
  Encoder d;
  d.put<int32_t>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  d.put<uint64_t>(kTensor);
  REQUIRE(env().call(ids::k_cudnnBackendCreateDescriptor, d).status == CUDNN_STATUS_SUCCESS);
  done = true;
}

// Attribute types travel as int32: a test may send one no enum value stands for.
Encoder set_attribute(uint64_t desc, cudnnBackendAttributeName_t name, int32_t type, int64_t count,
                      const void* bytes, size_t n) {
  Encoder e;
  e.put(desc);
  e.put<int32_t>(name);
  e.put(type);
  e.put(count);
  e.put_bytes(bytes, n);
  e.put<uint32_t>(0);  // no inline host values
  return e;
}

Encoder get_attribute(uint64_t desc, cudnnBackendAttributeName_t name, int32_t type,
                      int64_t requested) {
  Encoder e;
  e.put(desc);
  e.put<int32_t>(name);
  e.put(type);
  e.put(requested);
  e.put_bytes(nullptr, 0);
  return e;
}

// cudnnAddTensor's payload: handle, alpha, A's record and address, beta, C's record and address.
Encoder add_tensor(uint64_t handle, const TensorRecord& r, uint8_t presence = 1, uint8_t scalar_bytes = 4) {
  Encoder e;
  const float one = 1;
  e.put(handle);
  e.put<uint8_t>(scalar_bytes);
  e.put_raw(&one, scalar_bytes > 4 ? 4 : scalar_bytes);
  if (scalar_bytes > 4) e.put_raw(&one, scalar_bytes - 4);
  e.put<uint8_t>(presence);
  e.put(r);
  e.put<uint64_t>(0);
  e.put<uint8_t>(4);
  e.put_raw(&one, 4);
  e.put<uint8_t>(1);
  e.put(r);
  e.put<uint64_t>(0);
  return e;
}

TensorRecord tensor_record(int nb) {
  TensorRecord r{};
  r.data_type = CUDNN_DATA_FLOAT;
  r.nb_dims = nb;
  for (int i = 0; i < nb && i < rgpu::wire::cudnn::kMaxDims; ++i) r.dims[i] = r.strides[i] = 1;
  return r;
}

}  // namespace

TEST_CASE("backend attributes round trip with their element sizes") {
  create_handle_and_tensor();
  const int64_t dims[4] = {2, 3, 4, 5};
  CHECK(env().call(ids::k_cudnnBackendSetAttribute,
                   set_attribute(kTensor, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims, sizeof dims))
            .status == CUDNN_STATUS_SUCCESS);
  // Read before finalize: cuDNN's answer, from the backend.
  CHECK(env().call(ids::k_cudnnBackendGetAttribute, get_attribute(kTensor, CUDNN_ATTR_TENSOR_DIMENSIONS,
                                                                   CUDNN_TYPE_INT64, 4))
            .status == CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED);
  Encoder fin;
  fin.put(kTensor);
  REQUIRE(env().call(ids::k_cudnnBackendFinalize, fin).status == CUDNN_STATUS_SUCCESS);
  Outcome got = env().call(ids::k_cudnnBackendGetAttribute,
                           get_attribute(kTensor, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4));
  REQUIRE(got.status == CUDNN_STATUS_SUCCESS);
  rgpu::wire::Decoder reply(got.reply);
  CHECK(reply.get<int64_t>() == 4);
  std::span<const uint8_t> bytes = reply.get_bytes();
  REQUIRE(bytes.size() == sizeof dims);
  CHECK(std::memcmp(bytes.data(), dims, sizeof dims) == 0);
  CHECK(reply.at_end());
}

TEST_CASE("handle and descriptor ids in attribute arrays are translated, unknown ones refused") {
  create_handle_and_tensor();
  Encoder d;
  d.put<int32_t>(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  d.put<uint64_t>(3000);
  REQUIRE(env().call(ids::k_cudnnBackendCreateDescriptor, d).status == CUDNN_STATUS_SUCCESS);
  const uint64_t known = kHandle, unknown = 77777, builtin = 1;
  CHECK(env().call(ids::k_cudnnBackendSetAttribute,
                   set_attribute(3000, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &known, 8))
            .status == CUDNN_STATUS_SUCCESS);
  CHECK(env().call(ids::k_cudnnBackendSetAttribute,
                   set_attribute(3000, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &unknown, 8))
            .status == CUDNN_STATUS_BAD_PARAM);
  CHECK(env().call(ids::k_cudnnBackendSetAttribute,
                   set_attribute(3000, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &builtin, 8))
            .status == CUDNN_STATUS_BAD_PARAM);
  CHECK(env().call(ids::k_cudnnBackendSetAttribute,
                   set_attribute(3000, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &kTensor, 8))
            .status == CUDNN_STATUS_SUCCESS);
  CHECK(env().call(ids::k_cudnnBackendSetAttribute,
                   set_attribute(3000, CUDNN_ATTR_OPERATIONGRAPH_OPS, 999, 1, &kTensor, 8))
            .status == CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
  const uint64_t missing = 4242;
  CHECK(env().call(ids::k_cudnnBackendSetAttribute,
                   set_attribute(missing, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &missing, 8))
            .status == CUDNN_STATUS_BAD_PARAM);
}

TEST_CASE("a by-value tensor's host value travels inline and the server points at its copy") {
  create_handle_and_tensor();
  Encoder d;
  d.put<int32_t>(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  d.put<uint64_t>(6000);
  REQUIRE(env().call(ids::k_cudnnBackendCreateDescriptor, d).status == CUDNN_STATUS_SUCCESS);
  const uint64_t pointers[2] = {0x1234, 0xdead};  // element 1 is a client host address
  const float scale = 0.125f;
  Encoder set = set_attribute(6000, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 2, pointers,
                              sizeof pointers);
  std::vector<uint8_t> head(set.payload().begin(), set.payload().end() - sizeof(uint32_t));
  Encoder with_value;
  with_value.put_raw(head.data(), head.size());
  with_value.put<uint32_t>(1);
  with_value.put<uint32_t>(1);
  with_value.put_bytes(&scale, sizeof scale);
  REQUIRE(env().call(ids::k_cudnnBackendSetAttribute, with_value).status == CUDNN_STATUS_SUCCESS);
  Encoder fin;
  fin.put<uint64_t>(6000);
  REQUIRE(env().call(ids::k_cudnnBackendFinalize, fin).status == CUDNN_STATUS_SUCCESS);
  Outcome got = env().call(ids::k_cudnnBackendGetAttribute,
                           get_attribute(6000, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 2));
  REQUIRE(got.status == CUDNN_STATUS_SUCCESS);
  rgpu::wire::Decoder reply(got.reply);
  REQUIRE(reply.get<int64_t>() == 2);
  std::span<const uint8_t> bytes = reply.get_bytes();
  REQUIRE(bytes.size() == sizeof pointers);
  uint64_t device = 0;
  const float* value = nullptr;
  std::memcpy(&device, bytes.data(), sizeof device);
  std::memcpy(&value, bytes.data() + 8, sizeof value);
  CHECK(device == 0x1234);                        // a device address passes as it is
  REQUIRE(value != nullptr);
  CHECK(reinterpret_cast<uint64_t>(value) != 0xdead);  // the host value is the server's copy
  CHECK(*value == scale);
  // An inline value for an element past the array, or for a type that is no pointer, is malformed.
  Encoder past;
  past.put_raw(head.data(), head.size());
  past.put<uint32_t>(1);
  past.put<uint32_t>(2);
  past.put_bytes(&scale, sizeof scale);
  CHECK_FALSE(env().call(ids::k_cudnnBackendSetAttribute, past).well_formed);
}

TEST_CASE("malformed backend payloads are refused without a call") {
  create_handle_and_tensor();
  const int64_t v[2] = {1, 2};
  // The bytes disagree with count x element size.
  CHECK_FALSE(env().call(ids::k_cudnnBackendSetAttribute,
                         set_attribute(kTensor, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 2, v, 12))
                  .well_formed);
  CHECK_FALSE(env().call(ids::k_cudnnBackendSetAttribute,
                         set_attribute(kTensor, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, -1, v, 0))
                  .well_formed);
  CHECK_FALSE(env().call(ids::k_cudnnBackendSetAttribute,
                         set_attribute(kTensor, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, int64_t{1} << 40, v, 16))
                  .well_formed);
  CHECK_FALSE(env().call(ids::k_cudnnBackendGetAttribute,
                         get_attribute(kTensor, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, int64_t{1} << 40))
                  .well_formed);
  Encoder create;  // a new id must not be one of CUDA's reserved stream values
  create.put<int32_t>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  create.put<uint64_t>(2);
  CHECK_FALSE(env().call(ids::k_cudnnBackendCreateDescriptor, create).well_formed);
  Encoder trailing;
  trailing.put(kTensor);
  trailing.put<uint8_t>(0);
  CHECK_FALSE(env().call(ids::k_cudnnBackendFinalize, trailing).well_formed);
}

TEST_CASE("enum values outside their enums are answered, never made") {
  create_handle_and_tensor();
  Encoder create;
  create.put<int32_t>(1 << 20);  // no descriptor type
  create.put<uint64_t>(5000);
  Outcome o = env().call(ids::k_cudnnBackendCreateDescriptor, create);
  CHECK(o.well_formed);
  CHECK(o.status == CUDNN_STATUS_BAD_PARAM);
  const int64_t one = 1;
  Encoder set;
  set.put(kTensor);
  set.put<int32_t>(-7);  // no attribute name
  set.put<int32_t>(CUDNN_TYPE_INT64);
  set.put<int64_t>(1);
  set.put_bytes(&one, sizeof one);
  set.put<uint32_t>(0);
  CHECK(env().call(ids::k_cudnnBackendSetAttribute, set).status == CUDNN_STATUS_BAD_PARAM);
}

TEST_CASE("malformed legacy payloads are refused, unknown handles answered") {
  create_handle_and_tensor();
  CHECK(env().call(ids::k_cudnnAddTensor, add_tensor(kHandle, tensor_record(4))).well_formed);
  CHECK_FALSE(env().call(ids::k_cudnnAddTensor, add_tensor(kHandle, tensor_record(99))).well_formed);
  CHECK_FALSE(env().call(ids::k_cudnnAddTensor, add_tensor(kHandle, tensor_record(0))).well_formed);
  CHECK_FALSE(env().call(ids::k_cudnnAddTensor, add_tensor(kHandle, tensor_record(4), 7)).well_formed);
  CHECK_FALSE(env().call(ids::k_cudnnAddTensor, add_tensor(kHandle, tensor_record(4), 1, 3)).well_formed);
  Outcome unknown = env().call(ids::k_cudnnAddTensor, add_tensor(55555, tensor_record(4)));
  CHECK(unknown.well_formed);
  CHECK(unknown.status == CUDNN_STATUS_BAD_PARAM);
  Outcome builtin = env().call(ids::k_cudnnAddTensor, add_tensor(1, tensor_record(4)));
  CHECK(builtin.status == CUDNN_STATUS_BAD_PARAM);
  Encoder truncated = add_tensor(kHandle, tensor_record(4));
  std::vector<uint8_t> cut(truncated.payload().begin(), truncated.payload().end() - 3);
  Encoder short_args;
  short_args.put_raw(cut.data(), cut.size());
  CHECK_FALSE(env().call(ids::k_cudnnAddTensor, short_args).well_formed);
}

TEST_CASE("a legacy op's descriptor is a client id: created, set and read back through the generated calls") {
  create_handle_and_tensor();
  constexpr uint64_t kPooling = 3000;
  Encoder create;
  create.put<uint64_t>(kPooling);
  REQUIRE(env().call(ids::k_cudnnCreatePoolingDescriptor, create).status == CUDNN_STATUS_SUCCESS);
  Encoder set;
  set.put<uint64_t>(kPooling);
  for (int32_t v : {int32_t(CUDNN_POOLING_MAX), int32_t(CUDNN_PROPAGATE_NAN), 2, 3, 0, 1, 2, 2}) set.put(v);
  REQUIRE(env().call(ids::k_cudnnSetPooling2dDescriptor, set).status == CUDNN_STATUS_SUCCESS);
  Encoder get;
  get.put<uint64_t>(kPooling);
  for (int i = 0; i < 8; ++i) get.put<uint8_t>(1);  // every output present
  Outcome got = env().call(ids::k_cudnnGetPooling2dDescriptor, get);
  REQUIRE(got.status == CUDNN_STATUS_SUCCESS);
  rgpu::wire::Decoder reply(got.reply);
  std::vector<int32_t> values;
  for (int i = 0; i < 8; ++i) {  // each output as length-prefixed bytes
    auto bytes = reply.get_bytes();
    int32_t v = -1;
    REQUIRE(bytes.size() == sizeof v);
    std::memcpy(&v, bytes.data(), sizeof v);
    values.push_back(v);
  }
  CHECK(values == std::vector<int32_t>{CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 3, 0, 1, 2, 2});

  // Output dimensions (hand-written): the pooling id, then a tensor record.
  TensorRecord x = tensor_record(4);
  const int dims[4] = {2, 3, 8, 9};
  std::copy(dims, dims + 4, x.dims);
  auto output_dims = [&](uint64_t pooling) {
    Encoder e;
    e.put(pooling);
    e.put<uint8_t>(1);
    e.put(x);
    return env().call(ids::k_cudnnGetPooling2dForwardOutputDim, e);
  };
  Outcome out = output_dims(kPooling);
  REQUIRE(out.status == CUDNN_STATUS_SUCCESS);
  rgpu::wire::Decoder d(out.reply);
  int32_t n = d.get<int32_t>(), c = d.get<int32_t>(), h = d.get<int32_t>(), w = d.get<int32_t>();
  CHECK((n == 2 && c == 3 && h == 1 + (8 - 2) / 2 && w == 1 + (9 + 2 - 3) / 2));
  // Another kind's id (a backend descriptor), or an unknown one, is no pooling descriptor.
  Outcome wrong_kind = output_dims(kTensor);
  CHECK(wrong_kind.well_formed);
  CHECK(wrong_kind.status == CUDNN_STATUS_BAD_PARAM);
  CHECK(output_dims(77777).status == CUDNN_STATUS_BAD_PARAM);

  Encoder destroy;
  destroy.put<uint64_t>(kPooling);
  REQUIRE(env().call(ids::k_cudnnDestroyPoolingDescriptor, destroy).status == CUDNN_STATUS_SUCCESS);
  CHECK(output_dims(kPooling).status == CUDNN_STATUS_BAD_PARAM);
}

TEST_CASE("cudnnSetTensor's value travels as one element of its tensor's type") {
  create_handle_and_tensor();
  auto set_tensor = [](int32_t type, uint8_t value_bytes) {
    TensorRecord r = tensor_record(4);
    r.data_type = type;
    Encoder e;
    const double value = 0;
    e.put(kHandle);
    e.put<uint8_t>(1);
    e.put(r);
    e.put<uint64_t>(0);
    e.put<uint8_t>(value_bytes);
    e.put_raw(&value, value_bytes);
    return env().call(ids::k_cudnnSetTensor, e);
  };
  Outcome half = set_tensor(CUDNN_DATA_HALF, 2);
  CHECK(half.well_formed);
  CHECK(half.status == CUDNN_STATUS_NOT_SUPPORTED);  // the emulated backend sets floats only
  CHECK(set_tensor(CUDNN_DATA_FLOAT, 4).status == CUDNN_STATUS_BAD_PARAM);  // y is null
  CHECK_FALSE(set_tensor(CUDNN_DATA_FLOAT, 3).well_formed);
}

TEST_CASE("a plan put into a CUDA graph names the graph by the runtime's id") {
  create_handle_and_tensor();
  auto populate = [](uint64_t graph) {
    Encoder e;
    e.put(kHandle);
    e.put(kTensor);  // a backend descriptor id stands for the plan and the variant pack
    e.put(kTensor);
    e.put(graph);
    return env().call(ids::k_cudnnBackendPopulateCudaGraph, e);
  };
  Outcome unknown = populate(88888);
  CHECK(unknown.well_formed);
  CHECK(unknown.status == CUDNN_STATUS_BAD_PARAM);
  CHECK(populate(1).status == CUDNN_STATUS_BAD_PARAM);  // a stream's reserved id is no graph
  // A null graph reaches cuDNN (which refuses it); the emulated backend has no such function.
  CHECK(populate(0).status == CUDNN_STATUS_NOT_SUPPORTED);
}

TEST_CASE("random payloads under every cuDNN call id are survived") {
  create_handle_and_tensor();
  std::mt19937_64 rng(20261129);
  int refused = 0;
  for (int round = 0; round < 300; ++round) {
    for (size_t i = 0; i < ids::kCallCount; ++i) {
      Encoder e;
      // Half start with a known handle or descriptor id, so decoding gets past the first field.
      if (rng() % 2) e.put<uint64_t>(rng() % 2 ? kHandle : kTensor);
      const size_t n = rng() % 200;
      for (size_t b = 0; b < n; ++b) e.put<uint8_t>(static_cast<uint8_t>(rng() % 4 == 0 ? rng() : rng() % 3));
      if (!env().call(ids::kCallIds[i], e).well_formed) ++refused;
    }
  }
  CHECK(refused > 0);
}

namespace {

// A handle of these tests' own: the random payloads above may have destroyed kHandle.
constexpr uint64_t kCtcLoss = 3000, kCtcHandle = 3001;

// cudnnGetCTCLossWorkspaceSize's payload (v7): probabilities 6 x 2 x 5 (T x N x A), the host
// arrays as given (a length of -1: absent), algo, the CTC loss descriptor.
Encoder ctc_workspace(const std::vector<int>& labels, const std::vector<int>& label_lengths,
                      const std::vector<int>& input_lengths, size_t label_bytes_cut = 0) {
  TensorRecord probs{};
  probs.data_type = CUDNN_DATA_FLOAT;
  probs.nb_dims = 3;
  const int dims[3] = {6, 2, 5}, strides[3] = {10, 5, 1};
  std::copy(dims, dims + 3, probs.dims);
  std::copy(strides, strides + 3, probs.strides);
  Encoder e;
  e.put(kCtcHandle);
  for (int i = 0; i < 2; ++i) {
    e.put<uint8_t>(1);
    e.put(probs);
  }
  e.put_bytes(labels.data(), labels.size() * sizeof(int) - label_bytes_cut);
  e.put_bytes(label_lengths.data(), label_lengths.size() * sizeof(int));
  e.put_bytes(input_lengths.data(), input_lengths.size() * sizeof(int));
  e.put<int32_t>(CUDNN_CTC_LOSS_ALGO_DETERMINISTIC);
  e.put(kCtcLoss);
  return e;
}

void create_ctc_loss() {
  static bool done = false;
  if (done) return;
  Encoder handle;
  handle.put(kCtcHandle);
  REQUIRE(env().call(ids::k_cudnnCreate, handle).status == CUDNN_STATUS_SUCCESS);
  Encoder create;
  create.put(kCtcLoss);
  REQUIRE(env().call(ids::k_cudnnCreateCTCLossDescriptor, create).status == CUDNN_STATUS_SUCCESS);
  Encoder set;
  set.put(kCtcLoss);
  set.put<int32_t>(CUDNN_DATA_FLOAT);
  set.put<int32_t>(CUDNN_LOSS_NORMALIZATION_SOFTMAX);
  set.put<int32_t>(CUDNN_NOT_PROPAGATE_NAN);
  set.put<int32_t>(4);
  REQUIRE(env().call(ids::k_cudnnSetCTCLossDescriptor_v8, set).status == CUDNN_STATUS_SUCCESS);
  done = true;
}

}  // namespace

TEST_CASE("CTC loss host arrays shorter than the probabilities say are refused before cuDNN reads them") {
  create_ctc_loss();
  Outcome ok = env().call(ids::k_cudnnGetCTCLossWorkspaceSize, ctc_workspace({1, 2, 3, 4, 1}, {2, 3}, {6, 5}));
  CHECK(ok.well_formed);
  CHECK(ok.status == CUDNN_STATUS_SUCCESS);
  CHECK(ok.reply.size() == sizeof(uint64_t));
  // One label length for a batch of 2; fewer labels than the lengths add up to.
  CHECK(env().call(ids::k_cudnnGetCTCLossWorkspaceSize, ctc_workspace({1, 2, 3, 4, 1}, {2}, {6, 5})).status ==
        CUDNN_STATUS_BAD_PARAM);
  CHECK(env().call(ids::k_cudnnGetCTCLossWorkspaceSize, ctc_workspace({1, 2, 3, 4}, {2, 3}, {6, 5})).status ==
        CUDNN_STATUS_BAD_PARAM);
  CHECK(env().call(ids::k_cudnnGetCTCLossWorkspaceSize, ctc_workspace({1, 2, 3, 4, 1}, {-1, 3}, {6, 5})).status ==
        CUDNN_STATUS_BAD_PARAM);
  // Bytes that are no whole number of ints: malformed.
  CHECK_FALSE(env().call(ids::k_cudnnGetCTCLossWorkspaceSize, ctc_workspace({1, 2, 3, 4, 1}, {2, 3}, {6, 5}, 1))
                  .well_formed);
}

TEST_CASE("a descriptor id of one kind is unknown as another") {
  create_ctc_loss();
  Encoder get;  // cudnnGetDropoutDescriptor(dropoutDesc = the CTC loss descriptor's id, handle, outs)
  get.put(kCtcLoss);
  get.put(kCtcHandle);
  for (int i = 0; i < 3; ++i) get.put<uint8_t>(1);
  Outcome o = env().call(ids::k_cudnnGetDropoutDescriptor, get);
  CHECK(o.well_formed);
  CHECK(o.status == CUDNN_STATUS_BAD_PARAM);
}

TEST_CASE("attention's window arrays that are no whole number of ints are malformed, an unknown descriptor refused") {
  create_ctc_loss();
  auto forward = [](uint64_t attn, size_t window_bytes) {
    const int window[4] = {0, 0, 0, 0};
    Encoder e;
    e.put(kCtcHandle);
    e.put(attn);
    e.put<int32_t>(-1);  // currIdx
    e.put_bytes(window, window_bytes);
    e.put_bytes(window, window_bytes);
    for (int i = 0; i < 2; ++i) e.put<uint64_t>(0);  // sequence lengths
    for (int i = 0; i < 4; ++i) {                     // q (and residuals), k, v, o: ids and addresses
      e.put<uint64_t>(0);
      e.put<uint64_t>(0);
      if (i == 0) e.put<uint64_t>(0);
    }
    for (int i = 0; i < 3; ++i) {  // weights, workspace, reserve: sizes and addresses
      e.put<uint64_t>(0);
      e.put<uint64_t>(0);
    }
    return env().call(ids::k_cudnnMultiHeadAttnForward, e);
  };
  CHECK_FALSE(forward(0, 6).well_formed);
  Outcome unknown = forward(kCtcLoss, 16);  // a CTC loss id is no attention descriptor
  CHECK(unknown.well_formed);
  CHECK(unknown.status == CUDNN_STATUS_BAD_PARAM);
}
