// The RNN calls that take legacy tensor descriptors (hDesc, cDesc; the weight matrices' mDesc and
// bDesc, which cuDNN fills): forward and backward are sent without waiting. RNN and RNN data
// descriptors travel as ids, tensor descriptors by content (legacy_call.h);
// server/session/cudnn_rnn_calls.cpp reads the arguments back in this order.
//
// The weight-space and temporary-space queries are asked once per distinct question. Their answers
// depend only on what the descriptors were set to (rnn_settings.h), not on which ids hold it:
// PyTorch makes new descriptors for every forward and backward and asks where each of its
// matrices lies, 32 questions for a two-layer LSTM, and the temporary sizes forward and backward,
// each a round trip before this cache. Addresses are kept as offsets into the weight space, so one
// answer serves every weight buffer (PyTorch asks of the weights and then of their gradients).
#include <cudnn.h>

#include <bit>
#include <cstdint>
#include <map>
#include <mutex>

#include "client/cudnn/legacy_call.h"
#include "client/cudnn/legacy_records.h"
#include "client/cudnn/rnn_settings.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/cudnn/cudnn_remote.h"

using rgpu::client::CallClass;
using rgpu::client::cudnn::LegacyCall;
using rgpu::client::cudnn::RnnDataSettings;
using rgpu::client::cudnn::RnnSettings;
namespace ids = rgpu::gen::cudnn;
namespace remote = rgpu::gen::cudnn::remote;

namespace {

// A weight-space question: the handle and the descriptor's settings, less its dropout descriptor
// (it does not shape the weights, and PyTorch makes a new one per call), plus the arguments.
struct WeightQuestion {
  uint64_t handle = 0;
  RnnSettings rnn{};
  int32_t pseudo_layer = 0, lin_layer_id = 0;
  uint64_t weight_space_size = 0;
  uint8_t outputs = 0;  // bit i: the caller passed mDesc, mAddr, bDesc, bAddr (i = 0..3)

  auto operator<=>(const WeightQuestion&) const = default;
};

// False when rnnDesc was never set here: the server answers (and refuses it). *dropout, when
// asked for, is the descriptor's dropout descriptor, which the question leaves out.
bool question(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, WeightQuestion* q,
              cudnnDropoutDescriptor_t* dropout = nullptr) {
  if (!rgpu::client::cudnn::find_rnn_settings(rnnDesc, &q->rnn)) return false;
  q->handle = rgpu::gen::handle_id(handle);
  if (dropout) *dropout = q->rnn.dropout;
  q->rnn.dropout = nullptr;
  return true;
}

// A temporary-space question: the weight question's part, the dropout probability (a reserve space
// may hold dropout's masks) in place of its descriptor, the mode and the input's data descriptor.
struct TempQuestion {
  WeightQuestion rnn;
  uint32_t dropout = 0;  // the probability's bits (a total order, NaN too)
  int32_t mode = 0;
  RnnDataSettings x{};
  uint8_t outputs = 0;  // bit i: the caller passed workSpaceSize, reserveSpaceSize (i = 0, 1)

