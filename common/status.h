// One status type for everything inside rgpu; each layer adds its file:line as it propagates,
// so a failure reads like a backtrace. Converted to cudaError_t (or a library status) only at the
// shim boundary.
#pragma once

#include <string>
#include <utility>

namespace rgpu {

enum class Code : int {
  kOk = 0,
  kInvalidArgument,  // bad input from the caller (a malformed frame, an unknown id)
  kProtocol,         // the peer broke the protocol (bad magic, truncated, oversized)
  kAuth,             // authentication failed or a version mismatch
  kClosed,           // the peer went away
  kIo,               // a system call failed
  kUnavailable,      // no server reachable, no device
  kNotSupported,     // the operation is not implemented here
  kInternal,
};

const char* code_name(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }
  bool is_ok() const { return code_ == Code::kOk; }
  explicit operator bool() const { return is_ok(); }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // Appends one "  at file:line" frame; used by RGPU_TRY.
  Status&& at(const char* file, int line) &&;
  std::string to_string() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or the status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {}  // NOLINT(google-explicit-constructor)
  bool is_ok() const { return status_.is_ok(); }
  const Status& status() const { return status_; }
  Status take_status() { return std::move(status_); }
  T& value() { return value_; }
  const T& value() const { return value_; }
  T& operator*() { return value_; }
  T* operator->() { return &value_; }

 private:
  T value_{};
  Status status_;
};

}  // namespace rgpu

// Propagate a failed Status, adding this file:line.
#define RGPU_TRY(expr)                                                  \
  do {                                                                  \
    ::rgpu::Status rgpu_try_status_ = (expr);                           \
    if (!rgpu_try_status_.is_ok())                                      \
      return std::move(rgpu_try_status_).at(__FILE__, __LINE__);        \
  } while (0)

#define RGPU_CONCAT_INNER(a, b) a##b
#define RGPU_CONCAT(a, b) RGPU_CONCAT_INNER(a, b)
// Assign the value of a Result or propagate its status.
#define RGPU_ASSIGN_OR_RETURN(lhs, expr)                                         \
  auto RGPU_CONCAT(rgpu_result_, __LINE__) = (expr);                             \
  if (!RGPU_CONCAT(rgpu_result_, __LINE__).is_ok())                              \
    return RGPU_CONCAT(rgpu_result_, __LINE__).take_status().at(__FILE__, __LINE__); \
  lhs = std::move(RGPU_CONCAT(rgpu_result_, __LINE__).value())

#define RGPU_ERROR(code, msg) ::rgpu::Status(::rgpu::Code::code, (msg)).at(__FILE__, __LINE__)
