// The compute gate against a stand-in for rgpud's parent on the other end of a real link: a call
// waits for its turn, a revoked or idle turn is drained and reported, a grant nobody waits for goes
// straight back, live changes reach the worker, and stop() lets a waiting call go without running.
#include <catch2/catch.hpp>

#include <atomic>
#include <future>
#include <thread>
#include <sys/socket.h>
#include <unistd.h>

#include "gen/cudart/cudart_api.h"
#include "server/backends/backend.h"
#include "server/session/compute_gate.h"
#include "server/session/handle_table.h"
#include "server/session/pool_link.h"

using namespace std::chrono_literals;
using rgpu::server::ComputeGate;
using rgpu::server::LinkKind;
using rgpu::server::LinkMessage;
using rgpu::server::PoolLink;

namespace {

struct Rig {
  std::unique_ptr<rgpu::server::Backend> backend = rgpu::server::make_emulated_backend();
  int fds[2] = {-1, -1};
  PoolLink parent, worker;
  std::unique_ptr<ComputeGate> gate;
  std::atomic<uint64_t> resliced{0};
  std::thread serving;

  explicit Rig(std::chrono::milliseconds idle_release) {
    REQUIRE(backend->init().is_ok());
    auto pair = PoolLink::make_pair();
    REQUIRE(pair.is_ok());
    fds[0] = pair->first;
    fds[1] = pair->second;
    parent = PoolLink(fds[0]);
    worker = PoolLink(fds[1]);
    gate = std::make_unique<ComputeGate>(worker, *backend, idle_release);
    serving = std::thread([this] {
      gate->serve([this](const LinkMessage& m) { resliced = m.memory; }, [] {});
    });
  }
  ~Rig() {
    gate->stop();
    ::shutdown(fds[1], SHUT_RDWR);  // ends serve()'s wait for the next message
    serving.join();
    close(fds[0]);
    close(fds[1]);
  }
  // One call through the gate: it wants the turn, is granted it, runs and leaves (the turn held).
  void one_call_granted() {
    auto call = std::async(std::launch::async, [&] {
      REQUIRE(gate->enter());
      gate->leave();
    });
    CHECK(next() == LinkKind::kWant);
    REQUIRE(parent.send(LinkMessage(LinkKind::kGrant)).is_ok());
    call.get();
  }
  LinkKind next(LinkMessage* out = nullptr) {
    auto m = parent.receive(2000ms);
    REQUIRE(m.is_ok());
    if (out) *out = *m;
    return m->kind;
  }
};

}  // namespace

TEST_CASE("compute gate: a call waits for its turn, a revoked turn is drained and its time reported") {
  Rig rig(10000ms);  // no idle release in this test
  auto call = std::async(std::launch::async, [&] {
    bool ran = rig.gate->enter();
    if (ran) rig.gate->leave();
    return ran;
  });
  CHECK(rig.next() == LinkKind::kWant);
  CHECK(call.wait_for(50ms) == std::future_status::timeout);  // no turn yet: the call waits
  REQUIRE(rig.parent.send(LinkMessage(LinkKind::kGrant)).is_ok());
  CHECK(call.get());
  // Holding the turn, calls run without asking again.
  REQUIRE(rig.gate->enter());
  rig.gate->leave();
  std::this_thread::sleep_for(20ms);
  REQUIRE(rig.parent.send(LinkMessage(LinkKind::kRevoke)).is_ok());
  LinkMessage released;
  CHECK(rig.next(&released) == LinkKind::kReleased);
  CHECK(released.ok);                        // revoked, not given back
  CHECK(released.value >= 20'000'000ull);    // ns from the grant to the end of the drain
}

TEST_CASE("compute gate: an idle holder gives its turn back, a grant nobody waits for goes straight back") {
  Rig rig(5ms);
  rig.one_call_granted();
  LinkMessage released;
  CHECK(rig.next(&released) == LinkKind::kReleased);  // after idle_release without a call
  CHECK_FALSE(released.ok);
  // A turn granted again (the arbiter requeues a revoked session by itself) with nothing to run.
  REQUIRE(rig.parent.send(LinkMessage(LinkKind::kGrant)).is_ok());
  CHECK(rig.next(&released) == LinkKind::kReleased);
  CHECK_FALSE(released.ok);
}

TEST_CASE("compute gate: a hurried holder gives its turn back as soon as its client pauses") {
  // An idle release of a second (policy.idle_release_ms's maximum): only the hurry can end the turn
  // before this test's wait for the Released is over.
  Rig rig(1000ms);
  rig.one_call_granted();
  LinkMessage hint(LinkKind::kHint);
  hint.ok = true;  // hurried
  REQUIRE(rig.parent.send(hint).is_ok());
  auto released = rig.parent.receive(900ms);
  REQUIRE(released.is_ok());
  CHECK(released->kind == LinkKind::kReleased);
  CHECK_FALSE(released->ok);  // given back, not revoked
}

