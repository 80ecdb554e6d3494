// What a generated dispatcher (or a hand-written server handler) sees of its session: the
// library tables of the backend, the handle map, and the call's bulk data.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <span>
#include <vector>

#include "codegen/support/api_tables_fwd.h"
#include "common/status.h"
#include "server/session/handle_table.h"

namespace rgpu::server {

class Session;

// Empty cuBLASLt, cuRAND, cuFFT, cuSPARSE and cuSOLVER tables, for contexts made without a backend (tests): every entry null.
const gen::cublasLt::Api& no_cublasLt_api();
const gen::curand::Api& no_curand_api();
const gen::cufft::Api& no_cufft_api();
const gen::cusparse::Api& no_cusparse_api();
const gen::cusolver::Api& no_cusolver_api();

// Bulk data of a call that the session did not read ahead (a large H2D copy): the handler reads it
// piece by piece straight into its staging buffers, and must take all of it (what it cannot use,
// skipped).
class BulkReader {
 public:
  virtual ~BulkReader() = default;
  virtual Status read(void* dst, size_t n) = 0;
  virtual Status skip(uint64_t n) = 0;
  virtual uint64_t left() const = 0;
};

struct CallContext {
  Session& session;
  const gen::cudart::Api& cudart;   // the backend's CUDA Runtime entry points
  const gen::cublas::Api& cublas;   // the backend's cuBLAS entry points (null where it has none)
  const gen::cudnn::Api& cudnn;     // the backend's cuDNN entry points (null until its first call loads them)
  HandleTable& handles;
  std::span<const uint8_t> bulk_in;  // bulk data received with the call (H2D source)
  // Bulk data to send back after the reply payload (D2H destination bytes). Points at memory that
  // stays valid until the reply is sent (a staging buffer owned by the session).
  std::vector<iovec>* bulk_out;
  uint64_t seq;
  uint32_t method = 0;
  BulkReader* bulk_reader = nullptr;  // set instead of bulk_in for streamed bulk
  bool replied = false;               // the handler sent the reply itself (streamed D2H)
  bool wants_reply = false;           // the caller waits for a reply
  const gen::nvml::Api* nvml = nullptr;  // the backend's NVML entry points, set for NVML calls
  const gen::cublasLt::Api& cublasLt = no_cublasLt_api();  // the backend's cuBLASLt entry points
  const gen::curand::Api& curand = no_curand_api();  // the backend's cuRAND entry points (null until its first call)
  const gen::cufft::Api& cufft = no_cufft_api();     // the backend's cuFFT entry points (null until its first call)
  const gen::cusparse::Api& cusparse = no_cusparse_api();  // the backend's cuSPARSE entry points (likewise)
  const gen::cusolver::Api& cusolver = no_cusolver_api();  // the backend's cuSOLVER entry points (likewise)
};

}  // namespace rgpu::server
