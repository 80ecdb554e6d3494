// The driver's error log (cudaLogs*). The driver that fails a call is the server's, so its log is
// kept by the session (server/session/error_log.h): the entries its driver writes (the emulated
// backend writes one per failed runtime call, in the driver's format) and rgpu's own refusals on the
// client ("X is not supported by rgpu yet"), which wait here and join the session's log with the
// client's next read of it, so one iterator orders both.
//
//   cudaLogsCurrent       one round trip: the log's end, as an iterator.
//   cudaLogsDumpToMemory  one round trip: the entries since *iterator (all the log holds for a null
//   cudaLogsDumpToFile    iterator), each ending in '\n'; the iterator moves to the log's end. Memory:
//                         *size bytes at most, the NUL included; what does not fit gives way to a
//                         note at the head, the newest entries kept; *size becomes the bytes written
//                         before the NUL; room for no entry at all: *size 0 and cudaErrorInvalidValue
//                         (the iterator stays). File: appended to the file on the client's host.
//                         Entries the log no longer holds (it keeps 25,600 bytes, as the driver)
//                         are counted in the same note.
//   callbacks             kept here. When a call returns an error and a callback is registered, the
//                         client reads the entries since the last delivery and calls each callback
//                         with each, on the failing thread before the call returns. Successful
//                         calls cost nothing; so does a failure with no callback registered.
//                         An asynchronous call's failure reaches the callbacks with the next call
//                         that returns an error.
#include "client/runtime/logs.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/pipe.h"
#include "common/driver_log_line.h"
#include "common/wire/internal_calls.h"

namespace rgpu::client {
namespace {

// The server takes this many of the client's entries with one read; older ones give way.
constexpr size_t kMaxRefusals = 64;

struct Refusals {
  std::mutex mu;
  std::vector<std::string> lines;
};

Refusals& refusals() {
  static auto& r = *new Refusals();  // leaked: refusals are reported from static destructors too
  return r;
}

struct LogRead {
  uint32_t end = 0;      // the iterator of the log's end
  uint32_t dropped = 0;  // entries since the iterator that the log no longer holds
  std::vector<std::string> entries;
};

// One round trip: the waiting refusals join the session's log, then what `mode` asks for comes back.
cudaError_t read_log(wire::LogsRead mode, uint32_t iterator, LogRead* out) {
  if (!Pipe::get().available()) return static_cast<cudaError_t>(kStatusUnavailable);
  std::vector<std::string> lines;
  {
    std::lock_guard<std::mutex> lock(refusals().mu);
    lines.swap(refusals().lines);
  }
  Call call(wire::kCallLogsRead, CallClass::kSync);
  call.args().put<uint32_t>(static_cast<uint32_t>(lines.size()));
  for (const std::string& line : lines) call.args().put_bytes(line.data(), line.size());
  call.args().put<uint8_t>(mode);
  call.args().put<uint32_t>(iterator);
  const int32_t status = call.invoke();
  if (status != 0 || !call.replied()) return static_cast<cudaError_t>(status);
  wire::Decoder& r = call.results();
  out->end = r.get<uint32_t>();
  out->dropped = r.get<uint32_t>();
  const uint32_t n = r.get<uint32_t>();
  for (uint32_t i = 0; i < n && r.ok(); ++i) out->entries.emplace_back(r.get_string());
  return r.ok() ? cudaSuccess : cudaErrorUnknown;
}

// The dump of `log` in at most `room` bytes: every entry when it fits, else a note of what is left
// out followed by the newest entries that fit with it. Empty when not even one entry fits.
std::string dump_text(const LogRead& log, const char* api, size_t room) {
  const size_t n = log.entries.size();
  auto note = [&](size_t left_out) {
    return driver_log_line("rgpu", 'W', api,
                           std::to_string(left_out) +
                               " earlier log entries are not in this dump: the buffer or the log had no room for them") +
           "\n";
  };
  // The newest `kept` entries, after the note when anything is left out.
  auto compose = [&](size_t kept) {
    std::string text = kept < n || log.dropped ? note(n - kept + log.dropped) : std::string();
    for (size_t i = n - kept; i < n; ++i) text.append(log.entries[i]).append("\n");
    return text;
  };
  std::string text = compose(n);
  if (text.size() <= room) return text;
  std::string best;
  for (size_t kept = 1; kept <= n; ++kept) {
    std::string candidate = compose(kept);
    if (candidate.size() > room) break;
    best = std::move(candidate);
  }
  return best;
}

cudaLogLevel level_of(const std::string& entry) {
  return entry.find("][W][") != std::string::npos ? cudaLogLevelWarning : cudaLogLevelError;
}

struct LogCallback {
  cudaLogsCallback_t fn;
  void* data;
};

struct LogCallbacks {
  std::mutex mu;  // the registrations
  std::vector<std::unique_ptr<LogCallback>> registered;
  std::atomic<bool> any{false};
  std::mutex delivery_mu;          // one delivery at a time, so each entry is delivered once
  std::optional<uint32_t> next;    // the first entry the callbacks have not had (none: all held)
};

LogCallbacks& callbacks() {
  static auto& c = *new LogCallbacks();  // leaked: calls fail from static destructors too
  return c;
}

// Set on a thread while it runs callbacks: a callback's own failing call delivers nothing more, and
// its registrations do not wait for the delivery it is part of.
thread_local bool t_delivering = false;

}  // namespace

void log_refusal(const char* name) {
  std::string line = driver_log_line("rgpu", 'E', name, "not supported by rgpu yet");
  std::lock_guard<std::mutex> lock(refusals().mu);
  if (refusals().lines.size() == kMaxRefusals) refusals().lines.erase(refusals().lines.begin());
  refusals().lines.push_back(std::move(line));
}

void deliver_error_logs() {
  LogCallbacks& cbs = callbacks();
  if (!cbs.any.load(std::memory_order_relaxed) || t_delivering) return;
  t_delivering = true;
  {
    std::lock_guard<std::mutex> delivery(cbs.delivery_mu);
    LogRead log;
    if (read_log(cbs.next ? wire::kLogsSince : wire::kLogsAll, cbs.next.value_or(0), &log) == cudaSuccess) {
      cbs.next = log.end;
      std::vector<LogCallback> targets;
      {
        std::lock_guard<std::mutex> lock(cbs.mu);
        for (const auto& cb : cbs.registered) targets.push_back(*cb);
      }
      for (std::string& entry : log.entries)
        for (const LogCallback& cb : targets) cb.fn(cb.data, level_of(entry), entry.data(), entry.size());
    }
  }
  t_delivering = false;
}

}  // namespace rgpu::client

