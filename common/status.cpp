// Status formatting and the file:line trail.
#include "common/status.h"

#include <cstring>

namespace rgpu {

const char* code_name(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid argument";
    case Code::kProtocol: return "protocol error";
    case Code::kAuth: return "authentication failed";
    case Code::kClosed: return "connection closed";
    case Code::kIo: return "I/O error";
    case Code::kUnavailable: return "unavailable";
    case Code::kNotSupported: return "not supported";
    case Code::kInternal: return "internal error";
  }
  return "unknown";
}

Status&& Status::at(const char* file, int line) && {
  const char* base = std::strrchr(file, '/');
  message_ += "\n  at ";
  message_ += base ? base + 1 : file;
  message_ += ':';
  message_ += std::to_string(line);
  return std::move(*this);
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(code_name(code_)) + ": " + message_;
}

}  // namespace rgpu
