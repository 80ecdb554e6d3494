// A peer's text as it may appear in our messages and logs: at most `max` bytes, control bytes
// replaced, so a hostile peer can neither flood nor forge log lines. Shared by the handshake and the
// control channel.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rgpu::transport {

inline std::string printable(std::string_view s, size_t max) {
  std::string out(s.substr(0, max));
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
  if (s.size() > max) out += "...";
  return out;
}

}  // namespace rgpu::transport
