// The client's connection settings (see settings.h).
#include "client/runtime/settings.h"

#include <sys/stat.h>

#include <string>

#include "common/memory_size.h"

namespace rgpu::client {

const Tunable kServerAddress{"RGPU_SERVER", "127.0.0.1:7070",
                             "rgpud address the client connects to: host:port, or unix:PATH (its Unix socket, on "
                             "its host); unset: RGPU_UNIX_SOCKET when that socket is there, else the default"};
const Tunable kUnixSocket{"RGPU_UNIX_SOCKET", "/run/rgpu/rgpud.sock",
                          "rgpud's Unix socket on this host: the client's server when RGPU_SERVER is unset and the "
                          "socket is there, and `rgpu bench --transport unix`'s when RGPU_SERVER is host:port"};
const Tunable kToken{"RGPU_TOKEN", "", "shared secret for the challenge-response handshake with rgpud"};
const Tunable kHandshakeTimeout{"RGPU_HANDSHAKE_TIMEOUT_S", "60",
                                "how long the client waits for rgpud's welcome (its GPU start-up included)"};
const Tunable kMemory{"RGPU_MEMORY", "",
                      "GPU memory the session asks the pool for (4096 = MiB, 4096M, 4G); unset: all its tenant allows"};
const Tunable kCompute{"RGPU_COMPUTE", "",
                       "percent of one GPU's compute the session asks the pool for (1..100); unset: all its tenant "
                       "allows"};
const Tunable kQueueTimeout{"RGPU_QUEUE_TIMEOUT", "",
                            "seconds the session may wait in the pool's admission queue when no GPU has room (0: "
                            "fail at once); unset: its tenant's queue_timeout"};

std::string server_address() {
  if (kServerAddress.is_set()) return kServerAddress.get();
  const std::string socket = kUnixSocket.get();
  struct stat st{};
  if (!socket.empty() && ::stat(socket.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) return "unix:" + socket;
  return kServerAddress.get();
}

namespace {

std::string quoted(std::string_view what, std::string_view text) {
  return std::string(what) + (what.starts_with("--") ? " " : "=") + "\"" + std::string(text.substr(0, 64)) +
         (text.size() > 64 ? "...\"" : "\"");
}

}  // namespace

Result<uint64_t> parse_memory_request(std::string_view text, std::string_view what) {
  Result<uint64_t> bytes = parse_memory_size(text);
  if (!bytes.is_ok()) {
    const std::string& m = bytes.status().message();
    return RGPU_ERROR(kInvalidArgument, std::string(what) + ": " + m.substr(0, m.find('\n')));
  }
  if (*bytes == 0)
    return RGPU_ERROR(kInvalidArgument, quoted(what, text) + ": ask for at least 1 MiB (leave it unset to ask for "
                                                             "all your tenant allows)");
  return bytes;
}

Result<uint32_t> parse_compute_percent(std::string_view text, std::string_view what, uint32_t min) {
  std::string_view digits = text;
  if (digits.ends_with('%')) digits.remove_suffix(1);
  uint32_t value = 0;
  bool valid = !digits.empty() && digits.size() <= 3;
  for (char ch : digits) {
    if (ch < '0' || ch > '9') valid = false;
    else value = value * 10 + static_cast<uint32_t>(ch - '0');
  }
  if (!valid || value < min || value > 100)
    return RGPU_ERROR(kInvalidArgument, quoted(what, text) + " is not a compute share: write a whole percent of " +
                                            "one GPU, " + std::to_string(min) + "..100");
  return value;
}

Result<uint64_t> memory_request() {
  if (!kMemory.is_set() || kMemory.get().empty()) return uint64_t{0};
  return parse_memory_request(kMemory.get(), kMemory.name());
}

Result<uint32_t> compute_request() {
  if (!kCompute.is_set() || kCompute.get().empty()) return uint32_t{0};
  return parse_compute_percent(kCompute.get(), kCompute.name());
}

Result<int64_t> queue_timeout_ms() {
  if (!kQueueTimeout.is_set() || kQueueTimeout.get().empty()) return int64_t{-1};
  const std::string& text = kQueueTimeout.get();
  int64_t seconds = 0;
  bool valid = text.size() <= 6;
  for (char ch : text) {
    if (ch < '0' || ch > '9') valid = false;
    else seconds = seconds * 10 + (ch - '0');
  }
  if (!valid)
    return RGPU_ERROR(kInvalidArgument, quoted(kQueueTimeout.name(), text) +
                                            " is not a queue timeout: write whole seconds (0 fails at once when no "
                                            "GPU has room; unset waits as the tenant allows)");
  return seconds * 1000;
}

}  // namespace rgpu::client
