// A Connection over memory: receives come from a fixed input (then kClosed, as if the peer hung
// up), sends are recorded. It lets fuzzers drive protocol code with arbitrary bytes, fast.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "transports/transport.h"

namespace rgpu::fuzz {

class ScriptedConnection final : public transport::Connection {
 public:
  explicit ScriptedConnection(std::span<const uint8_t> input) : input_(input) {}

  Status send_bytes(std::span<const iovec> segments) override;
  Status recv_exact(void* dst, size_t n) override;
  Status skip(uint64_t n) override;
  void shutdown() override { shut_down_ = true; }
  std::string peer() const override { return "scripted peer"; }

  // The input bytes not yet received.
  size_t remaining() const { return input_.size() - pos_; }
  // Every byte sent so far, frames back to back.
  const std::vector<uint8_t>& sent() const { return sent_; }

 private:
  Status take(void* dst, uint64_t n, const char* what);

  std::span<const uint8_t> input_;
  size_t pos_ = 0;
  bool shut_down_ = false;
  std::vector<uint8_t> sent_;
};

}  // namespace rgpu::fuzz