TEST_CASE("compute gate: with a peer waiting the pause before a hurried hand-back is the longer one") {
  // The pauses are read when the gate is made: the peer's a second (longer than this test's wait),
  // the other's the shortest allowed.
  setenv("RGPU_HANDBACK_IDLE_PEER_US", "1000000", 1);
  setenv("RGPU_HANDBACK_IDLE_US", "10", 1);
  Rig rig(10000ms);
  unsetenv("RGPU_HANDBACK_IDLE_PEER_US");
  unsetenv("RGPU_HANDBACK_IDLE_US");
  rig.one_call_granted();
  LinkMessage hint(LinkKind::kHint);
  hint.ok = true;  // hurried, and one of those waiting is a peer
  hint.value = rgpu::server::kHintPeer;
  REQUIRE(rig.parent.send(hint).is_ok());
  CHECK_FALSE(rig.parent.receive(200ms).is_ok());  // 20,000 short pauses long: the turn stays
  hint.value = 0;  // the peer is gone; only lower priorities wait
  REQUIRE(rig.parent.send(hint).is_ok());
  auto released = rig.parent.receive(900ms);
  REQUIRE(released.is_ok());
  CHECK(released->kind == LinkKind::kReleased);
  CHECK_FALSE(released->ok);  // given back, not revoked
}

TEST_CASE("compute gate: a holder waiting for its own GPU work keeps its turn, it goes back after the wait") {
  Rig rig(5ms);
  rig.one_call_granted();
  LinkMessage hint(LinkKind::kHint);
  hint.ok = true;  // hurried: without the wait, gone within a fraction of a millisecond
  REQUIRE(rig.parent.send(hint).is_ok());
  rig.gate->wait_begins();
  // 30 idle releases and 3000 hurried ones long: the turn stays while the client waits.
  auto during = rig.parent.receive(150ms);
  CHECK_FALSE(during.is_ok());
  rig.gate->wait_ends();
  auto after = rig.parent.receive(900ms);
  REQUIRE(after.is_ok());
  CHECK(after->kind == LinkKind::kReleased);
  CHECK_FALSE(after->ok);  // given back, not revoked
}

TEST_CASE("compute gate: live changes reach the worker, stop() lets a waiting call go unrun") {
  Rig rig(10000ms);
  LinkMessage change(LinkKind::kReslice);
  change.memory = 8ull << 30;
  REQUIRE(rig.parent.send(change).is_ok());
  for (int i = 0; i < 200 && rig.resliced == 0; ++i) std::this_thread::sleep_for(5ms);
  CHECK(rig.resliced == (8ull << 30));

  auto call = std::async(std::launch::async, [&] { return rig.gate->enter(); });
  CHECK(rig.next() == LinkKind::kWant);
  rig.gate->stop();
  CHECK_FALSE(call.get());
  CHECK_FALSE(rig.gate->enter());
}

TEST_CASE("compute gate: a turn taken back before the waiting call woke is wanted again") {
  // Grant and Revoke back to back: the gate thread often takes the turn back before the session
  // thread, woken by the grant, runs. The call must then want a turn again, not wait for ever.
  Rig rig(10000ms);
  for (int round = 0; round < 50; ++round) {
    INFO("round " << round);
    auto call = std::async(std::launch::async, [&] {
      bool ran = rig.gate->enter();
      if (ran) rig.gate->leave();
      return ran;
    });
    REQUIRE(rig.next() == LinkKind::kWant);
    REQUIRE(rig.parent.send(LinkMessage(LinkKind::kGrant)).is_ok());
    REQUIRE(rig.parent.send(LinkMessage(LinkKind::kRevoke)).is_ok());
    REQUIRE(rig.next() == LinkKind::kReleased);
    if (call.wait_for(100ms) != std::future_status::ready) {
      // It lost the race: it asks again, and the next grant lets it run.
      REQUIRE(rig.next() == LinkKind::kWant);
      REQUIRE(rig.parent.send(LinkMessage(LinkKind::kGrant)).is_ok());
      REQUIRE(call.wait_for(2000ms) == std::future_status::ready);
      REQUIRE(rig.parent.send(LinkMessage(LinkKind::kRevoke)).is_ok());
      REQUIRE(rig.next() == LinkKind::kReleased);
    }
    CHECK(call.get());
  }
}