using rgpu::client::cudart_finish;

extern "C" cudaError_t cudaLogsRegisterCallback(cudaLogsCallback_t callbackFunc, void* userData,
                                                cudaLogsCallbackHandle* callback_out) {
  if (!callbackFunc) return cudart_finish(cudaErrorInvalidValue);
  auto& cbs = rgpu::client::callbacks();
  // The first callback gets the entries from its registration on (from all the log holds when there
  // is no session to ask yet).
  if (!cbs.any.load() && !rgpu::client::t_delivering) {
    std::lock_guard<std::mutex> delivery(cbs.delivery_mu);
    rgpu::client::LogRead log;
    cbs.next.reset();
    if (rgpu::client::read_log(rgpu::wire::kLogsEnd, 0, &log) == cudaSuccess) cbs.next = log.end;
  }
  auto cb = std::make_unique<rgpu::client::LogCallback>(rgpu::client::LogCallback{callbackFunc, userData});
  auto handle = reinterpret_cast<cudaLogsCallbackHandle>(cb.get());
  {
    std::lock_guard<std::mutex> lock(cbs.mu);
    cbs.registered.push_back(std::move(cb));
    cbs.any.store(true);
  }
  if (callback_out) *callback_out = handle;
  return cudaSuccess;
}

extern "C" cudaError_t cudaLogsUnregisterCallback(cudaLogsCallbackHandle callback) {
  auto& cbs = rgpu::client::callbacks();
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(cbs.mu);  // not across cudart_finish, which delivers under it
    auto it = std::find_if(cbs.registered.begin(), cbs.registered.end(), [&](const auto& cb) {
      return reinterpret_cast<cudaLogsCallbackHandle>(cb.get()) == callback;
    });
    if ((found = it != cbs.registered.end())) cbs.registered.erase(it);
    cbs.any.store(!cbs.registered.empty());
  }
  return found ? cudaSuccess : cudart_finish(cudaErrorInvalidValue);
}

extern "C" cudaError_t cudaLogsCurrent(cudaLogIterator* iterator_out, unsigned int flags) {
  if (!iterator_out || flags != 0) return cudart_finish(cudaErrorInvalidValue);
  rgpu::client::LogRead log;
  cudaError_t status = rgpu::client::read_log(rgpu::wire::kLogsEnd, 0, &log);
  if (status == cudaSuccess) *iterator_out = log.end;
  return cudart_finish(status);
}

extern "C" cudaError_t cudaLogsDumpToMemory(cudaLogIterator* iterator, char* buffer, size_t* size, unsigned int flags) {
  if (!buffer || !size || flags != 0) return cudart_finish(cudaErrorInvalidValue);
  rgpu::client::LogRead log;
  cudaError_t status = rgpu::client::read_log(iterator ? rgpu::wire::kLogsSince : rgpu::wire::kLogsAll,
                                              iterator ? *iterator : 0, &log);
  if (status != cudaSuccess) return cudart_finish(status);
  const std::string text = rgpu::client::dump_text(log, "cudaLogsDumpToMemory", *size ? *size - 1 : 0);
  if (text.empty() && (!log.entries.empty() || log.dropped)) {
    *size = 0;
    return cudart_finish(cudaErrorInvalidValue);
  }
  if (*size) {
    std::copy(text.begin(), text.end(), buffer);
    buffer[text.size()] = '\0';
  }
  *size = text.size();
  if (iterator) *iterator = log.end;
  return cudaSuccess;
}

extern "C" cudaError_t cudaLogsDumpToFile(cudaLogIterator* iterator, const char* pathToFile, unsigned int flags) {
  if (!pathToFile || flags != 0) return cudart_finish(cudaErrorInvalidValue);
  rgpu::client::LogRead log;
  cudaError_t status = rgpu::client::read_log(iterator ? rgpu::wire::kLogsSince : rgpu::wire::kLogsAll,
                                              iterator ? *iterator : 0, &log);
  if (status != cudaSuccess) return cudart_finish(status);
  const std::string text = rgpu::client::dump_text(log, "cudaLogsDumpToFile", std::string::npos);
  std::FILE* file = std::fopen(pathToFile, "a");
  if (!file) return cudart_finish(cudaErrorInvalidValue);
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (std::fclose(file) != 0 || !written) return cudart_finish(cudaErrorInvalidValue);
  if (iterator) *iterator = log.end;
  return cudaSuccess;
}
