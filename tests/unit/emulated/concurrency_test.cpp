// Emulated runtime and backend used from several threads at once, as the session's call loop and
// helper threads do: the shared maps stay consistent and the accounting returns to zero.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "server/backends/emulated/emulated_backend.h"
#include "tests/unit/emulated/emulated_test_env.h"

namespace emu = rgpu::server::emulated;
using rgpu::server::emulated::test::FreshDevices;

TEST_CASE_METHOD(FreshDevices, "concurrent allocation, copies, streams and events", "[emulated]") {
  emu::EmulatedBackend backend;
  constexpr int kThreads = 8, kRounds = 200;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&failures, t] {
      auto expect = [&failures](bool ok) { failures += ok ? 0 : 1; };
      expect(emu::cudaSetDevice(t % 2) == cudaSuccess);
      std::vector<uint8_t> host(4096, static_cast<uint8_t>(t)), back(4096);
      for (int round = 0; round < kRounds; ++round) {
        void* d = nullptr;
        cudaStream_t s = nullptr;
        cudaEvent_t e = nullptr;
        expect(emu::cudaMalloc(&d, host.size()) == cudaSuccess);
        expect(emu::cudaStreamCreate(&s) == cudaSuccess);
        expect(emu::cudaEventCreate(&e) == cudaSuccess);
        expect(emu::cudaMemcpyAsync(d, host.data(), host.size(), cudaMemcpyHostToDevice, s) == cudaSuccess);
        expect(emu::cudaEventRecord(e, s) == cudaSuccess);
        expect(emu::cudaStreamWaitEvent(nullptr, e, 0) == cudaSuccess);
        expect(emu::cudaMemcpy(back.data(), d, back.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
        expect(back == host);
        expect(emu::cudaEventDestroy(e) == cudaSuccess);
        expect(emu::cudaStreamDestroy(s) == cudaSuccess);
        expect(emu::cudaFree(d) == cudaSuccess);
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  CHECK(backend.memory_in_use() == 0);
}
