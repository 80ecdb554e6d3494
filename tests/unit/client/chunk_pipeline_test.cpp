// The chunk order of staged copies (client/runtime/chunk_pipeline.h), against a simulated device
// whose copies happen only when they are finished (the latest a real one may): a slot refilled or
// drained too early shows as wrong bytes.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "client/runtime/chunk_pipeline.h"

using rgpu::client::ChunkSteps;

namespace {

struct Simulation {
  Simulation(uint64_t n, size_t chunk, size_t slots)
      : program(n), device(n), ring(slots * chunk), chunk(chunk), pending(slots) {
    for (uint64_t i = 0; i < n; ++i) program[i] = static_cast<uint8_t>(i * 7 + 3);
  }
  struct Issued {
    bool live = false;
    uint64_t offset = 0;
    size_t len = 0;
  };
  std::vector<uint8_t> program, device, ring;
  size_t chunk;
  std::vector<Issued> pending;
  std::vector<uint64_t> order;  // offsets in the order their copies were issued
  int fail_issue_at = -1;       // the issue that fails (its index), or -1
  int fail_finish_at = -1;      // the finish whose status is an error, or -1
  int issues = 0, finishes = 0;
  bool misuse = false;          // a slot used while its copy was in flight, or finished twice

  ChunkSteps steps(bool h2d) {
    ChunkSteps s;
    s.host = [this, h2d](size_t slot, uint64_t offset, size_t len) {
      if (pending[slot].live) misuse = true;
      if (h2d) std::memcpy(ring.data() + slot * chunk, program.data() + offset, len);
      else std::memcpy(program.data() + offset, ring.data() + slot * chunk, len);
    };
    s.issue = [this](size_t slot, uint64_t offset, size_t len) -> int32_t {
      if (issues++ == fail_issue_at) return 99;
      if (pending[slot].live) misuse = true;
      pending[slot] = Issued{true, offset, len};
      order.push_back(offset);
      return 0;
    };
    s.finish = [this, h2d](size_t slot) -> int32_t {
      Issued& p = pending[slot];
      if (!p.live) misuse = true;
      if (h2d) std::memcpy(device.data() + p.offset, ring.data() + slot * chunk, p.len);
      else std::memcpy(ring.data() + slot * chunk, device.data() + p.offset, p.len);
      p.live = false;
      return finishes++ == fail_finish_at ? 77 : 0;
    };
    return s;
  }
};

}  // namespace

TEST_CASE("staged chunks: H2D copies every byte in order, never refilling a slot in flight") {
  for (uint64_t n : {uint64_t{1}, uint64_t{4095}, uint64_t{4096}, uint64_t{4097}, uint64_t{40000}}) {
    for (size_t slots : {size_t{1}, size_t{2}, size_t{4}}) {
      Simulation sim(n, 4096, slots);
      CHECK(rgpu::client::run_h2d_chunks(n, 4096, slots, sim.steps(true)) == 0);
      CHECK(sim.device == sim.program);
      CHECK_FALSE(sim.misuse);
      for (const auto& p : sim.pending) CHECK_FALSE(p.live);  // every copy finished
      for (size_t i = 1; i < sim.order.size(); ++i) CHECK(sim.order[i] == sim.order[i - 1] + 4096);
    }
  }
}

TEST_CASE("staged chunks: D2H lands every byte, never draining a slot before its copy finished") {
  for (uint64_t n : {uint64_t{1}, uint64_t{4096}, uint64_t{4097}, uint64_t{40000}}) {
    for (size_t slots : {size_t{1}, size_t{3}}) {
      Simulation sim(n, 4096, slots);
      sim.device = sim.program;
      std::fill(sim.program.begin(), sim.program.end(), 0);
      CHECK(rgpu::client::run_d2h_chunks(n, 4096, slots, sim.steps(false)) == 0);
      CHECK(sim.program == sim.device);
      CHECK_FALSE(sim.misuse);
      for (const auto& p : sim.pending) CHECK_FALSE(p.live);
    }
  }
}

TEST_CASE("staged chunks: a failure stops the issuing, and what was issued is still finished") {
  SECTION("H2D, a copy that fails") {
    Simulation sim(10 * 4096, 4096, 2);
    sim.fail_finish_at = 2;
    CHECK(rgpu::client::run_h2d_chunks(10 * 4096, 4096, 2, sim.steps(true)) == 77);
    CHECK(sim.order.size() < 10);
    CHECK(sim.finishes == sim.issues);
    CHECK_FALSE(sim.misuse);
  }
  SECTION("H2D, a call that cannot be sent") {
    Simulation sim(10 * 4096, 4096, 2);
    sim.fail_issue_at = 3;
    CHECK(rgpu::client::run_h2d_chunks(10 * 4096, 4096, 2, sim.steps(true)) == 99);
    CHECK(sim.order.size() == 3);
    CHECK(sim.finishes == 3);
  }
  SECTION("D2H: no byte of a failed copy reaches the program past the failure") {
    Simulation sim(10 * 4096, 4096, 3);
    sim.device = sim.program;
    std::fill(sim.program.begin(), sim.program.end(), 0);
    sim.fail_finish_at = 1;
    CHECK(rgpu::client::run_d2h_chunks(10 * 4096, 4096, 3, sim.steps(false)) == 77);
    CHECK(std::equal(sim.program.begin(), sim.program.begin() + 4096, sim.device.begin()));  // chunk 0 landed
    CHECK(std::all_of(sim.program.begin() + 4096, sim.program.end(), [](uint8_t b) { return b == 0; }));
    CHECK(sim.finishes == static_cast<int>(sim.order.size()));
    CHECK_FALSE(sim.misuse);
  }
}