TEST_CASE("compute gate: a sovereign takes its turn without waiting for the grant, and ignores the grant") {
  Rig rig(1000ms);
  // Messages are served in order: once the reslice after it has arrived, so has the Sovereign.
  auto tell = [&](LinkMessage m, uint64_t mark) {
    REQUIRE(rig.parent.send(m).is_ok());
    LinkMessage change(LinkKind::kReslice);
    change.memory = mark;
    REQUIRE(rig.parent.send(change).is_ok());
    for (int i = 0; i < 400 && rig.resliced != mark; ++i) std::this_thread::sleep_for(5ms);
    REQUIRE(rig.resliced == mark);
  };
  LinkMessage sovereign(LinkKind::kSovereign);
  sovereign.ok = true;
  tell(sovereign, 1);

  auto call = std::async(std::launch::async, [&] {
    REQUIRE(rig.gate->enter());
    rig.gate->leave();
  });
  CHECK(call.wait_for(2s) == std::future_status::ready);  // no grant sent: it ran anyway
  CHECK(rig.next() == LinkKind::kWant);                   // and told the parent
  // The parent's grant finds it holding: nothing changes. It gives the turn back as soon as its
  // client pauses (hurried until the grant's hint), once, not once more for the grant.
  REQUIRE(rig.parent.send(LinkMessage(LinkKind::kGrant)).is_ok());
  LinkMessage released;
  CHECK(rig.next(&released) == LinkKind::kReleased);
  CHECK_FALSE(released.ok);
  CHECK(rig.parent.receive(200ms).status().code() == rgpu::Code::kUnavailable);

  // No longer sovereign: a call waits for its grant again.
  sovereign.ok = false;
  tell(sovereign, 2);
  auto waits = std::async(std::launch::async, [&] {
    bool ran = rig.gate->enter();
    if (ran) rig.gate->leave();
    return ran;
  });
  CHECK(rig.next() == LinkKind::kWant);
  CHECK(waits.wait_for(50ms) == std::future_status::timeout);
  REQUIRE(rig.parent.send(LinkMessage(LinkKind::kGrant)).is_ok());
  CHECK(waits.get());
}

TEST_CASE("compute gate: draining a turn keeps a stream's open capture valid") {
  // CUDA invalidates a capture when its device is synchronized (the emulated backend as a GPU):
  // the drain of a revoked or bounded turn must wait for the session's other streams instead.
  Rig rig(10000ms);
  const auto& rt = rig.backend->cudart();
  cudaStream_t capturing = nullptr, other = nullptr;
  REQUIRE(rt.cudaStreamCreate(&capturing) == cudaSuccess);
  REQUIRE(rt.cudaStreamCreate(&other) == cudaSuccess);
  rgpu::server::HandleTable handles;
  handles.bind(rgpu::server::HandleKind::kStream, 100, capturing);
  handles.bind(rgpu::server::HandleKind::kStream, 101, other);
  auto status = [&] {
    cudaStreamCaptureStatus s = cudaStreamCaptureStatusNone;
    REQUIRE(rt.cudaStreamIsCapturing(capturing, &s) == cudaSuccess);
    return s;
  };
  auto end_capture = [&] {
    cudaGraph_t graph = nullptr;
    cudaError_t st = rt.cudaStreamEndCapture(capturing, &graph);
    if (graph) rt.cudaGraphDestroy(graph);
    return st;
  };

  SECTION("without the session's streams the drain synchronizes the device, which ends the capture") {
    rig.one_call_granted();
    REQUIRE(rt.cudaStreamBeginCapture(capturing, cudaStreamCaptureModeGlobal) == cudaSuccess);
    REQUIRE(rig.parent.send(LinkMessage(LinkKind::kRevoke)).is_ok());
    REQUIRE(rig.next() == LinkKind::kReleased);
    CHECK(status() == cudaStreamCaptureStatusInvalidated);
    CHECK(end_capture() == cudaErrorStreamCaptureInvalidated);
  }
  SECTION("with them, a revoked turn's drain and a bounded call's leave the capture as it was") {
    rig.gate->set_streams(&handles);
    rig.one_call_granted();
    REQUIRE(rt.cudaStreamBeginCapture(capturing, cudaStreamCaptureModeGlobal) == cudaSuccess);
    REQUIRE(rig.parent.send(LinkMessage(LinkKind::kRevoke)).is_ok());
    REQUIRE(rig.next() == LinkKind::kReleased);
    CHECK(status() == cudaStreamCaptureStatusActive);

    LinkMessage bounded(LinkKind::kHint);
    bounded.value = rgpu::server::kHintBounded;
    rig.one_call_granted();  // the grant resets the hints: bound this turn
    REQUIRE(rig.parent.send(bounded).is_ok());
    LinkMessage mark(LinkKind::kReslice);  // served after the hint, in order
    mark.memory = 7;
    REQUIRE(rig.parent.send(mark).is_ok());
    for (int i = 0; i < 400 && rig.resliced != 7; ++i) std::this_thread::sleep_for(5ms);
    REQUIRE(rig.resliced == 7);
    REQUIRE(rig.gate->enter());
    rig.gate->leave();  // bounded: drains inside the call
    CHECK(status() == cudaStreamCaptureStatusActive);
    CHECK(end_capture() == cudaSuccess);
  }
  rt.cudaStreamDestroy(capturing);
  rt.cudaStreamDestroy(other);
}
