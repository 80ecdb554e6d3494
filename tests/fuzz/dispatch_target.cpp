// One call through a library's server dispatch, in a context whose entry-point tables are empty.
#include "tests/fuzz/dispatch_target.h"

#include <cublasLt.h>
#include <cudnn.h>
#include <cufft.h>
#include <curand.h>
#include <cusolver_common.h>  // not cusolverDn.h: its cublas_v2.h cannot meet the cublas.h of cuBLAS's handlers
#include <cusparse.h>

#include <algorithm>
#include <cstring>

#include "common/log.h"
#include "common/wire/codec.h"
#include "gen/cublas/cublas_api.h"
#include "gen/cublas/cublas_handlers.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cublasLt/cublasLt_handlers.h"
#include "gen/cublasLt/cublasLt_ids.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudnn/cudnn_api.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/cufft/cufft_handlers.h"
#include "gen/cufft/cufft_ids.h"
#include "gen/curand/curand_handlers.h"
#include "gen/curand/curand_ids.h"
#include "gen/cusolver/cusolver_handlers.h"
#include "gen/cusolver/cusolver_ids.h"
#include "gen/cusparse/cusparse_handlers.h"
#include "gen/cusparse/cusparse_ids.h"
#include "server/session/call_context.h"
#include "tests/fuzz/cublaslt_payloads.h"