  auto operator<=>(const TempQuestion&) const = default;
};

// False when a descriptor was never set here, or the dynamic persistent algorithm's sizes may
// follow cudnnBuildRNNDynamic: the server answers.
bool question(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNDataDescriptor_t xDesc, TempQuestion* q) {
  cudnnDropoutDescriptor_t dropout = nullptr;
  if (!question(handle, rnnDesc, &q->rnn, &dropout) || q->rnn.rnn.algo == CUDNN_RNN_ALGO_PERSIST_DYNAMIC ||
      !rgpu::client::cudnn::find_rnn_data_settings(xDesc, &q->x))
    return false;
  float p = 0;
  if (dropout && !rgpu::client::cudnn::find_dropout_probability(dropout, &p)) return false;
  q->dropout = std::bit_cast<uint32_t>(p);
  return true;
}

struct TempAnswer {
  size_t work = 0, reserve = 0;
};

// Where one matrix or bias lies: its record, and its offset into the weight space (absent: cuDNN
// gave a null address).
struct Placement {
  rgpu::wire::cudnn::TensorRecord record{};
  bool set = false;
  bool present = false;
  uint64_t offset = 0;
};

struct WeightAnswer {
  Placement matrix, bias;
};

struct Answers {
  std::mutex mu;
  std::map<WeightQuestion, WeightAnswer> params;
  std::map<WeightQuestion, size_t> space_sizes;
  std::map<TempQuestion, TempAnswer> temp_sizes;
};

Answers& answers() {
  static auto* a = new Answers;  // never destroyed: calls may come from exit handlers
  return *a;
}

template <typename Question, typename Answer>
bool find(const std::map<Question, Answer>& m, const Question& q, Answer* out) {
  std::lock_guard lock(answers().mu);
  auto it = m.find(q);
  if (it == m.end()) return false;
  *out = it->second;
  return true;
}

template <typename Question, typename Answer>
void keep(std::map<Question, Answer>& m, const Question& q, const Answer& a) {
  std::lock_guard lock(answers().mu);
  m.emplace(q, a);
}

Placement placed(cudnnTensorDescriptor_t desc, void** addr, const void* space) {
  Placement p;
  if (desc) p.record = desc->record, p.set = desc->set;
  if (addr && *addr) p.present = true, p.offset = reinterpret_cast<uintptr_t>(*addr) - reinterpret_cast<uintptr_t>(space);
  return p;
}

void place(const Placement& p, cudnnTensorDescriptor_t desc, void** addr, const void* space) {
  if (desc) desc->record = p.record, desc->set = p.set;
  if (addr) *addr = p.present ? reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(space) + p.offset) : nullptr;
}

}  // namespace

