// wait_inline against the emulated backend: a stream whose work is done is kDone at once (through
// its mark, or the driver's answer), one still busy is handed over, so is one whose client sent
// another call, and an unknown handle or a capturing stream gets the driver's error (kAnswered).
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <memory>

#include "common/wire/codec.h"
#include "gen/cudart/cudart_ids.h"
#include "server/backends/backend.h"
#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"
#include "server/session/handle_table.h"
#include "server/session/inline_wait.h"

namespace emu = rgpu::server::emulated;
namespace ids = rgpu::gen::cudart;
using rgpu::server::HandleKind;
using rgpu::server::HandleTable;
using rgpu::server::InlineWait;

namespace {

struct Rig {
  std::unique_ptr<rgpu::server::Backend> backend = rgpu::server::make_emulated_backend();
  HandleTable handles;
  cudaStream_t stream = nullptr;
  static constexpr uint64_t kStreamId = 0x100;

  Rig() {
    REQUIRE(backend->init().is_ok());
    REQUIRE(emu::cudaStreamCreate(&stream) == cudaSuccess);
    handles.bind(HandleKind::kStream, kStreamId, stream);
  }
  ~Rig() { (void)emu::cudaStreamDestroy(stream); }

  InlineWait wait(uint32_t method, uint64_t id, bool input = false) {
    rgpu::wire::Encoder payload;
    payload.put<uint64_t>(id);
    rgpu::wire::FrameHeader h{};
    h.method = method;
    return rgpu::server::wait_inline(*backend, handles, h, payload.payload(), [input] { return input; });
  }
};

}  // namespace

TEST_CASE("a wait whose work is done is answered at once, a busy one, or one with a call behind it, is handed over") {
  Rig rig;
  CHECK(rig.wait(ids::k_cudaStreamSynchronize, Rig::kStreamId) == InlineWait::kDone);
  CHECK(rig.wait(ids::k_cudaStreamSynchronize, 0) == InlineWait::kDone);
  CHECK(rig.wait(ids::k_cudaStreamSynchronize_ptsz, 0) == InlineWait::kDone);

  auto& st = emu::state();
  const auto kept = st.config.kernel_time;
  st.config.kernel_time = std::chrono::milliseconds(200);
  st.occupy(0);  // a kernel of 200 ms: past the inline budget
  const auto began = std::chrono::steady_clock::now();
  CHECK(rig.wait(ids::k_cudaStreamSynchronize, Rig::kStreamId) == InlineWait::kHandOver);
  CHECK(rig.wait(ids::k_cudaStreamSynchronize, Rig::kStreamId, /*input=*/true) == InlineWait::kHandOver);
  CHECK(std::chrono::steady_clock::now() - began < std::chrono::milliseconds(200));
  REQUIRE(emu::cudaStreamSynchronize(rig.stream) == cudaSuccess);
  CHECK(rig.wait(ids::k_cudaStreamSynchronize, Rig::kStreamId) == InlineWait::kDone);
  st.config.kernel_time = kept;

  // Never inline: a device-wide wait.
  CHECK(rig.wait(ids::k_cudaDeviceSynchronize, 0) == InlineWait::kHandOver);
}

TEST_CASE("an unknown handle or a capturing stream gets the driver's error, not a success") {
  Rig rig;
  CHECK(rig.wait(ids::k_cudaStreamSynchronize, 0x999) == InlineWait::kAnswered);
  CHECK(rig.wait(ids::k_cudaEventSynchronize, 0x999) == InlineWait::kAnswered);
  REQUIRE(emu::cudaStreamBeginCapture(rig.stream, cudaStreamCaptureModeRelaxed) == cudaSuccess);
  CHECK(rig.wait(ids::k_cudaStreamSynchronize, Rig::kStreamId) == InlineWait::kAnswered);
  cudaGraph_t graph = nullptr;
  CHECK(emu::cudaStreamEndCapture(rig.stream, &graph) == cudaErrorStreamCaptureInvalidated);
}

TEST_CASE("finish_stream returns once the stream's work is done, or the error its synchronisation gives") {
  Rig rig;
  CHECK(rgpu::server::finish_stream(*rig.backend, rig.stream) == cudaSuccess);
  CHECK(rgpu::server::finish_stream(*rig.backend, nullptr) == cudaSuccess);

  // Work longer than the 1 ms watch: the synchronisation takes over and waits for it.
  auto& st = emu::state();
  const auto kept = st.config.kernel_time;
  st.config.kernel_time = std::chrono::milliseconds(20);
  st.occupy(0);
  REQUIRE(emu::cudaStreamQuery(rig.stream) == cudaErrorNotReady);
  CHECK(rgpu::server::finish_stream(*rig.backend, rig.stream) == cudaSuccess);
  CHECK(emu::cudaStreamQuery(rig.stream) == cudaSuccess);  // it returned only once the work was done
  st.config.kernel_time = kept;

  REQUIRE(emu::cudaStreamBeginCapture(rig.stream, cudaStreamCaptureModeRelaxed) == cudaSuccess);
  CHECK(rgpu::server::finish_stream(*rig.backend, rig.stream) != cudaSuccess);
  cudaGraph_t graph = nullptr;
  CHECK(emu::cudaStreamEndCapture(rig.stream, &graph) == cudaErrorStreamCaptureInvalidated);
}