namespace rgpu::fuzz {

// The stand-in session of the fuzz context (dispatch_stubs.cpp, where it is defined).
server::Session& stand_in_session();

namespace {

using server::CallContext;
using Dispatch = bool (*)(CallContext&, uint32_t, wire::Decoder&, wire::Encoder&, int32_t&);

// The handle id every kind of handle is bound to, so that near-valid inputs get past resolution.
constexpr uint64_t kKnownHandle = 0x100;

struct LibraryTable {
  const char* name;
  std::span<const uint32_t> ids;
  Dispatch dispatch;
  const char* (*call_name)(uint32_t);
  std::vector<int32_t> answers;  // what a decoded call may answer with no entry points
};

const LibraryTable& table(Library library) {
  static const LibraryTable tables[] = {
      {"cudart", gen::cudart::kCallIds, gen::cudart::dispatch, gen::cudart::call_name,
       {cudaErrorNotSupported, cudaErrorInvalidResourceHandle}},
      {"cublas", gen::cublas::kCallIds, gen::cublas::dispatch, gen::cublas::call_name,
       {CUBLAS_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_NOT_INITIALIZED}},
      {"cublasLt", gen::cublasLt::kCallIds, gen::cublasLt::dispatch, gen::cublasLt::call_name,
       {CUBLAS_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_INVALID_VALUE}},
      {"cudnn", gen::cudnn::kCallIds, gen::cudnn::dispatch, gen::cudnn::call_name,
       {CUDNN_STATUS_NOT_SUPPORTED, CUDNN_STATUS_BAD_PARAM, CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE}},
      {"curand", gen::curand::kCallIds, gen::curand::dispatch, gen::curand::call_name,
       {CURAND_STATUS_INTERNAL_ERROR, CURAND_STATUS_NOT_INITIALIZED}},
      {"cufft", gen::cufft::kCallIds, gen::cufft::dispatch, gen::cufft::call_name,
       {CUFFT_NOT_SUPPORTED, CUFFT_INVALID_PLAN}},
      {"cusparse", gen::cusparse::kCallIds, gen::cusparse::dispatch, gen::cusparse::call_name,
       {CUSPARSE_STATUS_NOT_SUPPORTED, CUSPARSE_STATUS_NOT_INITIALIZED}},
      {"cusolver", gen::cusolver::kCallIds, gen::cusolver::dispatch, gen::cusolver::call_name,
       {CUSOLVER_STATUS_NOT_SUPPORTED, CUSOLVER_STATUS_NOT_INITIALIZED}},
  };
  return tables[static_cast<size_t>(library)];
}

// Binds kKnownHandle for every kind, as real, readable memory: a handler may look at what a
// handle points to, never past it.
void bind_known_handles(server::HandleTable& handles) {
  alignas(64) static uint8_t object[4096];
  for (auto kind : {server::HandleKind::kStream, server::HandleKind::kEvent, server::HandleKind::kGraph,
                    server::HandleKind::kGraphExec, server::HandleKind::kGraphNode, server::HandleKind::kModule,
                    server::HandleKind::kFunction, server::HandleKind::kCublas, server::HandleKind::kOther, server::HandleKind::kMemPool,
                    server::HandleKind::kCudnn, server::HandleKind::kCudnnDescriptor,
                    server::HandleKind::kCudnnPooling, server::HandleKind::kCudnnLrn,
                    server::HandleKind::kCudnnOpTensor, server::HandleKind::kCudnnReduceTensor,
                    server::HandleKind::kCudnnSpatialTransformer, server::HandleKind::kCudnnTensorTransform,
                    server::HandleKind::kCudnnRnn, server::HandleKind::kCudnnRnnData, server::HandleKind::kCudnnDropout,
                    server::HandleKind::kCudnnCtcLoss, server::HandleKind::kCudnnAttn, server::HandleKind::kCudnnSeqData,
                    server::HandleKind::kCurand,
                    server::HandleKind::kCufft, server::HandleKind::kCufftDescriptor,
                    server::HandleKind::kCusparse, server::HandleKind::kCusparseDescriptor,
                    server::HandleKind::kCusolverDn, server::HandleKind::kCusolverSp, server::HandleKind::kCusolverRf,
                    server::HandleKind::kCusolverDescriptor})
    handles.bind(kind, kKnownHandle, object);
}

std::vector<uint8_t> call_input(uint16_t index, std::span<const uint8_t> payload) {
  std::vector<uint8_t> input(sizeof index + payload.size());
  std::memcpy(input.data(), &index, sizeof index);
  if (!payload.empty()) std::memcpy(input.data() + sizeof index, payload.data(), payload.size());
  return input;
}

}  // namespace

std::string dispatch_violation(Library library, std::span<const uint8_t> input) {
  static const bool quiet = (log_set_level(LogLevel::kError), true);  // "not supported" is logged once per name
  (void)quiet;
  static const gen::cudart::Api no_cudart;
  static const gen::cublas::Api no_cublas;
  static const gen::cudnn::Api no_cudnn;
  const LibraryTable& lib = table(library);
  if (input.size() < sizeof(uint16_t)) return {};
  uint16_t index;
  std::memcpy(&index, input.data(), sizeof index);
  const uint32_t id = lib.ids[index % lib.ids.size()];

  server::HandleTable handles;  // fresh: a handler that binds an id must not change the next run
  bind_known_handles(handles);
  std::vector<iovec> bulk_out;
  CallContext ctx{stand_in_session(), no_cudart, no_cublas, no_cudnn, handles, {}, &bulk_out, 0};
  wire::Decoder in(input.subspan(sizeof index));
  wire::Encoder out;
  int32_t status = -12345;
  const bool decoded = lib.dispatch(ctx, id, in, out, status);

  const std::string call = std::string(lib.name) + " " + lib.call_name(id);
  if (!out.payload().empty() || !bulk_out.empty()) return call + ": sent a reply though nothing could succeed";
  if (decoded && std::find(lib.answers.begin(), lib.answers.end(), status) == lib.answers.end())
    return call + ": answered status " + std::to_string(status) + " with no entry points";
  return {};
}

std::vector<std::vector<uint8_t>> dispatch_seeds(Library library) {
  const LibraryTable& lib = table(library);
  std::vector<std::vector<uint8_t>> seeds;
  std::vector<uint8_t> near_valid(64);
  for (size_t i = 0; i < near_valid.size(); i += 8) {
    const uint64_t word = i % 16 == 0 ? kKnownHandle : 1;
    std::memcpy(near_valid.data() + i, &word, sizeof word);
  }
  for (size_t index = 0; index < lib.ids.size(); ++index) {
    seeds.push_back(call_input(static_cast<uint16_t>(index), {}));
    seeds.push_back(call_input(static_cast<uint16_t>(index), near_valid));
  }
  if (library == Library::kCublasLt) {
    for (uint32_t id : {gen::cublasLt::k_cublasLtMatmulAlgoGetHeuristic, gen::cublasLt::k_cublasLtMatmul}) {
      const auto at = std::find(lib.ids.begin(), lib.ids.end(), id) - lib.ids.begin();
      seeds.push_back(call_input(static_cast<uint16_t>(at), cublaslt_valid_payload(id, kKnownHandle)));
    }
  }
  return seeds;
}

}  // namespace rgpu::fuzz