extern "C" {  // exported by the shim's version script

// Reply: for each of mDesc, mAddr, bDesc, bAddr the caller passed, its record or address.
cudnnStatus_t cudnnGetRNNWeightParams(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int32_t pseudoLayer,
                                      size_t weightSpaceSize, const void* weightSpace, int32_t linLayerID,
                                      cudnnTensorDescriptor_t mDesc, void** mAddr, cudnnTensorDescriptor_t bDesc,
                                      void** bAddr) {
  WeightQuestion q;
  const bool cacheable = question(handle, rnnDesc, &q);
  q.pseudo_layer = pseudoLayer, q.lin_layer_id = linLayerID, q.weight_space_size = weightSpaceSize;
  q.outputs = (mDesc ? 1 : 0) | (mAddr ? 2 : 0) | (bDesc ? 4 : 0) | (bAddr ? 8 : 0);
  WeightAnswer a;
  if (cacheable && find(answers().params, q, &a)) {
    place(a.matrix, mDesc, mAddr, weightSpace);
    place(a.bias, bDesc, bAddr, weightSpace);
    return CUDNN_STATUS_SUCCESS;
  }
  LegacyCall call(ids::k_cudnnGetRNNWeightParams, CallClass::kSync);
  call.handle(handle).id(rnnDesc).value(pseudoLayer).value<uint64_t>(weightSpaceSize).device(weightSpace);
  call.value(linLayerID).value<uint8_t>(mDesc != nullptr).value<uint8_t>(mAddr != nullptr);
  call.value<uint8_t>(bDesc != nullptr).value<uint8_t>(bAddr != nullptr);
  cudnnStatus_t status = call.invoke();
  if (status != CUDNN_STATUS_SUCCESS) return status;
  if (!call.filled_tensor(mDesc, mAddr) || !call.filled_tensor(bDesc, bAddr)) return CUDNN_STATUS_INTERNAL_ERROR;
  if (cacheable)
    keep(answers().params, q, {placed(mDesc, mAddr, weightSpace), placed(bDesc, bAddr, weightSpace)});
  return status;
}

cudnnStatus_t cudnnGetRNNWeightSpaceSize(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, size_t* weightSpaceSize) {
  WeightQuestion q;
  const bool cacheable = question(handle, rnnDesc, &q) && weightSpaceSize;
  if (cacheable && find(answers().space_sizes, q, weightSpaceSize)) return CUDNN_STATUS_SUCCESS;
  const cudnnStatus_t status = remote::cudnnGetRNNWeightSpaceSize(handle, rnnDesc, weightSpaceSize);
  if (status == CUDNN_STATUS_SUCCESS && cacheable) keep(answers().space_sizes, q, *weightSpaceSize);
  return status;
}

cudnnStatus_t cudnnGetRNNTempSpaceSizes(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
                                        cudnnRNNDataDescriptor_t xDesc, size_t* workSpaceSize,
                                        size_t* reserveSpaceSize) {
  TempQuestion q;
  const bool cacheable = question(handle, rnnDesc, xDesc, &q);
  q.mode = fwdMode;
  q.outputs = (workSpaceSize ? 1 : 0) | (reserveSpaceSize ? 2 : 0);
  TempAnswer a;
  if (cacheable && find(answers().temp_sizes, q, &a)) {
    if (workSpaceSize) *workSpaceSize = a.work;
    if (reserveSpaceSize) *reserveSpaceSize = a.reserve;
    return CUDNN_STATUS_SUCCESS;
  }
  const cudnnStatus_t status =
      remote::cudnnGetRNNTempSpaceSizes(handle, rnnDesc, fwdMode, xDesc, workSpaceSize, reserveSpaceSize);
  if (status == CUDNN_STATUS_SUCCESS && cacheable)
    keep(answers().temp_sizes, q, {workSpaceSize ? *workSpaceSize : 0, reserveSpaceSize ? *reserveSpaceSize : 0});
  return status;
}

cudnnStatus_t cudnnRNNForward(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
                              const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void* x,
                              cudnnRNNDataDescriptor_t yDesc, void* y, cudnnTensorDescriptor_t hDesc, const void* hx,
                              void* hy, cudnnTensorDescriptor_t cDesc, const void* cx, void* cy, size_t weightSpaceSize,
                              const void* weightSpace, size_t workSpaceSize, void* workSpace, size_t reserveSpaceSize,
                              void* reserveSpace) {
  LegacyCall call(ids::k_cudnnRNNForward, CallClass::kAsync);
  call.handle(handle).id(rnnDesc).value<int32_t>(fwdMode).device(devSeqLengths).id(xDesc).device(x).id(yDesc);
  call.device(y).tensor(hDesc).device(hx).device(hy).tensor(cDesc).device(cx).device(cy);
  call.value<uint64_t>(weightSpaceSize).device(weightSpace).value<uint64_t>(workSpaceSize).device(workSpace);
  call.value<uint64_t>(reserveSpaceSize).device(reserveSpace);
  return call.post();
}

cudnnStatus_t cudnnRNNBackwardData_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                      const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t yDesc, const void* y,
                                      const void* dy, cudnnRNNDataDescriptor_t xDesc, void* dx,
                                      cudnnTensorDescriptor_t hDesc, const void* hx, const void* dhy, void* dhx,
                                      cudnnTensorDescriptor_t cDesc, const void* cx, const void* dcy, void* dcx,
                                      size_t weightSpaceSize, const void* weightSpace, size_t workSpaceSize,
                                      void* workSpace, size_t reserveSpaceSize, void* reserveSpace) {
  LegacyCall call(ids::k_cudnnRNNBackwardData_v8, CallClass::kAsync);
  call.handle(handle).id(rnnDesc).device(devSeqLengths).id(yDesc).device(y).device(dy).id(xDesc).device(dx);
  call.tensor(hDesc).device(hx).device(dhy).device(dhx).tensor(cDesc).device(cx).device(dcy).device(dcx);
  call.value<uint64_t>(weightSpaceSize).device(weightSpace).value<uint64_t>(workSpaceSize).device(workSpace);
  call.value<uint64_t>(reserveSpaceSize).device(reserveSpace);
  return call.post();
}

cudnnStatus_t cudnnRNNBackwardWeights_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnWgradMode_t addGrad,
                                         const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void* x,
                                         cudnnTensorDescriptor_t hDesc, const void* hx, cudnnRNNDataDescriptor_t yDesc,
                                         const void* y, size_t weightSpaceSize, void* dweightSpace,
                                         size_t workSpaceSize, void* workSpace, size_t reserveSpaceSize,
                                         void* reserveSpace) {
  LegacyCall call(ids::k_cudnnRNNBackwardWeights_v8, CallClass::kAsync);
  call.handle(handle).id(rnnDesc).value<int32_t>(addGrad).device(devSeqLengths).id(xDesc).device(x);
  call.tensor(hDesc).device(hx).id(yDesc).device(y).value<uint64_t>(weightSpaceSize).device(dweightSpace);
  call.value<uint64_t>(workSpaceSize).device(workSpace).value<uint64_t>(reserveSpaceSize).device(reserveSpace);
  return call.post();
}

}  // extern "C"
