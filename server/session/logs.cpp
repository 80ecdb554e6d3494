// kCallLogsRead: the session's error log (error_log.h) for the client's cudaLogs* functions
// (client/runtime/logs.cpp). The client's own entries come with the read and join the log first, so
// an iterator is one position among the driver's entries and the client's.
#include "common/wire/internal_calls.h"
#include "server/session/internal_handlers.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {

namespace {
constexpr uint32_t kMaxClientEntries = 64;  // the client keeps no more between two reads
}  // namespace

bool logs_read(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  ErrorLog& log = ctx.session.error_log();
  const uint32_t n = in.get<uint32_t>();
  if (!in.ok() || n > kMaxClientEntries) return false;
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view line = in.get_string();
    if (!in.ok()) return false;
    log.append(line);
  }
  const auto mode = in.get<uint8_t>();
  const auto iterator = in.get<uint32_t>();
  if (!in.ok() || !in.at_end() || mode > wire::kLogsAll) return false;
  ErrorLog::Since since;
  if (mode == wire::kLogsEnd) {
    since.end = log.end();
  } else if (!log.read(iterator, mode == wire::kLogsAll, &since)) {
    status = cudaErrorInvalidValue;  // an iterator this log never gave
    return true;
  }
  out.put<uint32_t>(since.end);
  out.put<uint32_t>(since.dropped);
  out.put<uint32_t>(static_cast<uint32_t>(since.entries.size()));
  for (const std::string& entry : since.entries) out.put_bytes(entry.data(), entry.size());
  status = cudaSuccess;
  return true;
}

}  // namespace rgpu::server::handlers
