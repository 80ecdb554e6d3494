// The in-memory Connection used by the fuzzers.
#include "tests/fuzz/scripted_connection.h"

#include <cstring>
#include <string>

namespace rgpu::fuzz {

Status ScriptedConnection::send_bytes(std::span<const iovec> segments) {
  if (shut_down_) return RGPU_ERROR(kClosed, "scripted connection was shut down");
  for (const iovec& segment : segments) {
    const auto* b = static_cast<const uint8_t*>(segment.iov_base);
    sent_.insert(sent_.end(), b, b + segment.iov_len);
  }
  return Status::ok();
}

Status ScriptedConnection::take(void* dst, uint64_t n, const char* what) {
  if (shut_down_) return RGPU_ERROR(kClosed, "scripted connection was shut down");
  const size_t left = input_.size() - pos_;
  if (n > left) {
    pos_ = input_.size();
    return RGPU_ERROR(kClosed, std::string("scripted peer closed the connection (") + what + " after " +
                                   std::to_string(left) + " of " + std::to_string(n) + " bytes)");
  }
  if (dst && n) std::memcpy(dst, input_.data() + pos_, n);
  pos_ += n;
  return Status::ok();
}

Status ScriptedConnection::recv_exact(void* dst, size_t n) { return take(dst, n, "receive"); }

Status ScriptedConnection::skip(uint64_t n) { return take(nullptr, n, "skip"); }

}  // namespace rgpu::fuzz
