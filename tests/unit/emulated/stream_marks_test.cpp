// The emulated backend's stream marks (server/backends/stream_marks.h) and writes after a stream's work
// (Backend::write_after): each lands only once the stream's earlier work has had its time; a
// capturing stream takes none, and its graph gains no node.
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>

#include "server/backends/backend.h"
#include "server/backends/emulated/runtime_state.h"
#include "tests/unit/emulated/emulated_test_env.h"

namespace emu = rgpu::server::emulated;
using emu::test::FreshDevices;

namespace {

// A started emulated backend and a stream on a device whose kernels take 100 ms.
struct SlowDevice {
  std::unique_ptr<rgpu::server::Backend> backend = rgpu::server::make_emulated_backend();
  std::chrono::milliseconds kept = emu::state().config.kernel_time;
  cudaStream_t s = nullptr;
  SlowDevice() {
    REQUIRE(backend->init().is_ok());
    emu::state().config.kernel_time = std::chrono::milliseconds(100);
    REQUIRE(emu::cudaStreamCreate(&s) == cudaSuccess);
  }
  ~SlowDevice() {
    emu::state().config.kernel_time = kept;
    (void)emu::cudaStreamDestroy(s);
  }
};

}  // namespace

TEST_CASE_METHOD(FreshDevices, "a stream mark comes back once the work before it is done", "[emulated]") {
  SlowDevice slow;
  auto& backend = slow.backend;
  cudaStream_t s = slow.s;
  auto& st = emu::state();

  st.occupy(0);  // a kernel: the device is busy 100 ms
  const uint32_t behind_kernel = backend->mark_stream(s);
  REQUIRE(behind_kernel != 0);
  CHECK_FALSE(backend->mark_passed(behind_kernel));
  REQUIRE(emu::cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(backend->mark_passed(behind_kernel));

  // On an idle device at once; each mark has its own number.
  const uint32_t idle = backend->mark_stream(s);
  CHECK(idle != behind_kernel);
  CHECK(backend->mark_passed(idle));
  CHECK_FALSE(backend->mark_passed(idle + 1));

}

TEST_CASE_METHOD(FreshDevices, "a capturing stream takes no mark, and its graph gains no node", "[emulated]") {
  std::unique_ptr<rgpu::server::Backend> backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  cudaStream_t s = nullptr;
  REQUIRE(emu::cudaStreamCreate(&s) == cudaSuccess);
  REQUIRE(emu::cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) == cudaSuccess);
  CHECK(backend->mark_stream(s) == 0);
  cudaGraph_t graph = nullptr;
  REQUIRE(emu::cudaStreamEndCapture(s, &graph) == cudaSuccess);
  size_t nodes = 99;
  REQUIRE(emu::cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess);
  CHECK(nodes == 0);
  REQUIRE(emu::cudaGraphDestroy(graph) == cudaSuccess);
  REQUIRE(emu::cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE_METHOD(FreshDevices, "a write after a stream's work lands once that work is done, not in a capture",
                 "[emulated]") {
  SlowDevice slow;
  auto& backend = slow.backend;
  cudaStream_t s = slow.s;
  auto& st = emu::state();
  uint32_t word = 0;
  const auto at = reinterpret_cast<uintptr_t>(&word);

  st.occupy(0);  // a kernel: the device is busy 100 ms
  REQUIRE(backend->write_after(s, &word, at, 7));
  CHECK(__atomic_load_n(&word, __ATOMIC_ACQUIRE) == 0u);
  REQUIRE(emu::cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(__atomic_load_n(&word, __ATOMIC_ACQUIRE) == 7u);

  REQUIRE(emu::cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) == cudaSuccess);
  CHECK_FALSE(backend->write_after(s, &word, at, 8));
  cudaGraph_t graph = nullptr;
  REQUIRE(emu::cudaStreamEndCapture(s, &graph) == cudaSuccess);
  size_t nodes = 99;
  REQUIRE(emu::cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess);
  CHECK(nodes == 0);
  CHECK(word == 7u);
  REQUIRE(emu::cudaGraphDestroy(graph) == cudaSuccess);

}
