// The call pipe's outbox: frames keep their order; calls that arrive while a write is on its way
// go out together in the next write; a frame with bulk the caller must see on the wire is written
// by the caller after everything queued before it; a failed write stops the outbox; where sends
// are copies into shared memory, callers write their frames themselves.
#include <catch2/catch.hpp>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "client/runtime/outbox.h"

using namespace rgpu;

namespace {

// Records every write; the first write can be held until the test releases it.
class RecordingConnection final : public transport::Connection {
 public:
  Status send_bytes(std::span<const iovec> segments) override {
    std::unique_lock<std::mutex> lock(mu_);
    writes_++;
    writers_.push_back(std::this_thread::get_id());
    if (hold_first_ && writes_ == 1) {
      first_started_ = true;
      cv_.notify_all();
      cv_.wait(lock, [&] { return released_; });
    }
    if (fail_) return RGPU_ERROR(kIo, "write failed");
    for (const iovec& v : segments) {
      auto* b = static_cast<const uint8_t*>(v.iov_base);
      bytes_.insert(bytes_.end(), b, b + v.iov_len);
    }
    cv_.notify_all();
    return Status::ok();
  }
  Status recv_exact(void*, size_t) override { return RGPU_ERROR(kClosed, "no input"); }
  Status skip(uint64_t) override { return RGPU_ERROR(kClosed, "no input"); }
  void shutdown() override {}
  std::string peer() const override { return "recording"; }
  bool sends_are_copies() const override { return copies_; }

  explicit RecordingConnection(bool copies = false) : copies_(copies) {}
  // The thread of each write, in order.
  std::vector<std::thread::id> writers() {
    std::lock_guard<std::mutex> lock(mu_);
    return writers_;
  }

  void hold_first_write() { hold_first_ = true; }
  void wait_first_write_started() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return first_started_; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  void fail_writes() { fail_ = true; }
  // Waits until `n` bytes were written; returns the write count.
  int wait_for_bytes(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return bytes_.size() >= n; });
    return writes_;
  }
  // The seq of each frame written, in wire order (frames are header + payload + bulk).
  std::vector<uint64_t> seqs() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<uint64_t> out;
    for (size_t off = 0; off + sizeof(wire::FrameHeader) <= bytes_.size();) {
      wire::FrameHeader h;
      std::memcpy(&h, bytes_.data() + off, sizeof h);
      out.push_back(h.seq);
      off += sizeof h + h.payload_len + h.bulk_len;
    }
    return out;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<uint8_t> bytes_;
  std::vector<std::thread::id> writers_;
  const bool copies_;
  int writes_ = 0;
  bool hold_first_ = false, first_started_ = false, released_ = false, fail_ = false;
};

constexpr size_t kFrame = sizeof(wire::FrameHeader) + 8;

void append(client::Outbox& box, uint64_t seq) {
  uint8_t payload[8] = {};
  auto lk = box.lock();
  REQUIRE(box.append_locked(lk, wire::make_header(wire::FrameKind::kCall, 1, seq, 8, 0), payload));
}

}  // namespace

TEST_CASE("outbox: calls queued during a write go out together, in order") {
  RecordingConnection conn;
  conn.hold_first_write();
  client::Outbox box(conn, [](const std::string&) {});
  append(box, 1);
  conn.wait_first_write_started();  // the writer thread is inside the write of frame 1
  for (uint64_t seq = 2; seq <= 100; ++seq) append(box, seq);
  conn.release();
  int writes = conn.wait_for_bytes(100 * kFrame);
  CHECK(writes == 2);  // frame 1, then the 99 that arrived meanwhile in one write
  std::vector<uint64_t> seqs = conn.seqs();
  REQUIRE(seqs.size() == 100);
  for (size_t i = 0; i < seqs.size(); ++i) CHECK(seqs[i] == i + 1);
}

TEST_CASE("outbox: a lone call goes out without waiting for company") {
  RecordingConnection conn;
  client::Outbox box(conn, [](const std::string&) {});
  append(box, 7);
  CHECK(conn.wait_for_bytes(kFrame) == 1);
  CHECK(conn.seqs() == std::vector<uint64_t>{7});
}

TEST_CASE("outbox: a caller's own write follows everything queued before it") {
  RecordingConnection conn;
  conn.hold_first_write();
  client::Outbox box(conn, [](const std::string&) {});
  append(box, 1);
  conn.wait_first_write_started();
  append(box, 2);
  std::vector<uint8_t> bulk(256 << 10, 0xab);  // larger than the outbox copies
  std::thread caller([&] {
    auto lk = box.lock();
    iovec v{bulk.data(), bulk.size()};
    CHECK(box.write_locked(lk, wire::make_header(wire::FrameKind::kCall, 1, 3, 0, bulk.size()), {}, {&v, 1}));
  });
  conn.release();
  caller.join();
  conn.wait_for_bytes(3 * kFrame - 8 + bulk.size());
  CHECK(conn.seqs() == std::vector<uint64_t>{1, 2, 3});
}

TEST_CASE("outbox: a failed write is reported once and stops the outbox") {
  RecordingConnection conn;
  conn.fail_writes();
  std::mutex mu;
  std::condition_variable cv;
  int failures = 0;
  client::Outbox box(conn, [&](const std::string&) {
    std::lock_guard<std::mutex> lock(mu);
    failures++;
    cv.notify_all();
  });
  append(box, 1);
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return failures > 0; });
  }
  uint8_t payload[8] = {};
  auto lk = box.lock();
  CHECK(!box.append_locked(lk, wire::make_header(wire::FrameKind::kCall, 1, 2, 8, 0), payload));
  CHECK(failures == 1);
}

TEST_CASE("outbox: where sends are copies, a caller writes its frame itself, elsewhere the writer thread does") {
  uint8_t payload[8] = {};
  RecordingConnection shared(/*copies=*/true);
  client::Outbox direct(shared, [](const std::string&) {});
  CHECK(direct.callers_write());
  {
    auto lk = direct.lock();
    REQUIRE(direct.append_locked(lk, wire::make_header(wire::FrameKind::kCall, 1, 1, 8, 0), payload, {},
                                 /*wake_writer=*/false));
    REQUIRE(direct.flush_locked(lk));
  }
  CHECK(shared.wait_for_bytes(kFrame) == 1);
  CHECK(shared.writers() == std::vector<std::thread::id>{std::this_thread::get_id()});

  RecordingConnection socket;
  client::Outbox queued(socket, [](const std::string&) {});
  CHECK(!queued.callers_write());
  append(queued, 1);
  CHECK(socket.wait_for_bytes(kFrame) == 1);
  REQUIRE(socket.writers().size() == 1);
  CHECK(socket.writers()[0] != std::this_thread::get_id());
}
